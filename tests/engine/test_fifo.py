"""Engine tests for FIFO queues: groups, deduplication, sequence numbers, attempts, dead letters.

On the manual clock; the facts are in docs/sqs-reference.md 1.8 and 1.11.
"""

import hashlib
import itertools

import pytest
from engine_support import (
    ACCOUNT,
    REGION,
    Poller,
    counts,
    make_message,
    send,
    wait_for_long_poll,
    wait_until,
)

from emulator.engine.fifo import DEDUP_WINDOW, sequence_number
from emulator.errors import SqsError


@pytest.fixture
def fifo(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "orders.fifo", {"FifoQueue": "true"})
    return queue


def sent(queue, group, *bodies):
    return [send(queue, body, group_id=group, dedup_id=body) for body in bodies]


def bodies(deliveries):
    return [d.message.body for d in deliveries]


# -- groups --------------------------------------------------------------------


def test_one_receive_takes_a_groups_messages_in_order_then_the_next_group(fifo):
    sent(fifo, "a", "a1", "a2")
    sent(fifo, "b", "b1")
    sent(fifo, "a", "a3")
    assert bodies(fifo.receive(10, 30, 0)) == ["a1", "a2", "a3", "b1"]


def test_a_group_with_a_message_in_flight_delivers_nothing_more(fifo):
    sent(fifo, "a", "a1", "a2", "a3")
    assert bodies(fifo.receive(1, 30, 0)) == ["a1"]
    assert fifo.receive(10, 30, 0) == []  # a2 and a3 wait behind a1
    assert counts(fifo) == (2, 1, 0)


def test_deleting_the_inflight_message_unlocks_its_group(fifo):
    sent(fifo, "a", "a1", "a2")
    [first] = fifo.receive(1, 30, 0)
    fifo.delete(first.receipt_handle)
    assert bodies(fifo.receive(10, 30, 0)) == ["a2"]


def test_order_within_a_group_holds_after_a_redelivery(fifo, clock):
    sent(fifo, "a", "a1", "a2", "a3")
    assert bodies(fifo.receive(2, 30, 0)) == ["a1", "a2"]
    clock.advance(30)  # both visible again, before a3
    again = fifo.receive(10, 30, 0)
    assert bodies(again) == ["a1", "a2", "a3"]
    assert [d.receive_count for d in again] == [2, 2, 1]


def test_a_group_is_blocked_from_its_first_inflight_message_on(fifo):
    """AWS-recorded (LocalStack's test_fifo_message_group_visibility_after_terminate_visibility_timeout
    and ..._extends_with_change_message_visibility): messages before the first in-flight
    one may be received again, the ones after it wait."""
    sent(fifo, "a", "a1", "a2", "a3")
    first, second, third = fifo.receive(3, 30, 0)
    fifo.change_visibility(first.receipt_handle, 0)  # a1 visible again, a2 and a3 in flight
    [again] = fifo.receive(10, 30, 0)
    assert again.message.body == "a1"
    fifo.change_visibility(third.receipt_handle, 0)  # a3 visible, behind a1 and a2 in flight
    assert fifo.receive(10, 30, 0) == []
    fifo.delete(second.receipt_handle)
    assert fifo.receive(10, 30, 0) == []  # a1 still in flight
    fifo.delete(again.receipt_handle)
    assert bodies(fifo.receive(10, 30, 0)) == ["a3"]


@pytest.mark.parametrize("extended, expected", [(0, []), (1, ["foo"]), (2, ["foo", "bar"])])
def test_the_extended_message_and_those_after_it_stay_hidden(fifo, clock, extended, expected):
    """AWS-recorded (test_fifo_group_visibility_extends_with_change_message_visibility):
    three received with VisibilityTimeout 1, one extended to 4 s, a receive after 2.5 s."""
    sent(fifo, "1", "foo", "bar", "baz")
    deliveries = fifo.receive(3, 1, 0)
    fifo.change_visibility(deliveries[extended].receipt_handle, 4)
    clock.advance(2.5)
    assert bodies(fifo.receive(10, 30, 0)) == expected


def test_groups_just_received_from_go_behind_the_others(fifo):
    """AWS-recorded (test_fifo_receive_message_with_zero_visibility_timeout): sends g1-m1,
    g2-m1, g2-m2, g3-m1, g1-m2; a receive of 3 with VisibilityTimeout 0, then one of 10."""
    for body in ("g1-m1", "g2-m1", "g2-m2", "g3-m1", "g1-m2"):
        send(fifo, body, group_id=body[:2], dedup_id=body)
    assert bodies(fifo.receive(3, 0, 0)) == ["g1-m1", "g1-m2", "g2-m1"]
    assert bodies(fifo.receive(10, 30, 0)) == ["g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"]


def test_ready_groups_are_served_oldest_first_and_locked_groups_skipped(fifo):
    sent(fifo, "a", "a1")
    sent(fifo, "b", "b1")
    sent(fifo, "c", "c1")
    sent(fifo, "a", "a2")
    assert bodies(fifo.receive(1, 30, 0)) == ["a1"]
    assert bodies(fifo.receive(10, 30, 0)) == ["b1", "c1"]


def test_two_consumers_never_hold_one_group(fifo):
    sent(fifo, "a", *[f"a{i}" for i in range(5)])
    sent(fifo, "b", *[f"b{i}" for i in range(5)])
    first = fifo.receive(3, 30, 0)
    second = fifo.receive(3, 30, 0)
    assert bodies(first) == ["a0", "a1", "a2"]
    assert bodies(second) == ["b0", "b1", "b2"]
    assert fifo.receive(10, 30, 0) == []


def test_receive_with_visibility_timeout_zero_leaves_the_group_ready(fifo):
    sent(fifo, "a", "a1", "a2")
    assert bodies(fifo.receive(1, 0, 0)) == ["a1"]
    assert bodies(fifo.receive(1, 30, 0)) == ["a1"]


def test_long_poll_wakes_when_a_delete_unlocks_a_group(fifo):
    sent(fifo, "a", "a1", "a2")
    [first] = fifo.receive(1, 30, 0)
    poller = Poller(fifo, max_messages=10, wait_seconds=20)
    poller.start()
    wait_for_long_poll(fifo)
    fifo.delete(first.receipt_handle)
    poller.join(2)
    assert not poller.is_alive() and bodies(poller.result) == ["a2"]


def test_many_locked_groups_leave_the_ready_index_small(fifo):
    """Receive skips locked groups through the index: each group's entry left it when it was taken."""
    for g in range(1000):
        sent(fifo, f"g{g}", f"m{g}-1", f"m{g}-2")
    taken = []
    while batch := fifo.receive(10, 30, 0):
        taken += batch
    assert len(taken) == 2000  # each receive drains whole groups: both messages of each
    assert fifo.receive(10, 30, 0) == []
    assert len(fifo._states._ready._ready) == 0


# -- deduplication -------------------------------------------------------------------


def test_duplicate_within_the_window_is_accepted_not_delivered_and_answers_the_original(fifo, clock):
    original = send(fifo, "one", group_id="g", dedup_id="d1")
    clock.advance(DEDUP_WINDOW - 1)
    duplicate = make_message("other body", "g", "d1")
    [answer] = fifo.send([(duplicate, 0)])
    assert answer.id == original.id
    assert answer.sequence_number == original.sequence_number
    assert duplicate.id not in {message.id for message in fifo._messages}
    assert bodies(fifo.receive(10, 30, 0)) == ["one"]
    assert fifo.stats.sent == 1


def test_dedup_id_is_remembered_after_receive_and_delete(fifo):
    send(fifo, "one", group_id="g", dedup_id="d1")
    [delivery] = fifo.receive(1, 30, 0)
    fifo.delete(delivery.receipt_handle)
    send(fifo, "again", group_id="g", dedup_id="d1")
    assert fifo.receive(10, 30, 0) == []


def test_dedup_window_ends_after_five_minutes_from_the_scheduler(fifo, clock):
    send(fifo, "one", group_id="g", dedup_id="d1")
    clock.advance(DEDUP_WINDOW)
    assert len(fifo._dedup) == 0  # expired by its scheduler callback, not on lookup
    send(fifo, "two", group_id="g", dedup_id="d1")
    assert bodies(fifo.receive(10, 30, 0)) == ["one", "two"]


def test_content_based_dedup_uses_the_sha256_of_the_body(broker):
    queue, _ = broker.create_queue(
        ACCOUNT, REGION, "cbd.fifo", {"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )
    first = send(queue, "same", group_id="g")
    send(queue, "same", group_id="g")
    send(queue, "same", group_id="g", dedup_id="explicit")  # an explicit id overrides the hash
    assert first.dedup_id == hashlib.sha256(b"same").hexdigest()
    assert bodies(queue.receive(10, 30, 0)) == ["same", "same"]


def test_queue_scope_dedups_across_groups_message_group_scope_does_not(broker):
    per_queue, _ = broker.create_queue(ACCOUNT, REGION, "q.fifo", {"FifoQueue": "true"})
    per_group, _ = broker.create_queue(
        ACCOUNT, REGION, "g.fifo", {"FifoQueue": "true", "DeduplicationScope": "messageGroup"}
    )
    for queue in (per_queue, per_group):
        send(queue, "in a", group_id="a", dedup_id="same")
        send(queue, "in b", group_id="b", dedup_id="same")
    assert bodies(per_queue.receive(10, 30, 0)) == ["in a"]
    assert bodies(per_group.receive(10, 30, 0)) == ["in a", "in b"]


def test_duplicates_inside_one_batch_are_dropped(fifo):
    first, second = make_message("x", "g", "same"), make_message("y", "g", "same")
    answers = fifo.send([(first, 0), (second, 0)])
    assert [a.id for a in answers] == [first.id, first.id]
    assert bodies(fifo.receive(10, 30, 0)) == ["x"]


# -- sequence numbers -----------------------------------------------------------------


def test_sequence_numbers_are_20_digits_and_strictly_increase(fifo):
    messages = sent(fifo, "a", "a1", "a2") + sent(fifo, "b", "b1")
    numbers = [m.sequence_number for m in messages]
    assert all(len(n) == 20 and n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted(int(n) for n in numbers)
    assert len(set(numbers)) == 3


@pytest.mark.parametrize("created_at", [0, 1_790_000_000, 9_999_999_999, 10**12])
def test_sequence_numbers_are_large_non_consecutive_and_strictly_increasing(created_at):
    """AWS: 'large, non-consecutive' numbers, 20 digits as returned (docs/sqs-reference.md 1.8; issue 18)."""
    numbers = [int(sequence_number(created_at, seq)) for seq in range(1, 5001)]
    assert all(len(str(n)) == 20 for n in numbers)
    gaps = {b - a for a, b in itertools.pairwise(numbers)}
    assert min(gaps) > 1 and len(gaps) > 100  # increasing, never by one, by varied steps


# -- receive request attempt ids --------------------------------------------------------


def test_retry_with_the_same_attempt_id_returns_the_same_messages_and_handles(fifo, clock):
    sent(fifo, "a", "a1", "a2")
    first = fifo.receive(10, 30, 0, attempt_id="try-1")
    clock.advance(20)
    retry = fifo.receive(10, 30, 0, attempt_id="try-1")
    assert [d.receipt_handle for d in retry] == [d.receipt_handle for d in first]
    clock.advance(29)  # the retry restarted the visibility timeout: still in flight at t=49
    assert counts(fifo) == (0, 2, 0)
    clock.advance(1)
    assert counts(fifo) == (2, 0, 0)


@pytest.mark.parametrize("change", ["delete", "visibility"])
def test_attempt_id_after_a_message_changed_is_not_retryable(fifo, change):
    sent(fifo, "a", "a1", "a2")
    first = fifo.receive(2, 30, 0, attempt_id="try-1")
    if change == "delete":
        fifo.delete(first[0].receipt_handle)
    else:
        fifo.change_visibility(first[1].receipt_handle, 60)
    with pytest.raises(SqsError) as info:
        fifo.receive(10, 30, 0, attempt_id="try-1")
    assert info.value.message == (
        "Value try-1 for parameter ReceiveRequestAttemptId is invalid. "
        "Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable."
    )


def test_concurrent_retries_with_one_attempt_id_get_the_same_messages(fifo, clock):
    """Two retries of one ReceiveRequestAttemptId wait in long polls on an empty
    queue. A send wakes one: it receives and records the attempt, and the other
    answers the same messages, not whatever was sent since."""
    pollers = [Poller(fifo, wait_seconds=20, attempt_id="try-1") for _ in range(2)]
    for poller in pollers:
        poller.start()
    wait_for_long_poll(fifo, waiters=2)
    [first] = sent(fifo, "g1", "m1")
    wait_until(lambda: any(not poller.is_alive() for poller in pollers))
    sent(fifo, "g2", "m2")  # visible now: a retry that missed the attempt would take it
    clock.advance(20)  # ends a poll still waiting, so the joins below are short
    for poller in pollers:
        poller.join(2)
    assert [poller.error for poller in pollers] == [None, None]
    answers = [[(d.message.id, d.receipt_handle) for d in poller.result] for poller in pollers]
    assert [[message_id for message_id, _ in answer] for answer in answers] == [[first.id], [first.id]]
    assert answers[0] == answers[1]


def test_attempt_id_is_forgotten_after_five_minutes(fifo, clock):
    sent(fifo, "a", "a1")
    first = fifo.receive(10, 1000, 0, attempt_id="try-1")
    clock.advance(300)
    assert fifo.receive(10, 30, 0, attempt_id="try-1") == []
    assert counts(fifo) == (0, 1, 0) and first


# -- dead-letter queues ------------------------------------------------------------------


def test_poison_message_blocks_its_group_then_moves_with_its_group_and_fresh_enqueue_time(broker, clock):
    dlq, _ = broker.create_queue(ACCOUNT, REGION, "dead.fifo", {"FifoQueue": "true"})
    policy = f'{{"deadLetterTargetArn": "{dlq.arn}", "maxReceiveCount": 2}}'
    source, _ = broker.create_queue(ACCOUNT, REGION, "src.fifo", {"FifoQueue": "true", "RedrivePolicy": policy})
    sent(source, "a", "poison", "after")
    for _ in range(2):
        assert bodies(source.receive(1, 30, 0)) == ["poison"]
        assert source.receive(10, 30, 0) == []  # the group waits while the poison message is in flight
        clock.advance(30)
    clock.advance(100)
    # receive count 2 reached: the next receive moves "poison" and goes on with its group
    assert bodies(source.receive(1, 30, 0)) == ["after"]
    assert source.stats.dead_lettered == 1
    [moved] = dlq.receive(1, 30, 0)
    assert moved.message.body == "poison" and moved.message.group_id == "a"
    assert moved.message.dedup_id == moved.message.id  # AWS: the original message's id
    assert moved.message.sent_at == clock.now() and moved.receive_count == 3
    assert moved.message.dead_letter_source == source.arn


def test_purge_forgets_deduplication_ids(fifo):
    send(fifo, "one", group_id="g", dedup_id="d1")
    fifo.purge()
    send(fifo, "again", group_id="g", dedup_id="d1")
    assert bodies(fifo.receive(10, 30, 0)) == ["again"]
