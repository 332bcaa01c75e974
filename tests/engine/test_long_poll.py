"""Long polls: what wakes them and when they give up. Every join is bounded."""

import threading
import time

import pytest
from engine_support import (
    ACCOUNT,
    REGION,
    Poller,
    counts,
    make_message,
    send,
    wait_for_long_poll,
)

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock, RealClock
from emulator.engine.long_polls import wait_here
from emulator.engine.message import State
from emulator.errors import SqsError


def test_long_poll_returns_when_another_thread_sends(queue):
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    message = send(queue, "wake up")
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.error is None
    assert [d.message for d in poller.result] == [message]
    assert counts(queue) == (0, 1, 0)


def test_long_poll_with_manual_clock_ends_when_advance_passes_deadline(queue, clock):
    poller = Poller(queue, wait_seconds=5)
    poller.start()
    wait_for_long_poll(queue)

    clock.advance(4)
    poller.join(timeout=0.2)
    assert poller.is_alive()  # 4 s of 5: still waiting

    clock.advance(1)
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.error is None
    assert poller.result == []


def test_long_poll_receives_a_delayed_message_when_its_delay_ends(queue, clock):
    message = send(queue, delay=3)
    poller = Poller(queue, wait_seconds=5)
    poller.start()
    wait_for_long_poll(queue)
    clock.advance(3)
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert [d.message for d in poller.result] == [message]


def test_long_poll_receives_a_message_whose_visibility_expired(queue, clock):
    message = send(queue)
    queue.receive(1, 10, 0)
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    clock.advance(10)
    poller.join(timeout=2)
    assert not poller.is_alive()
    [delivery] = poller.result
    assert delivery.message is message
    assert delivery.receive_count == 2


def test_long_poll_returns_at_once_when_a_message_is_visible(queue):
    message = send(queue)
    # Manual clock: if this waited, nothing would ever wake it.
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert [d.message for d in poller.result] == [message]


def test_each_of_several_long_polls_gets_its_own_message(queue):
    pollers = [Poller(queue, max_messages=1, wait_seconds=20) for _ in range(3)]
    for poller in pollers:
        poller.start()
    wait_for_long_poll(queue, waiters=3)
    sent = [make_message(f"m{i}") for i in range(3)]
    queue.send([(m, 0) for m in sent])
    for poller in pollers:
        poller.join(timeout=2)
        assert not poller.is_alive()
    received = [d.message.id for p in pollers for d in p.result]
    assert sorted(received) == sorted(m.id for m in sent)


def test_queue_delete_wakes_a_long_poll(broker, queue):
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    broker.delete_queue(queue)
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.error is None
    assert poller.result == []
    assert queue.deleted
    with pytest.raises(SqsError) as info:
        broker.get_queue(ACCOUNT, REGION, "q1")
    assert info.value.name == "QueueDoesNotExist"


def test_deleted_queue_drops_its_messages(broker, queue):
    message = send(queue)
    broker.delete_queue(queue)
    assert message.state is State.GONE
    assert counts(queue) == (0, 0, 0)


def test_broker_close_wakes_long_polls(clock):
    broker = Broker(clock)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    broker.close()
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.result == []


# On the manual clock a long poll also ends after its length in real time: a
# client's read timeout (botocore's is 60 s) must never be what ends it.


def test_a_manual_clock_long_poll_ends_after_its_wait_in_real_time(queue):
    poller = Poller(queue, wait_seconds=1)
    started = time.monotonic()
    poller.start()
    poller.join(timeout=5)
    assert not poller.is_alive() and poller.error is None and poller.result == []
    assert 0.9 <= poller.returned_at - started < 2.5


@pytest.mark.parametrize("clock_type", [ManualClock, RealClock])
def test_a_wait_cap_ends_an_empty_long_poll_after_that_many_real_seconds(clock_type):
    broker = Broker(clock_type(wait_cap=0.05))
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "capped", {})
        poller = Poller(queue, wait_seconds=20)
        started = time.monotonic()
        poller.start()
        poller.join(timeout=5)
        assert not poller.is_alive() and poller.result == []
        assert poller.returned_at - started < 1
    finally:
        broker.close()


def test_a_capped_long_poll_still_returns_a_message_sent_while_it_waits():
    broker = Broker(ManualClock(wait_cap=2))
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "capped", {})
        poller = Poller(queue, wait_seconds=20)
        poller.start()
        wait_for_long_poll(queue)
        message = send(queue, "in time")
        poller.join(timeout=1)
        assert [d.message for d in poller.result] == [message]
    finally:
        broker.close()


def pause(queue, seconds, stop) -> None:
    """An in-process consumer's back-off, as the event source poller waits one."""

    def attempt(last):
        return True if last or stop() or queue.deleted else None

    wait_here(queue.polls, queue._clock.deadline(seconds), attempt, receiving=False)


def test_a_pause_outlasts_visible_messages_and_ends_on_stop_or_the_queues_deletion(broker, queue):
    # A pause is an in-process consumer's back-off (the event source poller refused with
    # OverLimit): unlike a long poll, a visible message does not end it.
    send(queue, "visible all along")
    stop = threading.Event()
    paused = threading.Thread(target=pause, args=(queue, 20, stop.is_set))
    paused.start()
    paused.join(timeout=0.2)
    assert paused.is_alive()
    stop.set()
    queue.polls.wake_all()  # what the poller's stop() does
    paused.join(timeout=2)
    assert not paused.is_alive()

    paused = threading.Thread(target=pause, args=(queue, 20, lambda: False))
    paused.start()
    paused.join(timeout=0.2)
    assert paused.is_alive()
    broker.delete_queue(queue)
    paused.join(timeout=2)
    assert not paused.is_alive()


# -- waiting without a thread: poll() and watch() (an event loop's long polls) --------------


def test_poll_answers_none_while_a_long_poll_would_wait_and_what_there_is_at_its_end(queue):
    assert queue.polls.poll(10, 30, 20) is None
    assert queue.polls.poll(10, 30, 20, last=True) == []
    assert queue.polls.poll(10, 30, 0) == []  # a short poll never waits
    message = send(queue, "here")
    assert [d.message for d in queue.polls.poll(10, 30, 20)] == [message]


def test_a_watcher_is_called_once_per_message_made_visible_and_counts_as_waiting(queue):
    calls: list[str] = []
    watchers = [lambda name=name: calls.append(name) for name in "abc"]
    for watcher in watchers:
        queue.polls.watch(watcher)
    assert queue.polls.waiting() == 3
    send(queue, "one")
    send(queue, "two")
    assert calls == ["a", "b"]  # oldest first, one per message
    for watcher in watchers:
        queue.polls.unwatch(watcher)
    assert queue.polls.waiting() == 0
    assert calls == ["a", "b", "c"]  # a and b left, woken, without receiving: passed on to c
    send(queue, "three")
    assert calls == ["a", "b", "c"]


def test_a_watcher_is_woken_by_a_delay_ending_and_by_the_clock_moving(queue, clock):
    woken: list[int] = []
    queue.polls.watch(lambda: woken.append(1))
    queue.send([(make_message("later"), 5)])
    assert woken == []
    clock.advance(5)  # the delay ends: the message becomes visible
    assert woken == [1]
    deadline = clock.deadline(10)
    queue.polls.watch(lambda: woken.append(2))
    clock.advance(10)  # nothing visible now, but a waiter must see its deadline pass
    assert 2 in woken and deadline.passed()


def test_a_waiting_thread_and_a_watcher_share_the_wake_ups(queue):
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    woken: list[int] = []
    queue.polls.watch(lambda: woken.append(1))
    assert queue.polls.waiting() == 2
    send(queue, "first")  # the thread watched first: oldest first, one wake-up each
    send(queue, "second")
    poller.join(timeout=2)
    assert not poller.is_alive() and woken == [1]


def test_a_fifo_retry_of_an_answered_attempt_is_answered_by_poll(broker):
    fifo, _ = broker.create_queue(ACCOUNT, REGION, "polled.fifo", {"FifoQueue": "true"})
    fifo.send([(make_message("m", group_id="g", dedup_id="d"), 0)])
    first = fifo.polls.poll(10, 30, 20, attempt_id="attempt")
    retry = fifo.polls.poll(10, 30, 20, attempt_id="attempt")  # the same attempt: answered, not waiting
    assert [d.receipt_handle for d in retry] == [d.receipt_handle for d in first]


def test_the_manual_clock_deadline_passes_only_when_time_moves(clock):
    deadline = clock.deadline(20)
    assert deadline.real_seconds == 20 and not deadline.passed()
    clock.advance(19)
    assert not deadline.passed()
    clock.advance(1)
    assert deadline.passed()
    assert RealClock(wait_cap=0.5).deadline(20).real_seconds == 0.5


def test_a_pause_takes_no_wake_up_a_long_poll_needs(queue):
    # A consumer backing off watches only for wake_all(): a message made visible wakes the
    # long poll beside it, not the pause.
    paused: list[int] = []
    queue.polls.watch(lambda: paused.append(1), receiving=False)
    polled: list[int] = []
    queue.polls.watch(lambda: polled.append(1))
    send(queue, "for the poll")
    assert polled == [1] and paused == []
    queue.polls.wake_all()
    assert paused == [1]


def test_a_woken_poll_that_leaves_without_receiving_passes_its_wake_up_on(queue):
    # A poll whose client went away after a send woke it takes nothing; the message must not
    # then wait beside another poll until that one's deadline.
    woken: list[str] = []
    first = lambda: woken.append("first")  # noqa: E731
    second = lambda: woken.append("second")  # noqa: E731
    queue.polls.watch(first)
    queue.polls.watch(second)
    send(queue, "one")
    assert woken == ["first"]
    queue.polls.unwatch(first)  # leaves, woken, without a receive
    assert woken == ["first", "second"]
    queue.polls.unwatch(second)
    assert queue.polls.waiting() == 0


def test_a_poll_that_received_passes_on_nothing_when_nothing_is_left(queue):
    woken: list[str] = []
    first = lambda: woken.append("first")  # noqa: E731
    second = lambda: woken.append("second")  # noqa: E731
    queue.polls.watch(first)
    queue.polls.watch(second)
    send(queue, "one")
    assert len(queue.receive(10, 30, 20)) == 1
    queue.polls.unwatch(first)
    assert woken == ["first"]
    queue.polls.unwatch(second)


def test_a_woken_poll_that_polls_again_keeps_its_wake_up(queue):
    # The usual way: woken, it polls again at once (and takes the message), so one message
    # made visible wakes one poll, not two.
    woken: list[str] = []
    first = lambda: woken.append("first")  # noqa: E731
    second = lambda: woken.append("second")  # noqa: E731
    queue.polls.watch(first)
    queue.polls.watch(second)
    send(queue, "one")
    queue.polls.unwatch(first, leaving=False)
    assert woken == ["first"]
    queue.polls.unwatch(second)
