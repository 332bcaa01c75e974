"""Visibility timeouts, ChangeMessageVisibility and delays, on the manual clock."""

from engine_support import (
    T0,
    assert_change_visibility_on_visible_changes_nothing,
    counts,
    error_name,
    send,
)

from emulator.engine.message import State

# -- visibility timeout and redelivery ---------------------------------------


def test_redelivery_after_visibility_timeout_gets_new_handle_and_count_two(queue, clock):
    message = send(queue)
    [first] = queue.receive(1, 30, 0)

    clock.advance(29)
    assert queue.receive(1, 30, 0) == []
    assert counts(queue) == (0, 1, 0)

    clock.advance(1)
    assert message.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)

    [second] = queue.receive(1, 30, 0)
    assert second.message is message
    assert second.receipt_handle != first.receipt_handle
    assert second.receive_count == 2
    assert second.first_receive_at == first.first_receive_at == T0
    assert counts(queue) == (0, 1, 0)


def test_receive_uses_the_given_visibility_timeout_not_the_queue_default(queue, clock):
    send(queue)
    queue.receive(1, 100, 0)
    clock.advance(99)
    assert counts(queue) == (0, 1, 0)
    clock.advance(1)
    assert counts(queue) == (1, 0, 0)


def test_delete_twice_and_delete_of_gone_message_are_noops(queue):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.delete(delivery.receipt_handle)
    queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 0, 0)


def test_receive_with_visibility_timeout_zero_leaves_message_visible(queue):
    message = send(queue)
    [first] = queue.receive(10, 0, 0)
    assert first.receive_count == 1
    assert message.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)

    [second] = queue.receive(10, 0, 0)
    assert second.message is message
    assert second.receive_count == 2
    assert second.receipt_handle != first.receipt_handle
    assert counts(queue) == (1, 0, 0)

    # The latest handle names a visible message: not in flight, nothing changes.
    assert_change_visibility_on_visible_changes_nothing(queue, second.receipt_handle)
    queue.delete(second.receipt_handle)
    assert counts(queue) == (0, 0, 0)


def test_receive_with_visibility_timeout_zero_delivers_each_message_once_per_call(queue):
    for i in range(3):
        send(queue, f"m{i}")
    deliveries = queue.receive(10, 0, 0)
    assert len(deliveries) == 3
    assert len({d.message.id for d in deliveries}) == 3
    assert counts(queue) == (3, 0, 0)


# -- change_visibility ------------------------------------------------------


def test_change_visibility_extends_the_timeout(queue, clock):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    clock.advance(10)
    queue.change_visibility(delivery.receipt_handle, 60)  # now counts from t=10
    clock.advance(59)
    assert counts(queue) == (0, 1, 0)  # the original 30 s deadline was superseded
    clock.advance(1)
    assert counts(queue) == (1, 0, 0)


def test_change_visibility_shortens_the_timeout(queue, clock):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 5)
    clock.advance(5)
    assert counts(queue) == (1, 0, 0)
    clock.advance(30)  # the superseded 30 s deadline fires and does nothing
    assert counts(queue) == (1, 0, 0)


def test_change_visibility_zero_makes_visible_now(queue):
    message = send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 0)
    assert message.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)
    [again] = queue.receive(1, 30, 0)
    assert again.message is message
    assert again.receive_count == 2


def test_change_visibility_on_visible_message_is_not_inflight_and_changes_nothing(queue, clock):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    clock.advance(30)
    assert_change_visibility_on_visible_changes_nothing(queue, delivery.receipt_handle, 10)
    assert_change_visibility_on_visible_changes_nothing(queue, delivery.receipt_handle, 0)
    clock.advance(100)
    assert counts(queue) == (1, 0, 0)
    [again] = queue.receive(1, 30, 0)
    assert again.receive_count == 2


def test_change_visibility_on_deleted_message_is_invalid_parameter(queue):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.delete(delivery.receipt_handle)
    assert error_name(queue.change_visibility, delivery.receipt_handle, 10) == "InvalidParameterValue"


def test_change_visibility_is_capped_at_12_hours_from_the_receive(queue, clock):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    handle = delivery.receipt_handle
    assert error_name(queue.change_visibility, handle, 43_201) == "InvalidParameterValue"
    queue.change_visibility(handle, 43_200)  # exactly 12 h from the receive is allowed

    clock.advance(100)
    assert error_name(queue.change_visibility, handle, 43_200) == "InvalidParameterValue"
    assert error_name(queue.change_visibility, handle, 43_101) == "InvalidParameterValue"
    queue.change_visibility(handle, 43_100)
    assert counts(queue) == (0, 1, 0)
    clock.advance(43_099)
    assert counts(queue) == (0, 1, 0)
    clock.advance(1)
    assert counts(queue) == (1, 0, 0)


def test_visibility_cap_restarts_with_each_receive(queue, clock):
    send(queue)
    queue.receive(1, 30, 0)
    clock.advance(1000)  # long expired; received again below
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 43_200)


# -- delay -----------------------------------------------------------------


def test_delayed_message_becomes_visible_after_its_delay(queue, clock):
    message = send(queue, delay=10)
    assert message.state is State.DELAYED
    assert counts(queue) == (0, 0, 1)
    assert queue.receive(10, 30, 0) == []

    clock.advance(9)
    assert counts(queue) == (0, 0, 1)
    assert queue.receive(10, 30, 0) == []

    clock.advance(1)
    assert message.state is State.VISIBLE
    assert counts(queue) == (1, 0, 0)
    [delivery] = queue.receive(10, 30, 0)
    assert delivery.message is message
    assert delivery.first_receive_at == T0 + 10


def test_per_message_delays_are_independent(queue, clock):
    short = send(queue, "short", delay=2)
    long = send(queue, "long", delay=8)
    clock.advance(2)
    assert (short.state, long.state) == (State.VISIBLE, State.DELAYED)
    assert counts(queue) == (1, 0, 1)
    clock.advance(6)
    assert counts(queue) == (2, 0, 0)


def test_one_big_advance_runs_every_transition(queue, clock):
    delayed = send(queue, delay=5)
    send(queue)
    [inflight] = queue.receive(1, 30, 0)
    clock.advance(1000)
    assert delayed.state is State.VISIBLE
    assert inflight.message.state is State.VISIBLE
    assert counts(queue) == (2, 0, 0)
