"""Message move tasks: StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask.

A task moves its first batch at once, then MaxNumberOfMessagesPerSecond
messages per second of the server clock, so the tests step it with advance(1).
AWS's wordings: docs/research/aws_dlq_facts.md (LocalStack's real-AWS
recordings in test_sqs_move_task.snapshot.json where available).
"""

import base64
import json
import uuid

import pytest
from botocore.exceptions import ClientError

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    DEFAULT_REGION,
    INVALID_PARAMETER,
    RESOURCE_NOT_FOUND,
    arn_of,
    counts,
    expect_error,
    receive,
    unique_name,
)

MISSING_SOURCE = "The resource that you specified for the SourceArn parameter doesn't exist."
MISSING_DESTINATION = "The resource that you specified for the DestinationArn parameter doesn't exist."
NOT_A_DLQ = "Source queue must be configured as a Dead Letter Queue."
ALREADY_RUNNING = (
    "There is already a task running. Only one active task is allowed for a source queue arn at a given time."
)


def missing_arn():
    return f"arn:aws:sqs:{DEFAULT_REGION}:{DEFAULT_ACCOUNT}:{unique_name('missing')}"


def redrive_policy(target_arn, max_receive_count=1):
    return json.dumps({"deadLetterTargetArn": target_arn, "maxReceiveCount": max_receive_count})


def make_dlq(sqs, queue_factory, dlq_attributes=None):
    dlq = queue_factory(prefix="dlq", attributes=dlq_attributes)
    return dlq, arn_of(sqs, dlq)


def make_source(sqs, queue_factory, dlq_arn, attributes=None):
    return queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn), **(attributes or {})})


def dead_letter(sqs, source, bodies, message_attributes=None):
    """Send ``bodies`` to ``source`` (maxReceiveCount 1) and push them all into its DLQ.

    Returns {body: original MessageId}.
    """
    ids = {}
    for body in bodies:
        kwargs = {"MessageAttributes": message_attributes} if message_attributes else {}
        ids[body] = sqs.send_message(QueueUrl=source, MessageBody=body, **kwargs)["MessageId"]
    for _ in range(4 * len(bodies) + 4):
        if counts(sqs, source) == (0, 0, 0):
            break
        receive(sqs, source, MaxNumberOfMessages=10, VisibilityTimeout=0)
    assert counts(sqs, source) == (0, 0, 0)
    return ids


def tasks(sqs, source_arn, **kwargs):
    return sqs.list_message_move_tasks(SourceArn=source_arn, **kwargs).get("Results", [])


def only_task(sqs, source_arn):
    results = tasks(sqs, source_arn)
    assert len(results) == 1, results
    return results[0]


def assert_int(entry, key, value):
    assert type(entry[key]) is int, f"{key} should be an integer, got {entry[key]!r}"
    assert entry[key] == value, f"{key}: expected {value}, got {entry[key]} in {entry}"


def drain(sqs, url):
    out = []
    for _ in range(10):
        got = receive(
            sqs,
            url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=600,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        if not got:
            break
        out.extend(got)
    return out


# ---------------------------------------------------------------- moving


def test_move_back_to_original_sources(sqs, queue_factory, advance, server_now):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    src_a = make_source(sqs, queue_factory, dlq_arn)
    src_b = make_source(sqs, queue_factory, dlq_arn)
    attributes = {"kind": {"DataType": "String", "StringValue": "poison"}}
    original = dead_letter(sqs, src_a, ["a1", "a2"], attributes)
    original.update(dead_letter(sqs, src_b, ["b1"], attributes))
    assert counts(sqs, dlq) == (3, 0, 0)
    advance(100)

    now_ms = server_now() * 1000
    handle = sqs.start_message_move_task(SourceArn=dlq_arn)["TaskHandle"]
    assert isinstance(handle, str) and handle
    decoded = json.loads(base64.b64decode(handle))
    assert decoded["sourceArn"] == dlq_arn
    uuid.UUID(decoded["taskId"])

    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "COMPLETED"
    assert entry["SourceArn"] == dlq_arn
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 3)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 3)
    assert type(entry["StartedTimestamp"]) is int
    assert abs(entry["StartedTimestamp"] - now_ms) < 2000, (entry["StartedTimestamp"], now_ms)
    for absent in ("TaskHandle", "DestinationArn", "MaxNumberOfMessagesPerSecond", "FailureReason"):
        assert absent not in entry, entry

    assert counts(sqs, dlq) == (0, 0, 0)
    assert counts(sqs, src_a) == (2, 0, 0)
    assert counts(sqs, src_b) == (1, 0, 0)
    moved = {src_a: drain(sqs, src_a), src_b: drain(sqs, src_b)}
    assert sorted(m["Body"] for m in moved[src_a]) == ["a1", "a2"]
    assert [m["Body"] for m in moved[src_b]] == ["b1"]
    for msg in moved[src_a] + moved[src_b]:
        # A moved message is a new message: new id, new enqueue time, fresh receive count.
        assert msg["MessageId"] != original[msg["Body"]]
        uuid.UUID(msg["MessageId"])
        assert abs(int(msg["Attributes"]["SentTimestamp"]) - now_ms) < 2000
        assert msg["Attributes"]["ApproximateReceiveCount"] == "1"
        assert "DeadLetterQueueSourceArn" not in msg["Attributes"]
        assert msg["MessageAttributes"] == attributes


def test_move_to_explicit_destination(sqs, queue_factory):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    destination = queue_factory(prefix="dest")
    dest_arn = arn_of(sqs, destination)
    original = dead_letter(sqs, source, ["m1", "m2", "m3"])

    sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dest_arn)
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "COMPLETED"
    assert entry["DestinationArn"] == dest_arn
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 3)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 3)
    assert "TaskHandle" not in entry
    assert "MaxNumberOfMessagesPerSecond" not in entry

    assert counts(sqs, dlq) == (0, 0, 0)
    assert counts(sqs, source) == (0, 0, 0)
    assert counts(sqs, destination) == (3, 0, 0)
    moved = drain(sqs, destination)
    assert sorted(m["Body"] for m in moved) == ["m1", "m2", "m3"]
    assert not {m["MessageId"] for m in moved} & set(original.values())


def test_move_at_a_set_rate(sqs, queue_factory, advance):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    destination = queue_factory(prefix="dest")
    dest_arn = arn_of(sqs, destination)
    dead_letter(sqs, source, [f"m{i}" for i in range(7)])

    handle = sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dest_arn, MaxNumberOfMessagesPerSecond=3)[
        "TaskHandle"
    ]
    # The first batch moves at once.
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "RUNNING"
    assert entry["TaskHandle"] == handle
    assert entry["DestinationArn"] == dest_arn
    assert_int(entry, "MaxNumberOfMessagesPerSecond", 3)
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 3)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 7)
    assert "FailureReason" not in entry
    assert counts(sqs, dlq) == (4, 0, 0)
    assert counts(sqs, destination) == (3, 0, 0)

    advance(1)
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "RUNNING"
    assert entry["TaskHandle"] == handle
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 6)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 7)
    assert counts(sqs, dlq) == (1, 0, 0)
    assert counts(sqs, destination) == (6, 0, 0)

    advance(1)
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "COMPLETED"
    assert "TaskHandle" not in entry
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 7)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 7)
    assert_int(entry, "MaxNumberOfMessagesPerSecond", 3)
    assert counts(sqs, dlq) == (0, 0, 0)
    assert counts(sqs, destination) == (7, 0, 0)
    assert counts(sqs, source) == (0, 0, 0)


def test_rate_without_destination_steps_back_to_source(sqs, queue_factory, advance):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m1", "m2", "m3"])
    sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=1)
    steps = []
    for _ in range(3):
        steps.append((counts(sqs, dlq)[0], counts(sqs, source)[0], only_task(sqs, dlq_arn)["Status"]))
        advance(1)
    steps.append((counts(sqs, dlq)[0], counts(sqs, source)[0], only_task(sqs, dlq_arn)["Status"]))
    assert steps == [(2, 1, "RUNNING"), (1, 2, "RUNNING"), (0, 3, "COMPLETED"), (0, 3, "COMPLETED")]
    assert "DestinationArn" not in only_task(sqs, dlq_arn)


def test_rate_counts_every_second_of_a_longer_advance(sqs, queue_factory, advance):
    """The rate is per second of the server clock: one advance(3) moves as much as three advance(1)."""
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, [f"m{i}" for i in range(10)])
    sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=2)
    assert_int(only_task(sqs, dlq_arn), "ApproximateNumberOfMessagesMoved", 2)
    advance(3)
    entry = only_task(sqs, dlq_arn)
    assert (entry["Status"], entry["ApproximateNumberOfMessagesMoved"]) == ("RUNNING", 8)
    assert counts(sqs, dlq) == (2, 0, 0)
    assert counts(sqs, source) == (8, 0, 0)
    advance(1)
    entry = only_task(sqs, dlq_arn)
    assert (entry["Status"], entry["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 10)


def test_cancel_midway(sqs, queue_factory, advance):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    destination = queue_factory(prefix="dest")
    dest_arn = arn_of(sqs, destination)
    dead_letter(sqs, source, [f"m{i}" for i in range(6)])

    handle = sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dest_arn, MaxNumberOfMessagesPerSecond=2)[
        "TaskHandle"
    ]
    advance(1)
    assert_int(only_task(sqs, dlq_arn), "ApproximateNumberOfMessagesMoved", 4)

    resp = sqs.cancel_message_move_task(TaskHandle=handle)
    assert_int(resp, "ApproximateNumberOfMessagesMoved", 4)

    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "CANCELLED"
    assert "TaskHandle" not in entry
    assert "FailureReason" not in entry
    assert entry["DestinationArn"] == dest_arn
    assert_int(entry, "MaxNumberOfMessagesPerSecond", 2)
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 4)
    assert_int(entry, "ApproximateNumberOfMessagesToMove", 6)

    # Time passes: nothing more moves, and the moved messages stay moved.
    advance(5)
    assert only_task(sqs, dlq_arn)["Status"] == "CANCELLED"
    assert_int(only_task(sqs, dlq_arn), "ApproximateNumberOfMessagesMoved", 4)
    assert counts(sqs, dlq) == (2, 0, 0)
    assert counts(sqs, destination) == (4, 0, 0)
    assert counts(sqs, source) == (0, 0, 0)

    # A cancelled task no longer blocks a new one, which moves the rest.
    sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dest_arn)
    assert counts(sqs, dlq) == (0, 0, 0)
    assert counts(sqs, destination) == (6, 0, 0)

    newest = only_task(sqs, dlq_arn)  # MaxResults defaults to 1: the most recent task
    assert newest["Status"] == "COMPLETED"
    assert_int(newest, "ApproximateNumberOfMessagesMoved", 2)
    both = tasks(sqs, dlq_arn, MaxResults=10)
    assert [t["Status"] for t in both] == ["COMPLETED", "CANCELLED"]
    assert both[0] == newest


def test_list_most_recent_first_and_max_results(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    for round_ in range(3):
        dead_letter(sqs, source, [f"r{round_}-{i}" for i in range(round_ + 1)])
        sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=arn_of(sqs, queue_factory(prefix="dest")))
    assert [t["ApproximateNumberOfMessagesMoved"] for t in tasks(sqs, dlq_arn)] == [3]
    assert [t["ApproximateNumberOfMessagesMoved"] for t in tasks(sqs, dlq_arn, MaxResults=2)] == [3, 2]
    assert [t["ApproximateNumberOfMessagesMoved"] for t in tasks(sqs, dlq_arn, MaxResults=10)] == [3, 2, 1]
    assert all(t["Status"] == "COMPLETED" for t in tasks(sqs, dlq_arn, MaxResults=10))


def test_list_without_tasks(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    make_source(sqs, queue_factory, dlq_arn)
    assert tasks(sqs, dlq_arn) == []
    assert tasks(sqs, dlq_arn, MaxResults=10) == []


def test_destination_deleted_while_running_fails(sqs, queue_factory, advance):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    destination = queue_factory(prefix="dest")
    dest_arn = arn_of(sqs, destination)
    dead_letter(sqs, source, ["m1", "m2", "m3"])
    sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dest_arn, MaxNumberOfMessagesPerSecond=1)
    sqs.delete_queue(QueueUrl=destination)
    advance(1)
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "FAILED"
    assert entry["FailureReason"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert "TaskHandle" not in entry
    assert entry["DestinationArn"] == dest_arn
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 1)
    # What did not move stays in the DLQ, and a FAILED task does not block a new one.
    assert counts(sqs, dlq) == (2, 0, 0)
    sqs.start_message_move_task(SourceArn=dlq_arn)
    assert counts(sqs, dlq) == (0, 0, 0)
    assert counts(sqs, source) == (2, 0, 0)


def test_moved_message_retention_restarts(sqs, queue_factory, advance):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory, {"MessageRetentionPeriod": 1000})
    source = make_source(sqs, queue_factory, dlq_arn, {"MessageRetentionPeriod": 100})
    dead_letter(sqs, source, ["m"])
    advance(90)
    sqs.start_message_move_task(SourceArn=dlq_arn)
    assert counts(sqs, source) == (1, 0, 0)
    advance(20)  # 110 s after the original send, 20 s after the move
    assert counts(sqs, source) == (1, 0, 0)
    advance(81)  # 101 s after the move
    assert counts(sqs, source) == (0, 0, 0)
    assert receive(sqs, source) == []


# ---------------------------------------------------------------- errors


def test_start_on_queue_that_is_not_a_dlq(sqs, queue_factory):
    plain = queue_factory(prefix="plain")
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=arn_of(sqs, plain),
        message=NOT_A_DLQ,
        **INVALID_PARAMETER,
    )
    # A queue that has a DLQ is a source, not a DLQ.
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=arn_of(sqs, source),
        message=NOT_A_DLQ,
        **INVALID_PARAMETER,
    )
    # Once its last source drops the RedrivePolicy, a DLQ is an ordinary queue again.
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": ""})
    expect_error(sqs, sqs.start_message_move_task, SourceArn=dlq_arn, message=NOT_A_DLQ, **INVALID_PARAMETER)


def test_start_with_missing_source(sqs):
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=missing_arn(),
        message=MISSING_SOURCE,
        **RESOURCE_NOT_FOUND,
    )


def test_start_with_missing_destination(sqs, queue_factory):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m"])
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=dlq_arn,
        DestinationArn=missing_arn(),
        message=MISSING_DESTINATION,
        **RESOURCE_NOT_FOUND,
    )
    assert tasks(sqs, dlq_arn) == []
    assert counts(sqs, dlq) == (1, 0, 0)


def test_second_task_while_one_runs(sqs, queue_factory, advance):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m1", "m2", "m3"])
    handle = sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=1)["TaskHandle"]
    expect_error(sqs, sqs.start_message_move_task, SourceArn=dlq_arn, message=ALREADY_RUNNING, **INVALID_PARAMETER)
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=dlq_arn,
        DestinationArn=arn_of(sqs, queue_factory(prefix="dest")),
        MaxNumberOfMessagesPerSecond=5,
        message=ALREADY_RUNNING,
        **INVALID_PARAMETER,
    )
    results = tasks(sqs, dlq_arn, MaxResults=10)
    assert len(results) == 1 and results[0]["TaskHandle"] == handle
    advance(1)
    advance(1)
    assert only_task(sqs, dlq_arn)["Status"] == "COMPLETED"
    assert counts(sqs, source) == (3, 0, 0)


@pytest.mark.parametrize("rate", [0, 501, -1])
def test_rate_out_of_range(sqs_unchecked, queue_factory, rate):
    sqs = sqs_unchecked
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m"])
    # Exact AWS text not recorded; emulators that copy AWS agree on this reason.
    expect_error(
        sqs,
        sqs.start_message_move_task,
        SourceArn=dlq_arn,
        MaxNumberOfMessagesPerSecond=rate,
        message_contains="for parameter MaxNumberOfMessagesPerSecond is invalid. "
        "Reason: You must enter a number that's between 1 and 500.",
        **INVALID_PARAMETER,
    )
    assert tasks(sqs, dlq_arn) == []
    assert counts(sqs, dlq) == (1, 0, 0)


def test_rate_bounds_accepted(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m"])
    sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=500)
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "COMPLETED"
    assert_int(entry, "MaxNumberOfMessagesPerSecond", 500)


def test_cancel_with_garbage_handle(sqs):
    for handle in ("garbage", "bm90IGpzb24=", base64.b64encode(b'{"taskId":"x"}').decode()):
        expect_error(
            sqs,
            sqs.cancel_message_move_task,
            TaskHandle=handle,
            message="Value for parameter TaskHandle is invalid.",
            **INVALID_PARAMETER,
        )


def test_cancel_with_handle_of_missing_source(sqs):
    handle = base64.b64encode(
        json.dumps({"taskId": str(uuid.uuid4()), "sourceArn": missing_arn()}, separators=(",", ":")).encode()
    ).decode()
    expect_error(sqs, sqs.cancel_message_move_task, TaskHandle=handle, message=MISSING_SOURCE, **RESOURCE_NOT_FOUND)


def test_cancel_unknown_task(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    make_source(sqs, queue_factory, dlq_arn)
    handle = base64.b64encode(
        json.dumps({"taskId": str(uuid.uuid4()), "sourceArn": dlq_arn}, separators=(",", ":")).encode()
    ).decode()
    expect_error(
        sqs,
        sqs.cancel_message_move_task,
        TaskHandle=handle,
        message="Task does not exist.",
        **RESOURCE_NOT_FOUND,
    )


def test_cancel_completed_task(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m1", "m2"])
    handle = sqs.start_message_move_task(SourceArn=dlq_arn)["TaskHandle"]
    assert only_task(sqs, dlq_arn)["Status"] == "COMPLETED"
    # AWS: "A message movement can only be cancelled when the current status is RUNNING."
    # No recording of the error; the operation models InvalidParameterValue-style sender errors.
    with pytest.raises(ClientError) as info:
        sqs.cancel_message_move_task(TaskHandle=handle)
    err = info.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 400, err
    assert err["Error"]["Code"] in ("InvalidParameterValue", "AWS.SimpleQueueService.UnsupportedOperation"), err
    entry = only_task(sqs, dlq_arn)
    assert entry["Status"] == "COMPLETED"
    assert_int(entry, "ApproximateNumberOfMessagesMoved", 2)
    assert counts(sqs, source) == (2, 0, 0)


def test_cancel_twice(sqs, queue_factory):
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m1", "m2", "m3"])
    handle = sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=1)["TaskHandle"]
    assert_int(sqs.cancel_message_move_task(TaskHandle=handle), "ApproximateNumberOfMessagesMoved", 1)
    with pytest.raises(ClientError) as info:
        sqs.cancel_message_move_task(TaskHandle=handle)
    err = info.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 400, err
    assert err["Error"]["Code"] in ("InvalidParameterValue", "AWS.SimpleQueueService.UnsupportedOperation"), err
    assert only_task(sqs, dlq_arn)["Status"] == "CANCELLED"


def test_list_with_missing_source(sqs):
    expect_error(
        sqs,
        sqs.list_message_move_tasks,
        SourceArn=missing_arn(),
        message=MISSING_SOURCE,
        **RESOURCE_NOT_FOUND,
    )


@pytest.mark.parametrize("max_results", [0, 11])
def test_list_max_results_out_of_range(sqs_unchecked, queue_factory, max_results):
    sqs = sqs_unchecked
    _dlq, dlq_arn = make_dlq(sqs, queue_factory)
    make_source(sqs, queue_factory, dlq_arn)
    expect_error(
        sqs,
        sqs.list_message_move_tasks,
        SourceArn=dlq_arn,
        MaxResults=max_results,
        message_contains="for parameter MaxResults is invalid. Reason: You must enter a number that's between 1 and 10.",
        **INVALID_PARAMETER,
    )


def test_same_source_and_destination(sqs, queue_factory):
    dlq, dlq_arn = make_dlq(sqs, queue_factory)
    source = make_source(sqs, queue_factory, dlq_arn)
    dead_letter(sqs, source, ["m"])
    expect_error(sqs, sqs.start_message_move_task, SourceArn=dlq_arn, DestinationArn=dlq_arn, **INVALID_PARAMETER)
    assert counts(sqs, dlq) == (1, 0, 0)
