"""FIFO queues with dead-letter queues and message move tasks, through a real client.

AWS: a FIFO source needs a FIFO dead-letter queue (docs/sqs-reference.md 1.11); a FIFO
message's enqueue time resets when it moves there; while a poison message is in
flight its group waits, as every FIFO group does.
"""

import json

import pytest

from compat_tests.helpers import INVALID_PARAMETER, arn_of, counts, expect_error, receive, receive_one, unique_name


def fifo_queue(queue_factory, attributes=None):
    return queue_factory(name=unique_name("ffd") + ".fifo", attributes={"FifoQueue": "true", **(attributes or {})})


def policy(target_arn, max_receive_count):
    return json.dumps({"deadLetterTargetArn": target_arn, "maxReceiveCount": max_receive_count})


def send(sqs, url, body, group="g"):
    return sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=group, MessageDeduplicationId=body)


def bodies(messages):
    return [m["Body"] for m in messages]


@pytest.fixture
def fifo_pair(sqs, queue_factory):
    """(source, dlq) FIFO queues; the source dead-letters after 2 receives."""
    dlq = fifo_queue(queue_factory)
    source = fifo_queue(queue_factory, {"RedrivePolicy": policy(arn_of(sqs, dlq), 2)})
    return source, dlq


@pytest.mark.parametrize("source_fifo", [True, False])
def test_dead_letter_queue_must_be_the_same_type(sqs, queue_factory, source_fifo):
    other = queue_factory() if source_fifo else fifo_queue(queue_factory)
    value = policy(arn_of(sqs, other), 3)
    name = unique_name("src") + (".fifo" if source_fifo else "")
    attributes = {"FifoQueue": "true"} if source_fifo else {}
    # AWS's wording, double period included (a real AWS error in a terraform log; docs/research/aws_fifo_facts.md Q9).
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        Attributes={**attributes, "RedrivePolicy": value},
        **INVALID_PARAMETER,
        message=f"Value {value} for parameter RedrivePolicy is invalid. "
        "Reason: Dead-letter queue must be same type of queue as the source..",
    )


def test_poison_message_blocks_its_group_then_moves_with_its_group(sqs, fifo_pair, advance, server_now):
    source, dlq = fifo_pair
    send(sqs, source, "poison", group="a")
    send(sqs, source, "next", group="a")
    for _ in range(2):
        taken = receive(sqs, source, MaxNumberOfMessages=1, VisibilityTimeout=10)
        assert bodies(taken) == ["poison"]
        assert receive(sqs, source, MaxNumberOfMessages=10) == []  # "next" waits behind it
        advance(10)
    advance(50)
    moved_at = server_now()
    # The third receive moves "poison" to the DLQ and goes on with group a in order.
    assert bodies(receive(sqs, source, MaxNumberOfMessages=10)) == ["next"]
    message = receive_one(sqs, dlq, AttributeNames=["All"])
    assert message["Body"] == "poison"
    attributes = message["Attributes"]
    assert attributes["MessageGroupId"] == "a"
    assert attributes["DeadLetterQueueSourceArn"] == arn_of(sqs, source)
    assert attributes["ApproximateReceiveCount"] == "3"
    # A FIFO message's enqueue time resets in the dead-letter queue.
    assert int(attributes["SentTimestamp"]) >= int(moved_at * 1000) - 1000


def test_dead_lettered_messages_keep_their_group_order(sqs, fifo_pair, advance):
    source, dlq = fifo_pair
    for body in ("a1", "a2", "a3"):
        send(sqs, source, body, group="a")
    for _ in range(2):
        assert bodies(receive(sqs, source, MaxNumberOfMessages=10, VisibilityTimeout=5)) == ["a1", "a2", "a3"]
        advance(5)
    assert receive(sqs, source, MaxNumberOfMessages=10) == []  # all three moved
    assert bodies(receive(sqs, dlq, MaxNumberOfMessages=10)) == ["a1", "a2", "a3"]


def test_move_task_back_to_a_fifo_source_keeps_group_order(sqs, fifo_pair, advance):
    source, dlq = fifo_pair
    for body, group in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("b2", "b")]:
        send(sqs, source, body, group=group)
    for _ in range(2):
        assert len(receive(sqs, source, MaxNumberOfMessages=10, VisibilityTimeout=5)) == 4
        advance(5)
    assert receive(sqs, source, MaxNumberOfMessages=10) == []
    assert counts(sqs, dlq) == (4, 0, 0)
    sqs.start_message_move_task(SourceArn=arn_of(sqs, dlq))
    advance(1)
    moved = receive(sqs, source, MaxNumberOfMessages=10, AttributeNames=["MessageGroupId"])
    assert bodies(moved) == ["a1", "a2", "b1", "b2"]
    assert [m["Attributes"]["MessageGroupId"] for m in moved] == ["a", "a", "b", "b"]
