"""Event source mappings with Python handlers, in-process (serve()): messages sent
with boto3 to a real server on loopback (compat_tests/server/test_event_source_targets.py
drives a server process through the admin API, the config file, HTTP and command
targets), handlers written with Powertools for AWS
Lambda, whose SqsModel checks the event's shape. Time moves on the manual clock;
where the poller's or a handler's thread must act, the test waits for a counter
with a short real-time deadline.

AWS's rules, each cited where it is tested: Lambda Developer Guide, "Using Lambda
with Amazon SQS" (with-sqs), "Handling errors for an SQS event source in Lambda"
(services-sqs-errorhandling), "Lambda parameters for Amazon SQS event source
mappings" (services-sqs-parameters), "Configuring scaling behavior for SQS event
source mappings" (services-sqs-scaling), "Using event filtering with an Amazon
SQS event source" (with-sqs-filtering) and "Control which events Lambda sends to
your function" (invocation-eventfiltering).
"""

import base64
import json
import threading
import uuid

import pytest
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    SqsFifoPartialProcessor,
    process_partial_response,
)
from aws_lambda_powertools.utilities.parser.models import SqsModel

from emulator import limits, serve
from emulator.events import filters
from emulator.events.poller import OVER_LIMIT_BACKOFF

REAL_WAIT = 5.0  # seconds a background thread gets to act


@pytest.fixture(scope="module")
def server():
    with serve() as server:
        yield server


@pytest.fixture(scope="module")
def client(server):
    return server.client()


@pytest.fixture
def sqs(server, client):
    yield client
    server.reset()  # every queue and mapping of the test


def new_queue(sqs, fifo=False, **attributes):
    name = f"es-{uuid.uuid4().hex[:12]}" + (".fifo" if fifo else "")
    if fifo:
        attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true", **attributes}
    url = sqs.create_queue(QueueName=name, Attributes={k: str(v) for k, v in attributes.items()})["QueueUrl"]
    return name, url


def depth(sqs, url) -> tuple[int, int]:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]), int(attributes["ApproximateNumberOfMessagesNotVisible"])


class Recorder:
    """A handler that keeps every event (validated by Powertools' SqsModel) and its context."""

    def __init__(self, result=None):
        self.events: list[dict] = []
        self.contexts: list = []
        self.result = result

    def __call__(self, event, context):
        SqsModel.model_validate(event)
        self.events.append(event)
        self.contexts.append(context)
        return self.result

    def bodies(self) -> list[list[str]]:
        return [[record["body"] for record in event["Records"]] for event in self.events]


def partial(record_handler, processor=None):
    """A Lambda handler in Powertools' partial-batch style."""
    processor = processor or BatchProcessor(event_type=EventType.SQS)

    def handler(event, context):
        return process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )

    return handler


# -- the event ------------------------------------------------------------------


def test_a_batch_reaches_the_handler_in_lambdas_sqs_event_shape_and_success_deletes_it(server, sqs):
    # with-sqs: "Example Amazon SQS message event (standard queue)"; success deletes the batch.
    name, url = new_queue(sqs)
    attributes = {
        "colour": {"DataType": "String", "StringValue": "blue"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
        "count": {"DataType": "Number", "StringValue": "12"},
    }
    sent = sqs.send_message(QueueUrl=url, MessageBody='{"n": 1}', MessageAttributes=attributes)
    handler = Recorder()
    mapping = server.event_source(name, handler)
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1, REAL_WAIT)

    (event,) = handler.events
    (record,) = event["Records"]
    assert list(record) == [
        "messageId",
        "receiptHandle",
        "body",
        "attributes",
        "messageAttributes",
        "md5OfBody",
        "md5OfMessageAttributes",
        "eventSource",
        "eventSourceARN",
        "awsRegion",
    ]
    assert record["messageId"] == sent["MessageId"]
    assert record["body"] == '{"n": 1}'
    assert record["md5OfBody"] == sent["MD5OfMessageBody"]
    assert record["md5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert sorted(record["attributes"]) == [
        "ApproximateFirstReceiveTimestamp",
        "ApproximateReceiveCount",
        "SenderId",
        "SentTimestamp",
    ]
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert record["attributes"]["SenderId"] == "000000000000"
    assert record["messageAttributes"] == {
        "colour": {"stringValue": "blue", "stringListValues": [], "binaryListValues": [], "dataType": "String"},
        "blob": {
            "binaryValue": base64.b64encode(b"\x00\x01\xff").decode(),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": "Binary",
        },
        "count": {"stringValue": "12", "stringListValues": [], "binaryListValues": [], "dataType": "Number"},
    }
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    assert (record["eventSource"], record["eventSourceARN"], record["awsRegion"]) == ("aws:sqs", arn, "us-east-1")
    context = handler.contexts[0]
    assert context.function_name == "Recorder"  # the handler's name stands for the function's
    assert 0 < context.get_remaining_time_in_millis() <= 3000  # Lambda's default 3-second timeout
    assert depth(sqs, url) == (0, 0)


def test_a_fifo_record_carries_its_group_deduplication_id_and_sequence_number(server, sqs):
    # with-sqs: "Example Amazon SQS message event (FIFO queue)".
    name, url = new_queue(sqs, fifo=True)
    sent = sqs.send_message(QueueUrl=url, MessageBody="first", MessageGroupId="g1", MessageDeduplicationId="d1")
    handler = Recorder()
    mapping = server.event_source(name, handler)
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1, REAL_WAIT)
    (record,) = handler.events[0]["Records"]
    # None were sent: null, as events Lambda delivered show it (emulator/events/records.py).
    assert record["md5OfMessageAttributes"] is None
    assert record["messageAttributes"] == {}
    assert record["attributes"]["MessageGroupId"] == "g1"
    assert record["attributes"]["MessageDeduplicationId"] == "d1"
    assert record["attributes"]["SequenceNumber"] == sent["SequenceNumber"]


def test_a_batch_holds_at_most_batch_size_records(server, sqs):
    # services-sqs-parameters: BatchSize is the most records an invocation gets.
    name, url = new_queue(sqs)
    for start in (0, 10):
        entries = [{"Id": str(i), "MessageBody": f"m{i}"} for i in range(start, start + 10)]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    handler = Recorder()
    mapping = server.event_source(name, handler, batch_size=3)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 20, REAL_WAIT)
    assert all(len(bodies) <= 3 for bodies in handler.bodies())
    assert sorted(body for bodies in handler.bodies() for body in bodies) == sorted(f"m{i}" for i in range(20))
    assert counters["records"] == 20 and counters["failures"] == 0


# -- failures and retries -----------------------------------------------------------


def test_a_poison_message_reaches_the_dead_letter_queue_after_max_receive_count_invocations(server, sqs):
    # services-sqs-errorhandling: a failed batch reappears after the visibility timeout;
    # the queue's RedrivePolicy moves it to the dead-letter queue after maxReceiveCount receives.
    dlq_name, dlq_url = new_queue(sqs)
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3})
    name, url = new_queue(sqs, VisibilityTimeout=30, RedrivePolicy=policy)
    sent = sqs.send_message(QueueUrl=url, MessageBody="poison")
    calls = []

    def handler(event, context):
        calls.append(event["Records"][0]["attributes"]["ApproximateReceiveCount"])
        raise RuntimeError("cannot digest this")

    mapping = server.event_source(name, handler, batch_size=1)
    for attempt in (1, 2, 3):
        counters = server.wait_for_event_source(
            mapping["id"], lambda c, n=attempt: c["failures"] == n and c["in_flight"] == 0, REAL_WAIT
        )
        assert depth(sqs, url) == (0, 1)  # failed, not deleted: hidden until its visibility timeout ends
        server.advance(30)
    dead = server.wait_for_message(dlq_name, timeout=REAL_WAIT)
    assert dead["id"] == sent["MessageId"] and dead["receive_count"] == 3
    assert calls == ["1", "2", "3"]
    counters = server.event_sources()[0]["counters"]
    assert counters["invocations"] == 3 and counters["failures"] == 3 and counters["retried_records"] == 2
    assert "RuntimeError: cannot digest this" in counters["last_error"]
    assert depth(sqs, url) == (0, 0)


def test_report_batch_item_failures_deletes_the_rest_and_the_failed_come_back(server, sqs):
    # services-sqs-errorhandling, "Implementing partial batch responses".
    name, url = new_queue(sqs, VisibilityTimeout=60)
    bodies = ["ok-1", "bad-1", "ok-2", "bad-2"]
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": b} for i, b in enumerate(bodies)])
    processed = []

    def record_handler(record):
        if record.body.startswith("bad"):
            raise ValueError(record.body)
        processed.append(record.body)

    mapping = server.event_source(name, partial(record_handler), report_batch_item_failures=True)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["invocations"] == 1 and not c["in_flight"])
    assert (counters["deleted"], counters["items_reported_failed"], counters["partial"]) == (2, 2, 1)
    assert sorted(processed) == ["ok-1", "ok-2"]
    assert depth(sqs, url) == (0, 2)
    server.advance(60)
    # Both fail again: Powertools raises when every record failed, which fails the whole batch.
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
    assert counters["invocations"] == 2 and counters["retried_records"] == 2
    assert depth(sqs, url) == (0, 2)


def test_without_report_batch_item_failures_a_partial_response_deletes_the_whole_batch(server, sqs):
    # services-sqs-errorhandling: partial responses are only read when ReportBatchItemFailures is on.
    name, url = new_queue(sqs)
    sent = sqs.send_message(QueueUrl=url, MessageBody="x")
    handler = Recorder(result={"batchItemFailures": [{"itemIdentifier": sent["MessageId"]}]})
    mapping = server.event_source(name, handler)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1)
    assert counters["items_reported_failed"] == 0 and depth(sqs, url) == (0, 0)


@pytest.mark.parametrize(
    "response, deleted",
    [
        ({"batchItemFailures": []}, 2),  # an empty list: complete success
        ({"batchItemFailures": None}, 2),  # a null list
        ({}, 2),  # an empty response
        (None, 2),  # a null response
        ({"batchItemFailures": [{"itemIdentifier": ""}]}, 0),  # an empty itemIdentifier: complete failure
        ({"batchItemFailures": [{"itemIdentifier": None}]}, 0),  # a null itemIdentifier
        ({"batchItemFailures": [{"messageId": "FIRST"}]}, 0),  # a bad key name
        ({"batchItemFailures": [{"itemIdentifier": "not-a-message-of-the-batch"}]}, 0),  # an unknown id
        ({"batchItemFailures": [{"itemIdentifier": "FIRST"}]}, 1),  # the first failed: the second is deleted
    ],
)
def test_partial_responses_succeed_or_fail_as_lambda_documents(server, sqs, response, deleted):
    # services-sqs-errorhandling, "Success and failure conditions" of partial batch responses.
    name, url = new_queue(sqs)
    first = sqs.send_message(QueueUrl=url, MessageBody="1")["MessageId"]
    sqs.send_message(QueueUrl=url, MessageBody="2")
    answer = json.loads(json.dumps(response).replace("FIRST", first))
    mapping = server.event_source(name, Recorder(result=answer), report_batch_item_failures=True)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["invocations"] == 1 and not c["in_flight"])
    assert counters["deleted"] == deleted
    assert counters["failures"] == (1 if deleted == 0 else 0)
    assert depth(sqs, url) == (0, 2 - deleted)


def test_fifo_a_failed_message_holds_back_the_rest_of_its_group_which_then_arrives_in_order(server, sqs):
    # services-sqs-scaling: on a FIFO queue "the function attempts all retries on the affected
    # messages before Lambda receives additional messages from the same group"; services-sqs-
    # errorhandling: with a FIFO queue the function stops at the first failure and returns it and
    # every later message (Powertools' SqsFifoPartialProcessor does so).
    name, url = new_queue(sqs, fifo=True, VisibilityTimeout=30)
    for n in "12345":
        sqs.send_message(QueueUrl=url, MessageBody=n, MessageGroupId="g")
    processed = []

    def record_handler(record):
        if record.body == "2" and record.attributes.approximate_receive_count == "1":
            raise ValueError("2 fails the first time")
        processed.append(record.body)

    handler = partial(record_handler, SqsFifoPartialProcessor())
    mapping = server.event_source(name, handler, report_batch_item_failures=True)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["invocations"] == 1 and not c["in_flight"])
    assert processed == ["1"] and counters["items_reported_failed"] == 4
    sqs.send_message(QueueUrl=url, MessageBody="6", MessageGroupId="g")
    assert depth(sqs, url) == (1, 4)  # "6" waits behind its group's messages in flight
    server.advance(30)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 6)
    assert processed == ["1", "2", "3", "4", "5", "6"]
    assert depth(sqs, url) == (0, 0)


def test_a_fifo_batch_that_outlives_its_visibility_timeout_comes_back_and_the_poller_goes_on(server, sqs):
    # services-sqs-configure: after the visibility timeout the messages become visible to Lambda
    # again (Lambda holds a function's timeout to at most the visibility timeout; here the manual
    # clock moves past it while the function runs). On a FIFO queue a receipt handle expires with
    # its visibility (docs/sqs-reference.md section 2), so the late deletes fail, the records are
    # not counted deleted, and the next invocation's deletes do it.
    name, url = new_queue(sqs, fifo=True, VisibilityTimeout=30)
    for body in ("m1", "m2"):
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="g")
    thread_errors = []
    hook, threading.excepthook = threading.excepthook, thread_errors.append
    calls = []
    mapping: dict = {}

    def handler(event, context):
        calls.append([record["body"] for record in event["Records"]])
        if len(calls) == 1:
            server.advance(31)  # this invocation runs past the visibility timeout
        else:  # the late invocation ends (its deletes tried) before this one deletes the records
            server.wait_for_event_source(mapping["id"], lambda c: c["in_flight"] == 1)

    try:
        mapping.update(server.event_source(name, handler))
        counters = server.wait_for_event_source(
            mapping["id"], lambda c: c["invocations"] == 2 and not c["in_flight"] and c["deleted"] == 2
        )
    finally:
        threading.excepthook = hook
    assert calls == [["m1", "m2"], ["m1", "m2"]]
    assert counters["succeeded"] == 1 and counters["deleted"] == 2  # the late deletes count for nothing
    assert depth(sqs, url) == (0, 0)
    assert thread_errors == []


def test_a_receive_refused_at_the_in_flight_limit_is_tried_again_and_the_poller_goes_on(server, sqs, monkeypatch):
    # quotas-queues (docs/sqs-reference.md 1.7): a short poll of a standard queue at its in-flight
    # limit is OverLimit. Lambda retries its polls with a back-off (operatorguide sqs-retries:
    # "Lambda automatically uses a retry strategy with a backoff strategy"), so the mapping stays
    # enabled and handles the message once another consumer makes room. The limit is lowered
    # to 2: 120,000 messages in flight take seconds to build.
    monkeypatch.setattr(limits, "MAX_INFLIGHT", 2)
    name, url = new_queue(sqs, VisibilityTimeout=300)
    for body in ("held 1", "held 2"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    held = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]  # another consumer's
    assert len(held) == 2
    sqs.send_message(QueueUrl=url, MessageBody="for the function")
    recorder = Recorder()
    mapping = server.event_source(name, recorder)
    server.wait_for_event_source(mapping["id"], lambda c: c["over_limit"] >= 1)
    assert recorder.events == [] and depth(sqs, url) == (1, 2)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=held[0]["ReceiptHandle"])  # room for one
    server.advance(OVER_LIMIT_BACKOFF)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1)
    assert recorder.bodies() == [["for the function"]]
    assert counters["failures"] == 0 and counters["succeeded"] == 1
    assert [m["state"] for m in server.event_sources() if m["id"] == mapping["id"]] == ["enabled"]
    assert depth(sqs, url) == (0, 1)


def test_a_failed_invocation_is_logged_at_warning_with_the_mapping_the_batch_size_and_why(server, sqs, caplog):
    # issue 30, item 9: a failing mapping was invisible in the log (INFO).
    name, url = new_queue(sqs)
    for body in ("a", "b"):
        sqs.send_message(QueueUrl=url, MessageBody=body)

    def handler(event, context):
        raise RuntimeError("the function broke")

    with caplog.at_level("WARNING", logger="emulator.events.poller"):
        mapping = server.event_source(name, handler, batching_window_seconds=1)
        server.advance(1)
        server.wait_for_event_source(mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"], REAL_WAIT)
    (logged,) = [r for r in caplog.records if r.levelname == "WARNING" and mapping["id"] in r.getMessage()]
    assert logged.getMessage() == (
        f"event source mapping {mapping['id']} (queue {name}): a batch of 2 records failed: "
        "RuntimeError: the function broke"
    )


def test_an_error_of_ours_matching_one_record_leaves_it_to_come_back_and_the_mapping_goes_on(server, sqs, monkeypatch):
    # No single message ends a mapping (issue 31, item 6): whatever a record makes the filter
    # code raise, that record comes back after its visibility timeout and the others go on.
    name, url = new_queue(sqs, VisibilityTimeout=30)
    for body in ("poison", "fine"):
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"kind": body}))
    real = filters.Pattern.matches

    def matches(self, record):
        if "poison" in record["body"]:
            raise ValueError("a bug of ours")
        return real(self, record)

    monkeypatch.setattr(filters.Pattern, "matches", matches)
    handler = Recorder()
    mapping = server.event_source(name, handler, filters=[{"body": {"kind": [{"exists": True}]}}])
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1 and c["errors"] == 1)
    assert handler.bodies() == [['{"kind": "fine"}']] and "ValueError: a bug of ours" in counters["last_error"]
    assert depth(sqs, url) == (0, 1)  # the poison record, in flight until its visibility timeout ends
    monkeypatch.setattr(filters.Pattern, "matches", real)
    server.advance(30)
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 2)
    assert [m["state"] for m in server.event_sources() if m["id"] == mapping["id"]] == ["enabled"]


def test_one_mapping_per_queue_and_function_as_on_aws(server, sqs):
    # CreateEventSourceMapping: ResourceConflictException for a queue and function already mapped
    # (emulator/events/registry.py). The same function: the same callable object, reference,
    # URL or command line; another one is a new mapping.
    name, _ = new_queue(sqs)
    handler = Recorder()
    for target in (handler, "compat_tests.event_handlers:write_bodies", "http://127.0.0.1:1/f", ["true", "x"]):
        mapping = server.event_source(name, target, enabled=False)
        with pytest.raises(
            ValueError, match=f"already exists. Please update or delete the existing mapping with UUID {mapping['id']}$"
        ):
            server.event_source(name, target, enabled=False)
    server.event_source(name, Recorder(), enabled=False)  # another object, the same code: another function
    server.event_source(name, ["true", "y"], enabled=False)
    assert len(server.event_sources()) == 6


# -- batching, filtering, concurrency ---------------------------------------------


def test_a_batching_window_gathers_records_until_the_manual_clock_ends_it(server, sqs):
    # services-sqs-parameters / CreateEventSourceMapping: MaximumBatchingWindowInSeconds is how long
    # Lambda gathers records; the batch goes when the window ends.
    name, url = new_queue(sqs, VisibilityTimeout=120)
    handler = Recorder()
    mapping = server.event_source(name, handler, batch_size=100, batching_window_seconds=20)
    for n in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=str(n))
    server.wait_for_message(name, state="inflight", predicate=lambda m: m["body"] == "2", timeout=REAL_WAIT)
    assert depth(sqs, url) == (0, 3)  # gathered...
    server.advance(19)
    assert handler.events == []  # ...and held while the window lasts
    server.advance(1)
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 3)
    assert handler.bodies() == [["0", "1", "2"]]


def test_a_full_batch_goes_before_its_window_ends(server, sqs):
    # CreateEventSourceMapping: a batch goes when it is full; a BatchSize over 10 needs a window.
    name, url = new_queue(sqs)
    handler = Recorder()
    mapping = server.event_source(name, handler, batch_size=12, batching_window_seconds=300)
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": str(i)} for i in range(10)])
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": str(i)} for i in range(10, 12)])
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 12)  # the clock never moved
    assert [len(bodies) for bodies in handler.bodies()] == [12]


def test_filters_pass_matching_records_and_delete_the_others(server, sqs):
    # invocation-eventfiltering: filters are ORed; a record that matches none is discarded
    # (with-sqs-filtering: deleted from the queue); the body is filtered as JSON.
    name, url = new_queue(sqs)
    bodies = [
        json.dumps({"kind": "order", "amount": 5}),
        json.dumps({"kind": "refund", "amount": 5}),
        json.dumps({"kind": "refund", "amount": 500}),
        "plain text",
        json.dumps({"kind": "ORDER"}),
    ]
    for body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    handler = Recorder()
    filters = [
        {"body": {"kind": [{"equals-ignore-case": "order"}]}},
        {"body": {"amount": [{"numeric": [">", 100]}]}},
    ]
    mapping = server.event_source(name, handler, filters=filters)
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] + c["filtered_out"] == 5)
    passed = sorted(body for batch in handler.bodies() for body in batch)
    assert passed == sorted([bodies[0], bodies[2], bodies[4]])
    assert counters["filtered_out"] == 2 and depth(sqs, url) == (0, 0)


@pytest.mark.parametrize("maximum_concurrency, expected", [(2, 2), (None, 5)])
def test_maximum_concurrency_caps_the_invocations_the_handler_sees_at_once(server, sqs, maximum_concurrency, expected):
    # services-sqs-scaling: MaximumConcurrency caps concurrent invocations; without it Lambda
    # "starts processing five batches at a time with five concurrent invocations".
    name, url = new_queue(sqs)
    for start in (0, 10):
        entries = [{"Id": str(i), "MessageBody": str(i)} for i in range(start, start + 10)]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    lock, release = threading.Lock(), threading.Event()
    running, peak = [0], [0]

    def handler(event, context):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(REAL_WAIT)
        with lock:
            running[0] -= 1

    mapping = server.event_source(name, handler, batch_size=1, maximum_concurrency=maximum_concurrency)
    # An invocation counts as in flight just before its handler runs: wait for both.
    server.wait_for_event_source(mapping["id"], lambda c: c["in_flight"] == expected and peak[0] == expected)
    assert depth(sqs, url) == (20 - expected, expected)  # no message taken without a free slot
    release.set()
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 20)
    assert peak[0] == expected and counters["max_in_flight"] == expected


def test_a_disabled_mapping_does_not_poll_until_enabled(server, sqs):
    # services-sqs-parameters: Enabled (default true).
    name, url = new_queue(sqs)
    sqs.send_message(QueueUrl=url, MessageBody="later")
    handler = Recorder()
    mapping = server.event_source(name, handler, enabled=False)
    assert mapping["state"] == "disabled"
    assert depth(sqs, url) == (1, 0)
    server.app.event_sources.update(mapping["id"], {"enabled": True})
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1)
    assert handler.bodies() == [["later"]]


def test_bad_settings_are_refused_naming_the_field(server, sqs):
    name, _ = new_queue(sqs)
    with pytest.raises(ValueError, match=r"^batch_size: must be from 1 to 10000, not 0$"):
        server.event_source(name, Recorder(), batch_size=0)
    with pytest.raises(LookupError, match="no queue nowhere"):
        server.event_source("nowhere", Recorder())
    assert server.event_sources() == []


def test_a_batch_stops_short_of_six_megabytes_and_the_next_record_opens_the_next_batch(server, sqs):
    # Lambda Developer Guide, "Lambda event source mappings", batching behavior: a batch goes
    # when "the payload size reaches 6 MB" (a synchronous invocation's payload quota).
    name, url = new_queue(sqs, MaximumMessageSize=1_048_576)
    body = "x" * 1_000_000
    for _ in range(7):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    sizes = []

    def handler(event, context):
        sizes.append((len(event["Records"]), len(json.dumps(event))))

    mapping = server.event_source(name, handler)  # one receive takes all seven
    server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 7, REAL_WAIT)
    assert sorted(count for count, _ in sizes) == [1, 6]  # the two batches may run at once
    assert all(size <= 6 * 1024 * 1024 for _, size in sizes)


def test_a_mapping_whose_queue_is_deleted_stops_and_says_so(server, sqs):
    name, url = new_queue(sqs)
    mapping = server.event_source(name, Recorder())
    sqs.delete_queue(QueueUrl=url)
    assert [m["state"] for m in server.event_sources() if m["id"] == mapping["id"]] == ["queue deleted"]


def test_a_fifo_queue_runs_at_most_one_batch_per_message_group_at_once(server, sqs):
    # services-sqs-scaling: "For FIFO queues, concurrent invocations are capped at the number of
    # message group IDs or the maximum concurrency setting, whichever is lower"; a group's next
    # message waits while one of it is being processed.
    name, url = new_queue(sqs, fifo=True)
    for n in range(2):
        for group in "abc":
            sqs.send_message(QueueUrl=url, MessageBody=f"{group}{n}", MessageGroupId=group)
    release = threading.Event()
    seen = []

    def handler(event, context):
        seen.extend(record["body"] for record in event["Records"])
        release.wait(REAL_WAIT)

    mapping = server.event_source(name, handler, batch_size=1)  # five slots, three groups
    # An invocation counts as in flight just before its handler runs: wait for both.
    server.wait_for_event_source(mapping["id"], lambda c: c["in_flight"] == 3 and len(seen) == 3)
    assert sorted(seen) == ["a0", "b0", "c0"] and depth(sqs, url) == (3, 3)
    release.set()
    counters = server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 6)
    assert counters["max_in_flight"] == 3
    for group in "abc":
        assert [body for body in seen if body[0] == group] == [f"{group}0", f"{group}1"]


def test_on_the_real_clock_a_message_is_handled_as_soon_as_it_is_sent():
    with serve(clock="real") as server:
        sqs = server.client()
        name, url = new_queue(sqs)
        handler = Recorder()
        mapping = server.event_source(name, handler)
        sqs.send_message(QueueUrl=url, MessageBody="now")
        server.wait_for_event_source(mapping["id"], lambda c: c["deleted"] == 1, REAL_WAIT)
        assert handler.bodies() == [["now"]]
