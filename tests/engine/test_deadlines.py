"""A queue's deadlines (deadlines.py): in-order ones in a deque, the others on a heap,
behind one scheduler timer; every visibility and delay ends when it should."""

from engine_support import counts, send


def test_a_shorter_visibility_after_a_longer_one_ends_first(queue, clock):
    send(queue, "long")
    send(queue, "short")
    assert len(queue.receive(1, 100, 0)) == 1
    assert len(queue.receive(1, 10, 0)) == 1  # earlier than the last deadline: the heap
    clock.advance(10)
    assert counts(queue) == (1, 1, 0)
    assert [d.message.body for d in queue.receive(10, 100, 0)] == ["short"]
    clock.advance(90)
    assert [d.message.body for d in queue.receive(10, 100, 0)] == ["long"]


def test_delays_and_visibilities_end_in_deadline_order_whatever_order_they_were_set(queue, clock):
    send(queue, "seen")
    [seen] = queue.receive(1, 50, 0)
    send(queue, "delayed", delay=20)
    queue.change_visibility(seen.receipt_handle, 5)
    clock.advance(5)
    assert counts(queue) == (1, 0, 1)
    clock.advance(15)
    assert counts(queue) == (2, 0, 0)
    clock.advance(50)  # the first deadline of "seen" no longer holds: nothing more happens
    assert counts(queue) == (2, 0, 0)


def test_one_scheduler_timer_whatever_the_number_of_deadlines(broker, queue, clock):
    for n in range(50):
        send(queue, f"m{n}")
    deliveries = queue.receive(10, 30, 0) + queue.receive(10, 20, 0) + queue.receive(10, 40, 0)
    assert len(deliveries) == 30
    assert len(broker.scheduler) == 2  # the deadlines' timer and the retention timer
    clock.advance(20)
    assert counts(queue) == (30, 20, 0)
    clock.advance(20)
    assert counts(queue) == (50, 0, 0)
    assert len(broker.scheduler) == 1
