"""Retention: every state expires at its send time plus the period, one callback per queue."""

from engine_support import (
    ACCOUNT,
    REGION,
    counts,
    error_name,
    one_in_each_state,
    send,
)

from emulator.engine.message import Message, State

# -- retention -------------------------------------------------------------


def test_retention_expires_visible_inflight_and_delayed_messages(broker, clock):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "short", {"MessageRetentionPeriod": "60"})
    visible, delivery, delayed = one_in_each_state(queue)

    clock.advance(59)
    assert counts(queue) == (1, 1, 1)
    clock.advance(1)
    assert counts(queue) == (0, 0, 0)
    assert {visible.state, delivery.message.state, delayed.state} == {State.GONE}

    # The expired in-flight message's handle deletes nothing and changes nothing.
    queue.delete(delivery.receipt_handle)
    assert error_name(queue.change_visibility, delivery.receipt_handle, 10) == "InvalidParameterValue"
    # Its pending visibility and delay deadlines do nothing when they come.
    clock.advance(1000)
    assert counts(queue) == (0, 0, 0)
    assert queue.receive(10, 30, 0) == []


def test_set_retention_to_60_then_advance_expires_every_state(queue, clock):
    visible, delivery, delayed = one_in_each_state(queue)
    queue.set_attributes({"MessageRetentionPeriod": "60"})
    clock.advance(59)
    assert counts(queue) == (1, 1, 1)
    clock.advance(1)
    assert counts(queue) == (0, 0, 0)
    assert {visible.state, delivery.message.state, delayed.state} == {State.GONE}


def test_shortened_retention_expires_messages_already_older_than_it(queue, clock):
    old = send(queue, "old")
    clock.advance(100)
    young = send(queue, "young")
    queue.set_attributes({"MessageRetentionPeriod": "60"})
    clock.advance(1)  # the manual clock runs due callbacks when it moves
    assert old.state is State.GONE
    assert young.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)
    clock.advance(59)
    assert young.state is State.GONE
    assert counts(queue) == (0, 0, 0)


def test_lengthened_retention_keeps_messages_past_the_old_period(broker, clock):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "grow", {"MessageRetentionPeriod": "60"})
    message = send(queue)
    clock.advance(30)
    queue.set_attributes({"MessageRetentionPeriod": "120"})
    clock.advance(30)  # the 60 s deadline comes and re-arms for 120 s
    assert message.state is State.VISIBLE
    clock.advance(59)
    assert counts(queue) == (1, 0, 0)
    clock.advance(1)
    assert message.state is State.GONE
    assert counts(queue) == (0, 0, 0)


def test_retention_shortened_then_lengthened_again_keeps_messages(queue, clock):
    message = send(queue)
    clock.advance(10)
    queue.set_attributes({"MessageRetentionPeriod": "60"})
    queue.set_attributes({"MessageRetentionPeriod": "120"})
    clock.advance(60)
    assert message.state is State.VISIBLE
    clock.advance(50)
    assert message.state is State.GONE


# -- retention bookkeeping ------------------------------------------------------


def test_deleted_messages_leave_nothing_on_the_scheduler(queue, broker, clock):
    """Retention is one callback per queue, not one per message: sent and deleted
    messages leave no scheduler entry holding them for the 4-day retention."""
    for i in range(500):
        send(queue, f"m{i}")
    while batch := queue.receive(10, 30, 0):
        for delivery in batch:
            queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 0, 0)
    clock.advance(31)  # the receives' visibility callbacks fire and find nothing to do
    entries = list(broker.scheduler._heap)
    assert len(entries) <= 1
    assert not any(isinstance(arg, Message) for *_, args in entries for arg in args)


def test_handles_find_their_messages_by_arrival_number_across_compactions(queue):
    """Messages are found by bisection over the arrival numbers (no dict beside the order):
    a handle keeps finding its message after holes were squeezed out, and a handle of a
    message that left finds nothing, in whatever order the deletes come."""
    for i in range(3000):
        send(queue, f"m{i}")
    deliveries = []
    while batch := queue.receive(10, 300, 0):
        deliveries.extend(batch)
    assert len(deliveries) == 3000
    kept = deliveries[::3]
    deleted = [delivery for i, delivery in enumerate(deliveries) if i % 3]
    for delivery in reversed(deleted):  # holes everywhere; a compaction after 1,501
        queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 1000, 0)
    for delivery in deleted:  # stale: deletes nothing, and no other message
        queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 1000, 0)
    for delivery in kept:
        queue.change_visibility(delivery.receipt_handle, 0)
    assert counts(queue) == (1000, 0, 0)
    received = [d for batch in iter(lambda: queue.receive(10, 300, 0), []) for d in batch]
    assert [d.message.body for d in received] == [d.message.body for d in kept]  # oldest first, none lost
    for delivery in received:
        queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 0, 0)
