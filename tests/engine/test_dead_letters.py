"""Moving messages between queues: dead letters and move tasks' transfers."""

from engine_support import (
    ACCOUNT,
    REGION,
    counts,
    send,
)


def dead_letter_pair(broker, max_receive_count=1):
    dlq, _ = broker.create_queue(ACCOUNT, REGION, "dlq", {})
    policy = f'{{"deadLetterTargetArn": "{dlq.arn}", "maxReceiveCount": {max_receive_count:d}}}'
    source, _ = broker.create_queue(ACCOUNT, REGION, "source", {"RedrivePolicy": policy})
    return source, dlq


def test_a_message_past_max_receive_count_moves_instead_of_being_delivered(broker):
    source, dlq = dead_letter_pair(broker)
    poison = send(source, "poison")
    send(source, "fine")
    assert [d.message.body for d in source.receive(1, 0, 0)] == ["poison"]  # count 1, visible again
    assert [d.message.body for d in source.receive(10, 30, 0)] == ["fine"]
    assert counts(source) == (0, 1, 0) and counts(dlq) == (1, 0, 0)
    [moved] = dlq.receive(1, 30, 0)
    assert moved.message.id == poison.id and moved.message.dead_letter_source == source.arn
    assert source.stats.dead_lettered == 1


def test_a_dead_letter_queue_whose_lock_is_busy_leaves_the_message_first_in_line(broker):
    """The move waits only TRANSFER_WAIT for the target's lock, then gives up
    and keeps the message where it was, to move on a later receive."""
    source, dlq = dead_letter_pair(broker)
    send(source, "poison")
    source.receive(1, 0, 0)
    with dlq._lock:  # another thread would hold it; this one times out all the same
        assert source.receive(10, 30, 0) == []
    assert counts(source) == (1, 0, 0) and counts(dlq) == (0, 0, 0)
    assert source.receive(10, 30, 0) == []  # now it moves
    assert counts(source) == (0, 0, 0) and counts(dlq) == (1, 0, 0)


def test_move_out_moves_in_receive_order_and_stops_at_a_message_without_destination(broker):
    source, target = dead_letter_pair(broker)
    for body in ("a", "b", "keep", "c"):
        send(source, body)
    moved, failed = source.move_out(10, lambda message: None if message.body == "keep" else target)
    assert (moved, failed) == (2, True)
    assert [d.message.body for d in target.receive(10, 30, 0)] == ["a", "b"]
    assert [d.message.body for d in source.receive(10, 30, 0)] == ["keep", "c"]  # first in line still


def test_nothing_moves_into_a_deleted_queue(broker):
    source, target = dead_letter_pair(broker)
    send(source, "a")
    broker.delete_queue(target)
    assert source.move_out(10, lambda message: target) == (0, True)
    assert counts(source) == (1, 0, 0)


def test_dead_lettered_messages_expire_from_their_original_send(broker, clock):
    """A dead-lettered message arrives with an older send time than the newest
    message already there; it still expires on time."""
    dlq, _ = broker.create_queue(ACCOUNT, REGION, "old-dlq", {"MessageRetentionPeriod": "100"})
    policy = f'{{"deadLetterTargetArn": "{dlq.arn}", "maxReceiveCount": 1}}'
    source, _ = broker.create_queue(ACCOUNT, REGION, "old-src", {"RedrivePolicy": policy})
    send(source, "poison")
    clock.advance(50)
    send(dlq, "fresh")  # sent at t=50
    assert len(source.receive(1, 0, 0)) == 1  # receive count 1, visible again at once
    assert source.receive(1, 30, 0) == []  # the next receive moves it to the DLQ instead
    assert counts(dlq) == (2, 0, 0)
    clock.advance(51)  # t=101: the poison message (sent at t=0) is past 100 s, "fresh" is not
    assert [d.message.body for d in dlq.receive(10, 30, 0)] == ["fresh"]
