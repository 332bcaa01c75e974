"""A standard queue's message states and counters: send, receive, delete, purge.

Time moves only with clock.advance(), so no test sleeps to expire a timeout."""

from engine_support import (
    T0,
    counts,
    error_name,
    make_message,
    one_in_each_state,
    send,
)

from emulator.engine.message import State

# -- states and counters ---------------------------------------------------


def test_new_queue_is_empty(queue):
    assert counts(queue) == (0, 0, 0)
    assert queue.receive(10, 30, 0) == []


def test_send_receive_delete_moves_through_states(queue):
    message = send(queue, "a")
    assert message.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)

    [delivery] = queue.receive(10, 30, 0)
    assert delivery.message is message
    assert delivery.message.body == "a"
    assert delivery.receive_count == 1
    assert delivery.first_receive_at == T0
    assert message.state is State.INFLIGHT
    assert counts(queue) == (0, 1, 0)

    queue.delete(delivery.receipt_handle)
    assert message.state is State.GONE
    assert counts(queue) == (0, 0, 0)
    assert queue.receive(10, 30, 0) == []


def test_receive_respects_max_messages_and_hides_what_it_delivers(queue):
    sent = [send(queue, f"m{i}") for i in range(15)]
    first = queue.receive(10, 30, 0)
    assert len(first) == 10
    assert counts(queue) == (5, 10, 0)
    second = queue.receive(10, 30, 0)
    assert len(second) == 5
    assert counts(queue) == (0, 15, 0)
    delivered = [d.message.id for d in first + second]
    assert sorted(delivered) == sorted(m.id for m in sent)  # each exactly once
    assert len({d.receipt_handle for d in first + second}) == 15


def test_batch_send_mixes_visible_and_delayed(queue):
    now_msgs = [make_message(f"n{i}") for i in range(3)]
    later_msgs = [make_message(f"d{i}") for i in range(2)]
    queue.send([(m, 0) for m in now_msgs] + [(m, 5) for m in later_msgs])
    assert counts(queue) == (3, 0, 2)
    assert all(m.state is State.DELAYED for m in later_msgs)


def test_send_stamps_sent_at_from_the_queue_clock(queue, clock):
    clock.advance(7)
    message = send(queue)
    assert message.sent_at == T0 + 7


# -- purge -----------------------------------------------------------------


def test_purge_removes_messages_in_every_state(queue, clock):
    visible, delivery, delayed = one_in_each_state(queue)
    queue.purge()
    assert counts(queue) == (0, 0, 0)
    assert {visible.state, delivery.message.state, delayed.state} == {State.GONE}
    assert queue.receive(10, 30, 0) == []

    queue.delete(delivery.receipt_handle)  # no error, nothing to delete
    assert error_name(queue.change_visibility, delivery.receipt_handle, 10) == "InvalidParameterValue"

    # Pending deadlines (visibility, delay, retention) of purged messages do nothing.
    clock.advance(2_000_000)
    assert counts(queue) == (0, 0, 0)

    # The queue works after a purge.
    fresh = send(queue, "fresh")
    [again] = queue.receive(10, 30, 0)
    assert again.message is fresh
