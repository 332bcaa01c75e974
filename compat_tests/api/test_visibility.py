"""Visibility timeouts, receipt handles, receive counts, delays and retention."""

import threading

import pytest
from botocore.exceptions import ClientError

from compat_tests.helpers import (
    INVALID_PARAMETER,
    RECEIPT_HANDLE_INVALID,
    counts,
    expect_error,
    receive,
    receive_one,
)


def test_redelivery_after_visibility_timeout(sqs, queue, advance):
    sent = sqs.send_message(QueueUrl=queue, MessageBody="m")
    first = receive_one(sqs, queue, AttributeNames=["All"])
    assert first["Attributes"]["ApproximateReceiveCount"] == "1"
    advance(29)
    assert receive(sqs, queue) == []
    assert counts(sqs, queue) == (0, 1, 0)
    advance(2)
    assert counts(sqs, queue) == (1, 0, 0)
    second = receive_one(sqs, queue, AttributeNames=["All"])
    assert second["MessageId"] == first["MessageId"] == sent["MessageId"]
    assert second["ReceiptHandle"] != first["ReceiptHandle"]
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    assert second["Attributes"]["SentTimestamp"] == first["Attributes"]["SentTimestamp"]
    assert (
        second["Attributes"]["ApproximateFirstReceiveTimestamp"]
        == first["Attributes"]["ApproximateFirstReceiveTimestamp"]
    )


def test_timestamps_are_epoch_milliseconds(sqs, queue, server_now):
    before = server_now()
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue, AttributeNames=["All"])
    after = server_now()
    sent = msg["Attributes"]["SentTimestamp"]
    first = msg["Attributes"]["ApproximateFirstReceiveTimestamp"]
    assert sent.isdigit() and first.isdigit(), msg["Attributes"]
    # Milliseconds: 13 digits today, and within the server's clock readings.
    assert before * 1000 - 1000 <= int(sent) <= after * 1000 + 1000
    assert int(sent) <= int(first) <= after * 1000 + 1000


def test_change_visibility_to_zero_makes_visible_now(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue)
    assert receive(sqs, queue) == []
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=0)
    assert counts(sqs, queue) == (1, 0, 0)
    assert receive_one(sqs, queue)["MessageId"] == msg["MessageId"]


def test_change_visibility_of_message_not_in_flight(sqs, queue, advance):
    """The handle is the latest one, but the message is visible again: AWS answers
    200 and changes nothing. Recorded against AWS in LocalStack's
    test_change_message_visibility_after_visibility_timeout_expiration (PR #9632);
    AWS's API reference documents MessageNotInflight but no recording shows it.
    """
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue)
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=0)
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=100)
    # The change did not hide the message again.
    assert counts(sqs, queue) == (1, 0, 0)
    msg = receive_one(sqs, queue, VisibilityTimeout=10)
    advance(31)  # ...and neither does an expired handle once the visibility ran out
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=100)
    assert counts(sqs, queue) == (1, 0, 0)


def test_change_visibility_extends_from_now(sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue)
    advance(20)
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=100)
    advance(90)  # 110 s after the receive: past the original 30 s, not past now+100
    assert receive(sqs, queue) == []
    advance(11)
    again = receive_one(sqs, queue, AttributeNames=["ApproximateReceiveCount"])
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    # The changed value is not remembered: the queue default applies to this delivery.
    advance(31)
    assert len(receive(sqs, queue)) == 1


def test_change_visibility_beyond_twelve_hours_total(sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue, VisibilityTimeout=600)  # still in flight after the advance
    advance(100)
    expect_error(
        sqs,
        sqs.change_message_visibility,
        QueueUrl=queue,
        ReceiptHandle=msg["ReceiptHandle"],
        VisibilityTimeout=43200,
        **INVALID_PARAMETER,
    )
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=43000)


def test_change_visibility_out_of_range(sqs_unchecked, queue):
    sqs = sqs_unchecked
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue)
    for value in (43201, -1):
        expect_error(
            sqs,
            sqs.change_message_visibility,
            QueueUrl=queue,
            ReceiptHandle=msg["ReceiptHandle"],
            VisibilityTimeout=value,
            **INVALID_PARAMETER,
        )


@pytest.mark.parametrize("handle", ["garbage", "x" * 300, "AQEB" + "A" * 100], ids=["short", "long", "aws-looking"])
def test_malformed_receipt_handle(sqs, queue, handle):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    expect_error(sqs, sqs.delete_message, QueueUrl=queue, ReceiptHandle=handle, **RECEIPT_HANDLE_INVALID)
    expect_error(
        sqs,
        sqs.change_message_visibility,
        QueueUrl=queue,
        ReceiptHandle=handle,
        VisibilityTimeout=0,
        **RECEIPT_HANDLE_INVALID,
    )
    assert counts(sqs, queue) == (1, 0, 0)


def test_delete_message(sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="keep")
    sqs.send_message(QueueUrl=queue, MessageBody="drop")
    msgs = receive(sqs, queue, MaxNumberOfMessages=10)
    drop = next(m for m in msgs if m["Body"] == "drop")
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=drop["ReceiptHandle"])
    assert counts(sqs, queue) == (0, 1, 0)
    # Deleting twice with the same handle is harmless on a standard queue.
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=drop["ReceiptHandle"])
    advance(31)
    assert [m["Body"] for m in receive(sqs, queue, MaxNumberOfMessages=10)] == ["keep"]


def test_handle_from_another_queue_does_not_delete(sqs, queue_factory):
    a, b = queue_factory(), queue_factory()
    sqs.send_message(QueueUrl=a, MessageBody="in a")
    sqs.send_message(QueueUrl=b, MessageBody="in b")
    handle_a = receive_one(sqs, a)["ReceiptHandle"]
    receive_one(sqs, b)
    try:
        sqs.delete_message(QueueUrl=b, ReceiptHandle=handle_a)
    except ClientError as e:
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] < 500
    assert counts(sqs, a) == (0, 1, 0)
    assert counts(sqs, b) == (0, 1, 0)


def test_concurrent_consumers_never_share_a_message(make_client, sqs, queue):
    total = 40
    entries = [{"Id": f"e{i}", "MessageBody": f"m{i}"} for i in range(10)]
    for _ in range(total // 10):
        sqs.send_message_batch(QueueUrl=queue, Entries=entries)
    seen, lock = [], threading.Lock()

    def consume():
        client = make_client()
        for _ in range(10):
            msgs = receive(client, queue, MaxNumberOfMessages=10, VisibilityTimeout=600)
            with lock:
                seen.extend(m["MessageId"] for m in msgs)
            if not msgs:
                break

    threads = [threading.Thread(target=consume) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(seen) == total
    assert len(set(seen)) == total, "a message was delivered twice within one visibility window"


# ---------------------------------------------------------------- delays


def test_queue_delay(sqs, queue_factory, advance):
    url = queue_factory(attributes={"DelaySeconds": 10})
    sqs.send_message(QueueUrl=url, MessageBody="m")
    assert receive(sqs, url) == []
    assert counts(sqs, url) == (0, 0, 1)
    advance(9)
    assert receive(sqs, url) == []
    advance(2)
    assert counts(sqs, url) == (1, 0, 0)
    assert receive_one(sqs, url)["Body"] == "m"


def test_per_message_delay_overrides_queue_delay(sqs, queue_factory, advance):
    url = queue_factory(attributes={"DelaySeconds": 60})
    sqs.send_message(QueueUrl=url, MessageBody="short", DelaySeconds=5)
    sqs.send_message(QueueUrl=url, MessageBody="queue default")
    sqs.send_message(QueueUrl=url, MessageBody="none", DelaySeconds=0)
    hold = {"MaxNumberOfMessages": 10, "VisibilityTimeout": 3600}
    assert [m["Body"] for m in receive(sqs, url, **hold)] == ["none"]
    assert counts(sqs, url) == (0, 1, 2)
    advance(6)
    assert [m["Body"] for m in receive(sqs, url, **hold)] == ["short"]
    advance(55)
    assert [m["Body"] for m in receive(sqs, url, **hold)] == ["queue default"]


def test_delayed_message_counts_without_time_travel(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="later", DelaySeconds=900)
    assert counts(sqs, queue) == (0, 0, 1)
    assert receive(sqs, queue) == []


def test_delay_out_of_range(sqs_unchecked, queue):
    for value in (901, -1):
        expect_error(
            sqs_unchecked,
            sqs_unchecked.send_message,
            QueueUrl=queue,
            MessageBody="m",
            DelaySeconds=value,
            **INVALID_PARAMETER,
        )
    assert counts(sqs_unchecked, queue) == (0, 0, 0)


def test_retention_expires_messages(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 60})
    sqs.send_message(QueueUrl=url, MessageBody="visible")
    sqs.send_message(QueueUrl=url, MessageBody="in flight")
    receive_one(sqs, url, VisibilityTimeout=600)
    advance(30)
    assert counts(sqs, url) == (1, 1, 0)
    advance(31)
    assert counts(sqs, url) == (0, 0, 0)
    assert receive(sqs, url, MaxNumberOfMessages=10) == []
