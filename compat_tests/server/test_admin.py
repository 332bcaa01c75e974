"""The admin API under /_emulator/ beside real boto3 clients: health, reset, the
queue list with counts and totals, peek, time travel, fault injection, metrics.
All of it is the emulator's own (AWS has none of it)."""

import base64
import json
import urllib.error
import urllib.request
from datetime import UTC

import pytest
from prometheus_client.parser import text_string_to_metric_families

from compat_tests.api.test_long_poll import Poller
from compat_tests.conftest import TARGET
from compat_tests.helpers import admin_call as call
from compat_tests.helpers import counts, receive, receive_one, sqs_client
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own admin API")


@pytest.fixture
def own_server():
    """A server of the test's own, for what touches every queue (reset)."""
    server = start_emulator("manual", "admin")
    yield server, sqs_client(server.url)
    server.stop()


def queue_view(endpoint, url):
    return next(q for q in call(endpoint, "GET", "/_emulator/queues")[1]["queues"] if q["url"] == url)


def test_health_names_the_clock_version_and_persistence(endpoint):
    status, health = call(endpoint, "GET", "/_emulator/health")
    assert status == 200
    assert health["status"] == "ok" and health["clock"] == "manual" and health["version"]
    assert health["persistence"] is None and isinstance(health["now"], float)


def test_reset_and_moto_reset_delete_every_queue(own_server):
    server, sqs = own_server
    for path in ("/_emulator/reset", "/moto-api/reset"):
        sqs.create_queue(QueueName="a")
        other = sqs_client(server.url, region="eu-west-1", access_key="111122223333")
        other.create_queue(QueueName="b")
        status, _ = call(server.url, "POST", path)
        assert status == 200
        assert call(server.url, "GET", "/_emulator/queues")[1] == {"queues": []}
        assert sqs.list_queues().get("QueueUrls", []) == []
        sqs.create_queue(QueueName="a")  # no re-create cooldown after a reset
        call(server.url, "POST", path)


def test_queues_list_counts_and_totals_of_standard_and_fifo_queues(endpoint, sqs, queue_factory, advance):
    dlq = queue_factory()
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = queue_factory(
        attributes={
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1}),
            "VisibilityTimeout": 30,
        }
    )
    fifo = queue_factory(
        name=f"admin-{dlq.rsplit('-', 1)[1]}.fifo",
        attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )
    for body in ("a", "b", "c"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    first = receive_one(sqs, url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])  # used again: a stale handle
    receive_one(sqs, url)
    advance(31)
    receive(sqs, url, MaxNumberOfMessages=10)  # the one received before moves to the DLQ
    sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g")

    view = queue_view(endpoint, url)
    assert (view["name"], view["type"], view["account"], view["region"]) == (
        url.rsplit("/", 1)[1],
        "standard",
        "000000000000",
        "us-east-1",
    )
    assert (view["visible"], view["inflight"], view["delayed"]) == counts(sqs, url)
    totals = view["totals"]
    assert totals["sent"] == 4 and totals["deleted"] == 1 and totals["dead_lettered"] == 1
    assert totals["stale_receipts"] >= 1 and totals["received"] >= 3
    assert view["dead_letter_target"] == dlq_arn and view["attributes"]["VisibilityTimeout"] == "30"
    assert queue_view(endpoint, dlq)["visible"] == 1
    fifo_view = queue_view(endpoint, fifo)
    assert fifo_view["type"] == "fifo" and fifo_view["visible"] == 1 and fifo_view["totals"]["sent"] == 1


def test_peek_shows_every_state_and_changes_nothing(endpoint, sqs, queue):
    sqs.send_message(
        QueueUrl=queue,
        MessageBody="visible",
        MessageAttributes={"bin": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}},
    )
    sqs.send_message(QueueUrl=queue, MessageBody="taken")
    sqs.send_message(QueueUrl=queue, MessageBody="delayed", DelaySeconds=30)
    taken = receive_one(sqs, queue)  # the oldest: "visible"
    before = counts(sqs, queue)
    status, page = call(endpoint, "GET", f"/_emulator/messages?queue={queue}&state=all")
    assert status == 200 and page["next"] is None
    by_body = {m["body"]: m for m in page["messages"]}
    assert {b: m["state"] for b, m in by_body.items()} == {
        "visible": "inflight",
        "taken": "visible",
        "delayed": "delayed",
    }
    assert by_body["visible"]["id"] == taken["MessageId"] and by_body["visible"]["receive_count"] == 1
    assert base64.b64decode(by_body["visible"]["attributes"]["bin"]["BinaryValue"]) == b"\x00\x01"
    assert by_body["delayed"]["visible_at"] > by_body["delayed"]["sent_at"]
    assert counts(sqs, queue) == before  # nothing moved
    again = receive_one(sqs, queue, AttributeNames=["All"])
    assert again["Body"] == "taken" and again["Attributes"]["ApproximateReceiveCount"] == "1"
    # One state, pages of one, by name as well as by URL.
    name = queue.rsplit("/", 1)[1]
    first = call(endpoint, "GET", f"/_emulator/messages?queue={name}&state=inflight&limit=1")[1]
    second = call(endpoint, "GET", f"/_emulator/messages?queue={name}&state=inflight&limit=1&after={first['next']}")[1]
    assert [m["body"] for m in first["messages"] + second["messages"]] == ["visible", "taken"]
    assert second["next"] is None


def test_a_30_second_visibility_timeout_ends_with_one_advance_in_a_json_body(endpoint, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="job")
    receive_one(sqs, queue, VisibilityTimeout=30)
    assert receive(sqs, queue) == []
    status, moved = call(endpoint, "POST", "/_emulator/clock/advance", {"seconds": 30})
    assert status == 200 and isinstance(moved["now"], float)
    assert receive_one(sqs, queue, AttributeNames=["All"])["Attributes"]["ApproximateReceiveCount"] == "2"


def test_clock_set_takes_epoch_seconds_or_iso_8601_and_only_moves_forward(endpoint, sqs, queue):
    now = call(endpoint, "GET", "/_emulator/health")[1]["now"]
    sqs.send_message(QueueUrl=queue, MessageBody="in an hour", DelaySeconds=900)
    status, moved = call(endpoint, "POST", "/_emulator/clock/set", {"time": now + 600})
    assert status == 200 and moved["now"] == pytest.approx(now + 600)
    assert receive(sqs, queue) == []
    from datetime import datetime

    later = datetime.fromtimestamp(now + 901, UTC).isoformat().replace("+00:00", "Z")
    assert call(endpoint, "POST", "/_emulator/clock/set", {"time": later})[0] == 200
    assert receive_one(sqs, queue)["Body"] == "in an hour"
    status, error = call(endpoint, "POST", "/_emulator/clock/set", {"time": now})
    assert status == 400 and "only moves forward" in error["error"]


def test_a_long_poll_wakes_when_an_advance_makes_a_message_visible(endpoint, make_client, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="soon", DelaySeconds=10)
    poller = Poller(make_client(), queue, WaitTimeSeconds=20).start()
    assert poller.alive()
    call(endpoint, "POST", "/_emulator/clock/advance", {"seconds": 10})
    assert [m["Body"] for m in poller.join()] == ["soon"]


def test_injected_duplicates_reach_a_second_consumer_under_new_receipt_handles(endpoint, sqs, queue):
    status, set_ = call(endpoint, "PUT", "/_emulator/faults", {"queue": queue, "duplicate_delivery": 1.0, "seed": 7})
    assert status == 200 and set_["faults"]["duplicate_delivery"] == 1.0
    sqs.send_message(QueueUrl=queue, MessageBody="twice")
    first = receive_one(sqs, queue, VisibilityTimeout=300)
    second = receive_one(sqs, queue, VisibilityTimeout=300, AttributeNames=["All"])  # the first still holds it
    assert first["MessageId"] == second["MessageId"] and first["ReceiptHandle"] != second["ReceiptHandle"]
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    assert queue_view(endpoint, queue)["totals"]["duplicate_deliveries"] >= 2
    assert call(endpoint, "GET", f"/_emulator/faults?queue={queue}")[1]["faults"]["seed"] == 7
    assert call(endpoint, "DELETE", f"/_emulator/faults?queue={queue}")[1]["faults"] is None
    assert queue_view(endpoint, queue)["faults"] is None


def test_a_lost_delete_answers_success_and_the_message_comes_back(endpoint, sqs, queue, advance):
    call(endpoint, "PUT", "/_emulator/faults", {"queue": queue, "lost_delete": 1.0})
    sqs.send_message(QueueUrl=queue, MessageBody="undead")
    message = receive_one(sqs, queue, VisibilityTimeout=30)
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])  # 200, as AWS answers
    assert receive(sqs, queue) == []
    advance(30)
    assert receive_one(sqs, queue)["MessageId"] == message["MessageId"]
    assert queue_view(endpoint, queue)["totals"]["lost_deletes"] == 1


def test_delayed_visibility_holds_new_messages_back(endpoint, sqs, queue, advance):
    call(endpoint, "PUT", "/_emulator/faults", {"queue": queue, "delayed_visibility_seconds": 5})
    sqs.send_message(QueueUrl=queue, MessageBody="late")
    assert receive(sqs, queue) == [] and counts(sqs, queue) == (0, 0, 1)
    advance(5)
    assert receive_one(sqs, queue)["Body"] == "late"
    assert queue_view(endpoint, queue)["totals"]["delayed_visibilities"] == 1


def test_seeded_faults_are_reproducible(own_server):
    server, sqs = own_server
    outcomes = []
    for _ in range(2):
        url = sqs.create_queue(QueueName="seeded")["QueueUrl"]
        call(server.url, "PUT", "/_emulator/faults", {"queue": url, "duplicate_delivery": 0.5, "seed": 42})
        for i in range(20):
            sqs.send_message(QueueUrl=url, MessageBody=str(i))
        seen = []
        while True:
            messages = receive(sqs, url, MaxNumberOfMessages=10, VisibilityTimeout=300)
            if not messages:
                break
            seen += [m["Body"] for m in messages]
        outcomes.append(seen)
        call(server.url, "POST", "/_emulator/reset")
    assert outcomes[0] == outcomes[1] and len(outcomes[0]) > 20  # some duplicates, the same ones


@pytest.mark.parametrize(
    "method, path, body, status, words",
    [
        ("GET", "/_emulator/messages", None, 400, "name a queue"),
        ("GET", "/_emulator/messages?queue=no-such-queue", None, 404, "no queue no-such-queue"),
        ("GET", "/_emulator/messages?queue=QUEUE&state=lost", None, 400, "state must be one of"),
        ("GET", "/_emulator/messages?queue=QUEUE&limit=0", None, 400, "limit must be from 1"),
        ("GET", "/_emulator/messages?queue=QUEUE&limit=ten", None, 400, "limit must be a number"),
        ("POST", "/_emulator/clock/advance", {"seconds": -1}, 400, "seconds must be from 0"),
        ("POST", "/_emulator/clock/advance", {"seconds": "soon"}, 400, "seconds must be a number"),
        ("POST", "/_emulator/clock/set", {"time": "next tuesday"}, 400, "ISO 8601"),
        ("PUT", "/_emulator/faults", {"queue": "QUEUE", "duplicate_delivery": 2}, 400, "is a probability"),
        ("PUT", "/_emulator/faults", {"queue": "QUEUE", "loose": "yes"}, 400, "loose must be true or false"),
        ("PUT", "/_emulator/faults", {"queue": "QUEUE", "explode": 1}, 400, "unknown fault 'explode'"),
        ("PUT", "/_emulator/faults", {"queue": "QUEUE", "seed": "x"}, 400, "seed must be an integer"),
        ("PUT", "/_emulator/faults", [1, 2], 400, "must be a JSON object"),
        ("GET", "/_emulator/nothing-here", None, 404, "no admin route"),
        ("DELETE", "/_emulator/health", None, 405, "not allowed"),
    ],
)
def test_bad_admin_input_is_a_json_4xx(endpoint, queue, method, path, body, status, words):
    if isinstance(body, dict):
        body = {key: queue if value == "QUEUE" else value for key, value in body.items()}
    got, answer = call(endpoint, method, path.replace("QUEUE", queue), body)
    assert got == status and words in answer["error"]


def test_a_body_that_is_not_json_is_a_400(endpoint):
    status, answer = call(endpoint, "POST", "/_emulator/clock/advance", raw=b"{seconds")
    assert status == 400 and "not valid JSON" in answer["error"]


def test_metrics_parse_as_prometheus_text(endpoint, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="counted")
    try:
        sqs.get_queue_url(QueueName="metrics-no-such-queue")
    except sqs.exceptions.QueueDoesNotExist:
        pass
    with urllib.request.urlopen(endpoint + "/_emulator/metrics", timeout=10) as response:
        assert response.headers.get_content_type() == "text/plain"
        text = response.read().decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    requests = {
        (s.labels["operation"], s.labels["outcome"]): s.value
        for s in families["sqs_requests"].samples
        if s.name == "sqs_requests_total"
    }
    assert requests[("SendMessage", "ok")] >= 1 and requests[("GetQueueUrl", "QueueDoesNotExist")] >= 1
    latency = [
        s
        for s in families["sqs_request_duration_seconds"].samples
        if s.name.endswith("_count") and s.labels["operation"] == "SendMessage"
    ]
    assert latency and latency[0].value >= 1
    name = queue.rsplit("/", 1)[1]
    depth = {s.labels["state"]: s.value for s in families["sqs_queue_messages"].samples if s.labels["queue"] == name}
    assert depth == {"visible": 1, "inflight": 0, "delayed": 0}
    sent = [
        s.value
        for s in families["sqs_queue_events"].samples
        if s.labels["queue"] == name and s.labels["event"] == "sent"
    ]
    assert sent == [1]
