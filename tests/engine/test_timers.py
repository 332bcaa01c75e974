"""Timers that go when their message goes: a deleted, purged or expired message, or
a visibility set again, leaves nothing armed that holds it (issue 17, item 1: before,
each entry held its message until the old deadline, up to 12 hours). A queue keeps
its messages' deadlines itself, behind one scheduler timer (deadlines.py)."""

import gc
import weakref

from engine_support import ACCOUNT, REGION, send

from emulator.engine.lazy_deletions import COMPACT_AFTER


def held_by_timers(broker, objects) -> list:
    """Those of `objects` that an entry on the scheduler's heap still refers to."""
    held = {id(arg) for entry in broker.scheduler._heap for arg in entry[3]}
    return [o for o in objects if id(o) in held]


def held_by_deadlines(queue, objects) -> list:
    """Those of `objects` that an entry of the queue's deadlines still refers to."""
    deadlines = queue._states._deadlines
    held = {id(entry[-1]) for entry in [*deadlines._in_order, *deadlines._heap]}
    return [o for o in objects if id(o) in held]


def test_deleted_in_flight_messages_leave_nothing_behind(broker, queue):
    sent = [send(queue, f"m{n}") for n in range(300)]
    handles = []
    while len(handles) < len(sent):
        handles += [d.receipt_handle for d in queue.receive(10, 600, 0)]
    assert held_by_deadlines(queue, sent) == sent  # one deadline each
    assert len(broker.scheduler) == 2  # behind one timer, and the queue's retention timer
    for handle in handles:
        queue.delete(handle)
    assert held_by_deadlines(queue, sent) == []
    assert held_by_timers(broker, sent) == []


def test_a_heartbeat_leaves_its_message_one_deadline_however_often_it_beats(broker, queue):
    [message] = [send(queue)]
    [delivery] = queue.receive(1, 30, 0)
    for _ in range(5_000):
        queue.change_visibility(delivery.receipt_handle, 600)
    assert held_by_deadlines(queue, [message]) == [message]
    assert len(queue._states._deadlines) <= 2 * COMPACT_AFTER + 2  # the old beats are swept out as they pile up
    assert len(broker.scheduler) == 2
    queue.delete(delivery.receipt_handle)
    assert held_by_deadlines(queue, [message]) == []


def test_the_timer_armed_last_is_the_one_that_ends_the_visibility(broker, clock, queue):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 100)
    clock.advance(31)  # the first deadline passed: it was cancelled, the message stays hidden
    assert queue.counts()["ApproximateNumberOfMessagesNotVisible"] == 1
    clock.advance(70)
    assert queue.counts()["ApproximateNumberOfMessagesNotVisible"] == 0
    assert queue.counts()["ApproximateNumberOfMessages"] == 1


def test_a_deleted_queue_leaves_no_timer_behind(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "doomed", {"DelaySeconds": "900"})
    sent = [send(queue, f"m{n}") for n in range(50)]  # delayed: a deadline each, and the retention timer
    queue_ref = weakref.ref(queue)
    broker.delete_queue(queue)
    del queue
    gc.collect()
    assert len(broker.scheduler) == 0
    assert held_by_timers(broker, sent) == []
    assert queue_ref() is None  # nothing armed holds the queue either
