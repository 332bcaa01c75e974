"""Moving messages between queues: dead letters and move tasks' transfers."""

from .engine_support import (
    ACCOUNT,
    REGION,
    counts,
    send,
)


def test_dead_lettered_messages_expire_from_their_original_send(broker, clock):
    """A dead-lettered message arrives with an older send time than the newest
    message already there; it still expires on time."""
    dlq, _ = broker.create_queue(ACCOUNT, REGION, "old-dlq", {"MessageRetentionPeriod": "100"})
    policy = '{"deadLetterTargetArn": "%s", "maxReceiveCount": 1}' % dlq.arn
    source, _ = broker.create_queue(ACCOUNT, REGION, "old-src", {"RedrivePolicy": policy})
    send(source, "poison")
    clock.advance(50)
    send(dlq, "fresh")  # sent at t=50
    assert len(source.receive(1, 0, 0)) == 1  # receive count 1, visible again at once
    assert source.receive(1, 30, 0) == []  # the next receive moves it to the DLQ instead
    assert counts(dlq) == (2, 0, 0)
    clock.advance(51)  # t=101: the poison message (sent at t=0) is past 100 s, "fresh" is not
    assert [d.message.body for d in dlq.receive(10, 30, 0)] == ["fresh"]
