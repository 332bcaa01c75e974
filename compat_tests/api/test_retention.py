"""MessageRetentionPeriod: a message older than the period is gone, whatever its state.

Ages count from the send (SentTimestamp). A standard DLQ keeps the original
enqueue timestamp, so a dead-lettered message's age counts from its first send
(AWS developer guide, "setting-up-dead-letter-queue-retention"; reference 1.11).
"""

import json

from compat_tests.helpers import counts, queue_attrs, receive, receive_one


def test_visible_in_flight_and_delayed_messages_expire(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 60})
    sqs.send_message(QueueUrl=url, MessageBody="in flight")
    held = receive_one(sqs, url, VisibilityTimeout=600)
    sqs.send_message(QueueUrl=url, MessageBody="visible")
    sqs.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=900)
    assert counts(sqs, url) == (1, 1, 1)
    advance(59)
    assert counts(sqs, url) == (1, 1, 1)
    advance(2)
    assert counts(sqs, url) == (0, 0, 0)
    assert receive(sqs, url, MaxNumberOfMessages=10) == []
    # None of them comes back: not the in-flight one when its visibility timeout ends,
    # not the delayed one when its delay ends.
    advance(900)
    assert counts(sqs, url) == (0, 0, 0)
    assert receive(sqs, url, MaxNumberOfMessages=10) == []
    # The handle of the expired delivery names nothing: deleting with it is harmless.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=held["ReceiptHandle"])


def test_each_message_expires_from_its_own_send(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 60})
    sqs.send_message(QueueUrl=url, MessageBody="old")
    advance(40)
    sqs.send_message(QueueUrl=url, MessageBody="young")
    assert counts(sqs, url) == (2, 0, 0)
    advance(21)  # old: 61 s, young: 21 s
    assert counts(sqs, url) == (1, 0, 0)
    msg = receive_one(sqs, url, VisibilityTimeout=0)
    assert msg["Body"] == "young"
    advance(40)  # young: 61 s
    assert counts(sqs, url) == (0, 0, 0)
    assert receive(sqs, url) == []


def test_receiving_does_not_extend_retention(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 60, "VisibilityTimeout": 25})
    sqs.send_message(QueueUrl=url, MessageBody="m")
    receive_one(sqs, url)
    advance(26)
    again = receive_one(sqs, url, AttributeNames=["ApproximateReceiveCount"])
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    advance(26)
    assert counts(sqs, url) == (1, 0, 0)
    receive_one(sqs, url)  # in flight when it expires
    advance(10)  # 62 s after the send
    assert counts(sqs, url) == (0, 0, 0)
    advance(30)
    assert receive(sqs, url) == []


def test_delay_shorter_than_retention(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 60})
    sqs.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=30)
    advance(31)
    assert counts(sqs, url) == (1, 0, 0)
    advance(30)  # 61 s after the send, 30 s after it became visible
    assert counts(sqs, url) == (0, 0, 0)
    assert receive(sqs, url) == []


def test_longer_retention_keeps_messages(sqs, queue_factory, advance):
    url = queue_factory(attributes={"MessageRetentionPeriod": 3600})
    sqs.send_message(QueueUrl=url, MessageBody="m")
    advance(3599)
    assert counts(sqs, url) == (1, 0, 0)
    advance(2)
    assert counts(sqs, url) == (0, 0, 0)


def test_dlq_message_retention_counts_from_original_send(sqs, queue_factory, advance):
    dlq = queue_factory(prefix="dlq", attributes={"MessageRetentionPeriod": 120})
    dlq_arn = queue_attrs(sqs, dlq, "QueueArn")["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})
    source = queue_factory(prefix="src", attributes={"RedrivePolicy": policy, "MessageRetentionPeriod": 3600})

    sqs.send_message(QueueUrl=source, MessageBody="poison")
    first = receive_one(sqs, source, AttributeNames=["SentTimestamp"], VisibilityTimeout=50)
    advance(51)
    assert receive(sqs, source) == []  # moved to the DLQ 51 s after its send
    sqs.send_message(QueueUrl=dlq, MessageBody="direct")  # sent to the DLQ at the same moment
    assert counts(sqs, dlq) == (2, 0, 0)
    got = {m["Body"]: m for m in receive(sqs, dlq, AttributeNames=["All"], VisibilityTimeout=0, MaxNumberOfMessages=10)}
    assert sorted(got) == ["direct", "poison"]
    assert got["poison"]["Attributes"]["SentTimestamp"] == first["Attributes"]["SentTimestamp"]

    advance(60)  # poison: 111 s since its send; direct: 60 s
    assert counts(sqs, dlq) == (2, 0, 0)
    advance(10)  # poison: 121 s -> gone; direct: 70 s -> kept
    assert counts(sqs, dlq) == (1, 0, 0)
    assert [m["Body"] for m in receive(sqs, dlq, MaxNumberOfMessages=10)] == ["direct"]
    assert counts(sqs, source) == (0, 0, 0)


def test_dlq_in_flight_message_expires_from_original_send(sqs, queue_factory, advance):
    dlq = queue_factory(prefix="dlq", attributes={"MessageRetentionPeriod": 60})
    dlq_arn = queue_attrs(sqs, dlq, "QueueArn")["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})
    source = queue_factory(prefix="src", attributes={"RedrivePolicy": policy, "MessageRetentionPeriod": 3600})

    sqs.send_message(QueueUrl=source, MessageBody="poison")
    receive_one(sqs, source, VisibilityTimeout=40)
    advance(41)
    assert receive(sqs, source) == []
    receive_one(sqs, dlq, VisibilityTimeout=600)
    assert counts(sqs, dlq) == (0, 1, 0)
    advance(20)  # 61 s after the original send, 20 s after the move
    assert counts(sqs, dlq) == (0, 0, 0)
    advance(600)
    assert receive(sqs, dlq) == []
