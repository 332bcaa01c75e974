"""The one scheduler: callbacks keyed by deadline, run by run_due (manual clock)
or by its own thread (real clock)."""

import logging
import threading

import pytest

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock, RealClock
from emulator.engine.scheduler import COMPACT_AFTER, HeapScheduler

T0 = 5_000.0


@pytest.fixture
def clock():
    return ManualClock(start=T0)


@pytest.fixture
def scheduler(clock):
    return HeapScheduler(clock)


@pytest.fixture
def real_scheduler():
    scheduler = HeapScheduler(RealClock())
    scheduler.start()
    yield scheduler
    scheduler.stop()


def test_callbacks_run_in_deadline_order(clock, scheduler):
    ran = []
    for deadline in (3, 1, 2, 5, 4):
        scheduler.call_at(T0 + deadline, ran.append, deadline)
    clock.advance(10)  # no broker: nobody listens, so nothing runs yet
    assert ran == []
    scheduler.run_due()
    assert ran == [1, 2, 3, 4, 5]
    assert len(scheduler) == 0


def test_equal_deadlines_run_in_call_order(clock, scheduler):
    ran = []
    for name in "abcdef":
        scheduler.call_at(T0 + 1, ran.append, name)
    clock.advance(1)
    scheduler.run_due()
    assert ran == list("abcdef")


def test_run_due_runs_only_what_is_due(clock, scheduler):
    ran = []
    scheduler.call_at(T0 + 1, ran.append, "one")
    scheduler.call_at(T0 + 5, ran.append, "five")
    scheduler.call_at(T0 + 5.5, ran.append, "five and a half")

    scheduler.run_due()
    assert ran == []
    clock.advance(1)  # a deadline equal to now is due
    scheduler.run_due()
    assert ran == ["one"]
    clock.advance(3.9)
    scheduler.run_due()
    assert ran == ["one"]
    clock.advance(0.1)
    scheduler.run_due()
    assert ran == ["one", "five"]
    assert len(scheduler) == 1
    clock.advance(100)
    scheduler.run_due()
    assert ran == ["one", "five", "five and a half"]


def test_deadline_in_the_past_runs_on_next_run_due(clock, scheduler):
    ran = []
    scheduler.call_at(T0 - 100, ran.append, "late")
    scheduler.run_due()
    assert ran == ["late"]


def test_callback_passes_its_arguments(clock, scheduler):
    got = []
    scheduler.call_at(T0, lambda *args: got.append(args), 1, "two", None)
    scheduler.run_due()
    assert got == [(1, "two", None)]


def test_callback_may_schedule_more_work(clock, scheduler):
    ran = []

    def chain(n):
        ran.append(n)
        if n < 3:
            scheduler.call_at(clock.now() + (0 if n == 1 else 10), chain, n + 1)

    scheduler.call_at(T0, chain, 1)
    scheduler.run_due()
    assert ran == [1, 2]  # 2 was due at once and ran in the same pass; 3 is 10 s away
    clock.advance(10)
    scheduler.run_due()
    assert ran == [1, 2, 3]


def test_failing_callback_does_not_stop_the_others(clock, scheduler, caplog):
    ran = []

    def boom():
        raise RuntimeError("boom")

    scheduler.call_at(T0 + 1, ran.append, "before")
    scheduler.call_at(T0 + 2, boom)
    scheduler.call_at(T0 + 3, ran.append, "after")
    clock.advance(3)
    with caplog.at_level(logging.ERROR, logger="emulator.engine.scheduler"):
        scheduler.run_due()
    assert ran == ["before", "after"]
    assert len(scheduler) == 0
    assert any("boom" in (r.exc_text or "") or r.exc_info for r in caplog.records)


def test_manual_clock_advance_runs_the_broker_scheduler(clock):
    broker = Broker(clock)
    ran = []
    broker.scheduler.call_at(T0 + 2, ran.append, "b")
    broker.scheduler.call_at(T0 + 1, ran.append, "a")
    clock.advance(1)
    assert ran == ["a"]
    clock.advance(1)
    assert ran == ["a", "b"]
    broker.close()


def test_manual_clock_only_moves_forward(clock):
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.now() == T0
    assert clock.advance(0) == T0
    assert clock.advance(2.5) == T0 + 2.5


def test_real_scheduler_thread_fires_a_callback_soon(real_scheduler):
    fired = threading.Event()
    real_scheduler.call_at(RealClock().now() + 0.05, fired.set)
    assert fired.wait(2)


def test_real_scheduler_wakes_for_an_earlier_deadline(real_scheduler):
    # The thread sleeps until the far deadline; a nearer one must wake it.
    far, near = threading.Event(), threading.Event()
    now = RealClock().now()
    real_scheduler.call_at(now + 3600, far.set)
    real_scheduler.call_at(now + 0.05, near.set)
    assert near.wait(2)
    assert not far.is_set()
    assert len(real_scheduler) == 1


def test_real_scheduler_runs_callbacks_in_order_and_survives_a_failure(real_scheduler):
    ran = []
    done = threading.Event()

    def boom():
        raise RuntimeError("boom")

    def last():
        ran.append("last")
        done.set()

    now = RealClock().now()
    real_scheduler.call_at(now + 0.03, ran.append, "second")
    real_scheduler.call_at(now + 0.02, boom)
    real_scheduler.call_at(now + 0.01, ran.append, "first")
    real_scheduler.call_at(now + 0.04, last)
    assert done.wait(2)
    assert ran == ["first", "second", "last"]


def test_real_scheduler_fires_a_past_deadline_at_once(real_scheduler):
    fired = threading.Event()
    real_scheduler.call_at(RealClock().now() - 10, fired.set)
    assert fired.wait(2)


def test_stop_ends_the_thread():
    scheduler = HeapScheduler(RealClock())
    scheduler.start()
    scheduler.call_at(RealClock().now() + 3600, lambda: None)
    scheduler.stop()
    assert not scheduler._thread.is_alive()


def test_real_clock_broker_expires_visibility_through_its_scheduler():
    # End to end on the real clock: a 1 s visibility timeout ends without any advance.
    import hashlib
    import time
    import uuid

    from emulator.engine.message import Message

    broker = Broker()
    try:
        queue, _ = broker.create_queue("000000000000", "us-east-1", "rt", {})
        body = "x"
        queue.send([(Message(uuid.uuid4().bytes + hashlib.md5(b"x").digest(), body, {}, {}, None, "S"), 0)])
        start = time.monotonic()  # before the receive, so a slow machine can only add to `elapsed`
        [first] = queue.receive(1, 1, 0)
        from engine_support import long_poll

        [second] = long_poll(queue, 1, 30, 20)  # long poll: woken when the visibility ends
        elapsed = time.monotonic() - start
        assert second.message is first.message
        assert second.receive_count == 2
        # Not before the 1 s visibility ends; well before the poll's 20 s wait would, however slow the machine.
        assert 0.9 < elapsed < 10
    finally:
        broker.close()


def test_a_cancelled_timer_does_not_run_and_holds_nothing(clock, scheduler):
    ran = []
    payload = ["held"]
    timer = scheduler.call_at(T0 + 1, ran.append, payload)
    scheduler.call_at(T0 + 2, ran.append, "kept")
    scheduler.cancel(timer)
    assert timer[2:] == [None, ()]  # the callback and its arguments are let go at once
    assert len(scheduler) == 1
    clock.advance(5)
    scheduler.run_due()
    assert ran == ["kept"]
    assert len(scheduler) == 0


def test_cancelling_a_timer_that_ran_or_none_does_nothing(clock, scheduler):
    ran = []
    timer = scheduler.call_at(T0, ran.append, "once")
    scheduler.run_due()
    scheduler.cancel(timer)
    scheduler.cancel(timer)
    scheduler.cancel(None)
    assert ran == ["once"]
    assert len(scheduler) == 0


def test_cancelled_entries_are_swept_out_once_they_are_half_the_heap(clock, scheduler):
    keep = [scheduler.call_at(T0 + 100 + n, lambda: None) for n in range(10)]
    for n in range(5_000):
        scheduler.cancel(scheduler.call_at(T0 + n, lambda: None))
    assert len(scheduler) == len(keep)
    assert len(scheduler._heap) <= 2 * COMPACT_AFTER + len(keep)  # not 5,010 entries
    clock.advance(1_000)
    ran = []
    scheduler.call_at(T0 + 500, ran.append, "due")  # the heap order survived the sweep
    scheduler.run_due()
    assert ran == ["due"]
