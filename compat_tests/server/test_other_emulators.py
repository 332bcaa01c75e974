"""Suites written for LocalStack or moto, run against this emulator: LocalStack's
SQS developer endpoint /_aws/sqs/messages (a peek that changes nothing), the
reset endpoints both emulators' users call, readable 404s for the rest of their
paths, and the --cooldowns off preset for suites that reuse queue names.

The peek's shape is LocalStack's documented one: its SQS page, section
"Developer endpoints" > "Peeking into queues" (XML response, JSON response, AWS
Client, Show invisible or delayed messages). Its example sends "hello" and
"world"; so do these tests, and the digests must be the example's.
"""

import json
import urllib.parse

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import (
    QUERY_NS,
    RawClient,
    arn_of,
    counts,
    expect_error,
    receive,
    receive_one,
    sqs_client,
    unique_name,
)
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="other emulators' endpoints, served by this one")

PEEK = "/_aws/sqs/messages"
BACKDOOR = "SQS/BACKDOOR/ACCESS"  # the receipt handle of LocalStack's example
HELLO_MD5, WORLD_MD5 = "5d41402abc4b2a76b9719d911017c592", "7d793037a0760186574b0282f2f435e7"
SYSTEM = ["SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"]


def _get(raw: RawClient, path: str, json_wanted: bool = False, **params):
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    headers = {"Accept": "application/json"} if json_wanted else {}
    return raw.request("GET", path + query, headers=headers, sign=False)


def _peek_json(raw: RawClient, url: str, **params) -> list[dict]:
    response = _get(raw, PEEK, json_wanted=True, QueueUrl=url, **params)
    assert response.status == 200, response.body
    result = response.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]
    return [] if result is None else result["Message"]


def _attributes(message: dict) -> dict:
    return {pair["Name"]: pair["Value"] for pair in message["Attribute"]}


@pytest.fixture
def hello_world(sqs, queue):
    ids = [sqs.send_message(QueueUrl=queue, MessageBody=body)["MessageId"] for body in ("hello", "world")]
    return queue, ids


def test_the_peek_answers_xml_like_localstacks_example(raw, hello_world):
    url, ids = hello_world
    response = _get(raw, PEEK, QueueUrl=url)
    assert response.status == 200
    assert response.xml_namespace() == QUERY_NS
    root = response.xml()
    assert root.tag == "ReceiveMessageResponse"
    assert root.find("ResponseMetadata/RequestId").text
    messages = root.findall("ReceiveMessageResult/Message")
    assert [m.findtext("MessageId") for m in messages] == ids
    assert [m.findtext("MD5OfBody") for m in messages] == [HELLO_MD5, WORLD_MD5]
    assert [m.findtext("Body") for m in messages] == ["hello", "world"]
    assert {m.findtext("ReceiptHandle") for m in messages} == {BACKDOOR}
    for message in messages:
        attributes = {a.findtext("Name"): a.findtext("Value") for a in message.findall("Attribute")}
        assert list(attributes)[:4] == SYSTEM
        assert attributes["SenderId"] == "000000000000" and attributes["ApproximateReceiveCount"] == "0"


def test_the_peek_answers_json_and_by_path_like_localstacks_examples(raw, sqs, hello_world):
    url, ids = hello_world
    by_url = _peek_json(raw, url)
    name = url.rsplit("/", 1)[1]
    response = _get(raw, f"{PEEK}/us-east-1/000000000000/{name}", json_wanted=True)
    assert response.status == 200 and response.header("Content-Type") == "application/json"
    document = response.json()["ReceiveMessageResponse"]
    assert document["ResponseMetadata"]["RequestId"]
    by_path = document["ReceiveMessageResult"]["Message"]
    for messages in (by_url, by_path):
        assert [m["MessageId"] for m in messages] == ids
        assert [(m["Body"], m["MD5OfBody"], m["ReceiptHandle"]) for m in messages] == [
            ("hello", HELLO_MD5, BACKDOOR),
            ("world", WORLD_MD5, BACKDOOR),
        ]
        assert [list(_attributes(m))[:4] for m in messages] == [SYSTEM, SYSTEM]


def test_an_sdk_pointed_at_the_peek_endpoint_receives_without_receiving(endpoint, sqs, hello_world):
    # LocalStack's "AWS Client" example: boto3 with endpoint_url=.../_aws/sqs/messages.
    url, ids = hello_world
    peeker = sqs_client(endpoint + PEEK)
    messages = peeker.receive_message(QueueUrl=url)["Messages"]
    assert [m["MessageId"] for m in messages] == ids  # every message: MaxNumberOfMessages is ignored
    assert {m["ReceiptHandle"] for m in messages} == {BACKDOOR}
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in messages] == ["0", "0"]
    assert counts(sqs, url) == (2, 0, 0)
    expect_error(peeker, peeker.send_message, QueueUrl=url, MessageBody="x", code="InvalidAction", status=400)


def test_peeking_changes_no_receive_count_and_moves_nothing_to_the_dead_letter_queue(endpoint, raw, sqs, queue_factory):
    # Before: /_aws/sqs/messages was taken for ReceiveMessage, and three peeks of a
    # maxReceiveCount=1 queue with no visibility timeout dead-lettered the message.
    dlq = queue_factory()
    url = queue_factory(
        attributes={
            "VisibilityTimeout": 0,
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 1}),
        }
    )
    sent = sqs.send_message(QueueUrl=url, MessageBody="look, don't touch")["MessageId"]
    _get(raw, PEEK, QueueUrl=url)
    _peek_json(raw, url)
    sqs_client(endpoint + PEEK).receive_message(QueueUrl=url)
    assert counts(sqs, dlq) == (0, 0, 0)
    received = receive_one(sqs, url, AttributeNames=["All"])  # the name both client generations know
    assert received["MessageId"] == sent
    assert received["Attributes"]["ApproximateReceiveCount"] == "1"
    assert counts(sqs, dlq) == (0, 0, 0)
    peeked = _peek_json(raw, url)  # seen again: its visibility timeout is 0
    assert _attributes(peeked[0])["ApproximateReceiveCount"] == "1"


def test_show_invisible_and_show_delayed_add_those_messages_marked(raw, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="in flight")
    (taken,) = receive(sqs, queue, VisibilityTimeout=300)
    sqs.send_message(QueueUrl=queue, MessageBody="visible")
    sqs.send_message(QueueUrl=queue, MessageBody="delayed", DelaySeconds=600)

    def peek(**flags) -> list[tuple[str, str, str, str]]:
        return [
            (
                m["Body"],
                _attributes(m).get("IsVisible", "-"),
                _attributes(m).get("IsDelayed", "-"),
                _attributes(m)["ApproximateReceiveCount"],
            )
            for m in _peek_json(raw, queue, **flags)
        ]

    assert peek() == [("visible", "-", "-", "0")]
    assert peek(ShowInvisible="true") == [("in flight", "false", "false", "1"), ("visible", "true", "false", "0")]
    assert peek(ShowDelayed="true") == [("visible", "true", "false", "0"), ("delayed", "false", "true", "0")]
    assert [body for body, *_ in peek(ShowInvisible="true", ShowDelayed="true")] == ["in flight", "visible", "delayed"]
    assert counts(sqs, queue) == (1, 1, 1)
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=taken["ReceiptHandle"])  # its handle still holds


def test_an_empty_queue_peeks_as_an_empty_result(raw, queue):
    assert _peek_json(raw, queue) == []
    assert _get(raw, PEEK, QueueUrl=queue).xml().find("ReceiveMessageResult/Message") is None


def test_peek_errors_are_sqs_errors_and_there_is_no_delete(raw, queue):
    missing = _get(raw, PEEK)
    assert missing.status == 400 and missing.xml().findtext("Error/Code") == "MissingParameter"
    unknown = _get(raw, f"{PEEK}/us-east-1/000000000000/{unique_name('none')}", json_wanted=True)
    assert unknown.status == 400
    assert unknown.json()["ErrorResponse"]["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    # LocalStack documents only GET (and an SDK's POST) here: no purge by DELETE.
    deleted = raw.request("DELETE", f"{PEEK}?QueueUrl={urllib.parse.quote(queue)}", sign=False)
    assert deleted.status == 405 and deleted.header("Allow") == "GET, POST"
    assert "DELETE" in deleted.json()["error"]


def test_queue_urls_as_localstack_and_moto_write_them_name_the_queue(sqs, raw, queue):
    # LocalStack's SQS page, "Queue URLs": the standard strategy's host names the region,
    # the path strategy puts /queue/<region>/<account>/ in the path; moto's is /<account>/<name>.
    name = queue.rsplit("/", 1)[1]
    urls = [
        f"http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/{name}",
        f"http://localhost:4566/queue/us-east-1/000000000000/{name}",
        f"http://localhost:5000/000000000000/{name}",
    ]
    for url in urls:
        sqs.send_message(QueueUrl=url, MessageBody=url)
    path = f"/queue/us-east-1/000000000000/{name}"
    posted = raw.query({"Action": "SendMessage", "MessageBody": "posted to the path"}, path=path)
    assert posted.status == 200, posted.body
    bodies: list[str] = []
    for _ in range(4):
        bodies += [m["Body"] for m in receive(sqs, queue, MaxNumberOfMessages=10)]
    assert sorted(bodies) == sorted([*urls, "posted to the path"])


@pytest.mark.parametrize(
    "method,path,nearest",
    [
        ("GET", "/_localstack/health", "GET /_emulator/health"),
        ("POST", "/_localstack/state/s3/reset", "POST /_emulator/reset"),
        ("GET", "/_aws/sqs/queues", "GET /_emulator/messages?queue=<queue URL or name>"),
        ("GET", "/_aws/sqs/messages/us-east-1/q", "GET /_aws/sqs/messages?QueueUrl=<queue URL>"),
        ("GET", "/moto-api/data.json", "GET /_emulator/queues"),
        ("GET", "/moto-api/", "GET /_emulator/ui (the dashboard)"),
    ],
)
def test_other_emulators_paths_answer_a_readable_json_404_naming_the_admin_api(raw, method, path, nearest):
    response = raw.request(method, path, sign=False)
    assert response.status == 404
    assert response.header("Content-Type") == "application/json"
    body = response.json()
    assert body["endpoints"] == "/_emulator/"
    assert nearest in body["nearest"]
    assert path in body["error"] and "/_emulator/" in body["error"]


@pytest.fixture(scope="module")
def own_server():
    """A server of its own: resets here must not empty the session server's queues."""
    server = start_emulator("manual", "other-emulators", "--cooldowns", "off")
    try:
        yield sqs_client(server.url), RawClient(server.url)
    finally:
        server.stop()


@pytest.mark.parametrize("path", ["/_localstack/state/reset", "/_localstack/state/sqs/reset", "/moto-api/reset"])
def test_the_reset_endpoints_of_localstack_and_moto_reset_everything(own_server, path):
    sqs, raw = own_server
    url = sqs.create_queue(QueueName=unique_name("reset"))["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="gone after the reset")
    response = raw.request("POST", path, sign=False)
    assert response.status == 200 and response.json() == {"reset": True}
    assert sqs.list_queues().get("QueueUrls", []) == []
    assert raw.request("GET", path, sign=False).status == 405


def test_cooldowns_off_lets_a_suite_purge_and_recreate_at_once(own_server):
    # With AWS's cooldowns (the CLI's default) the second purge is PurgeQueueInProgress and the
    # re-create QueueDeletedRecently: compat_tests/api/test_purge.py and test_queues.py prove those.
    sqs, _ = own_server
    name = unique_name("reused")
    for _ in range(3):
        url = sqs.create_queue(QueueName=name)["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        sqs.purge_queue(QueueUrl=url)
        sqs.purge_queue(QueueUrl=url)
        sqs.delete_queue(QueueUrl=url)
    assert sqs.list_queues(QueueNamePrefix=name).get("QueueUrls", []) == []
