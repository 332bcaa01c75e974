"""Engine tests for one standard queue and the broker, on a manual clock.

Time moves only with clock.advance(), so no test sleeps to expire a timeout.
Threads appear only for long polls, and every join is bounded.
"""

import base64
import threading
import time
import uuid

import pytest
from engine_support import (
    ACCOUNT,
    REGION,
    T0,
    Poller,
    assert_change_visibility_on_visible_changes_nothing,
    counts,
    error_name,
    make_message,
    send,
    wait_for_long_poll,
)

from emulator.engine import attributes, receipts
from emulator import limits
from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.engine.message import Message, State
from emulator.limits import MAX_INFLIGHT
from emulator.errors import SqsError


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


def test_latest_handle_deletes_a_message_whose_visibility_expired(queue, clock):
    # Not received again since: the handle is still the message's latest.
    message = send(queue)
    [delivery] = queue.receive(1, 30, 0)
    clock.advance(31)
    assert counts(queue) == (1, 0, 0)
    queue.delete(delivery.receipt_handle)
    assert message.state is State.GONE
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


def _handle(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


MALFORMED_HANDLES = [
    "",
    "garbage",
    "not base64 !!!",
    _handle("no-colon-here"),
    _handle(f"not-a-uuid:{'ab' * 16}"),
    _handle(f"{uuid.uuid4()}:not-hex"),
    _handle(f"{uuid.uuid4()}:{'ab' * 16}:extra"),
    base64.urlsafe_b64encode(b"\xff\xfe\xfd:abc").decode(),
]


@pytest.mark.parametrize("handle", MALFORMED_HANDLES)
def test_malformed_handle_is_receipt_handle_is_invalid(queue, handle):
    send(queue)
    queue.receive(1, 30, 0)
    assert error_name(queue.delete, handle) == "ReceiptHandleIsInvalid"
    assert error_name(queue.change_visibility, handle, 10) == "ReceiptHandleIsInvalid"
    assert counts(queue) == (0, 1, 0)


def test_well_formed_handle_for_unknown_message_deletes_nothing(queue):
    send(queue)
    queue.receive(1, 30, 0)
    queue.delete(receipts.encode(str(uuid.uuid4()), receipts.new_nonce()))
    assert counts(queue) == (0, 1, 0)


def test_handle_from_another_queue_touches_nothing_here(broker):
    q1, _ = broker.create_queue(ACCOUNT, REGION, "a", {})
    q2, _ = broker.create_queue(ACCOUNT, REGION, "b", {})
    send(q1)
    [delivery] = q1.receive(1, 30, 0)
    send(q2)
    q2.receive(1, 30, 0)
    q2.delete(delivery.receipt_handle)
    assert counts(q1) == (0, 1, 0)
    assert counts(q2) == (0, 1, 0)


def test_receipt_handle_round_trip():
    message_id, nonce = str(uuid.uuid4()), receipts.new_nonce()
    assert receipts.decode(receipts.encode(message_id, nonce)) == (message_id, nonce)


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


# -- retention -------------------------------------------------------------


def _one_in_each_state(queue):
    """Send a visible, an in-flight (5 min visibility) and a delayed (15 min) message."""
    inflight = send(queue, "inflight")
    [delivery] = queue.receive(1, 300, 0)
    assert delivery.message is inflight
    visible = send(queue, "visible")
    delayed = send(queue, "delayed", delay=900)
    assert counts(queue) == (1, 1, 1)
    return visible, delivery, delayed


def test_retention_expires_visible_inflight_and_delayed_messages(broker, clock):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "short", {"MessageRetentionPeriod": "60"})
    visible, delivery, delayed = _one_in_each_state(queue)

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
    visible, delivery, delayed = _one_in_each_state(queue)
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


# -- purge -----------------------------------------------------------------


def test_purge_removes_messages_in_every_state(queue, clock):
    visible, delivery, delayed = _one_in_each_state(queue)
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


# -- long polls --------------------------------------------------------------


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


# -- in-flight limit -----------------------------------------------------------


LIMIT = 5  # the limit is patched down: 120,000 real in-flight messages take seconds to build


@pytest.fixture
def small_inflight_limit(monkeypatch):
    monkeypatch.setattr(limits, "MAX_INFLIGHT", LIMIT)


def _fill_to_inflight_limit(queue):
    queue.send([(make_message("x"), 0) for _ in range(LIMIT)])
    assert len(queue.receive(LIMIT, 300, 0)) == LIMIT
    assert counts(queue) == (0, LIMIT, 0)


def test_inflight_limit_is_aws_standard_queue_limit():
    assert MAX_INFLIGHT == 120_000


def test_receive_at_inflight_limit_is_over_limit(queue, small_inflight_limit):
    _fill_to_inflight_limit(queue)
    send(queue, "one more")
    assert error_name(queue.receive, 10, 30, 0) == "OverLimit"
    assert queue.receive(10, 30, 5) == []  # a long poll gets no error (AWS quotas-queues)
    assert counts(queue) == (1, LIMIT, 0)


def test_long_poll_at_inflight_limit_gets_nothing(queue, small_inflight_limit):
    # The long poll starts on an empty queue and the message arrives while it
    # waits: it must not slip past the limit. AWS (quotas-queues): "If you reach
    # this quota [...] with long polling, Amazon SQS returns no error", so an
    # empty answer, not OverLimit.
    _fill_to_inflight_limit(queue)
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    send(queue, "one more")
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.error is None and poller.result == []
    assert counts(queue) == (1, LIMIT, 0)


# -- broker: CreateQueue ------------------------------------------------------


def test_create_queue_is_idempotent(broker):
    queue, created = broker.create_queue(ACCOUNT, REGION, "idem", {"VisibilityTimeout": "45"})
    assert created
    again, created = broker.create_queue(ACCOUNT, REGION, "idem", {"VisibilityTimeout": "45"})
    assert again is queue and not created
    # No attributes, or attributes equal to the current values, are also the same queue.
    assert broker.create_queue(ACCOUNT, REGION, "idem", {}) == (queue, False)
    assert broker.create_queue(ACCOUNT, REGION, "idem", {"DelaySeconds": "0"}) == (queue, False)


def test_create_queue_with_default_value_spelled_out_matches_existing(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "dflt", {})
    assert broker.create_queue(ACCOUNT, REGION, "dflt", {"VisibilityTimeout": "30"}) == (queue, False)


def test_create_queue_with_different_attribute_is_queue_name_exists(broker):
    broker.create_queue(ACCOUNT, REGION, "dup", {"VisibilityTimeout": "45"})
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "dup", {"VisibilityTimeout": "46"})
    assert info.value.name == "QueueNameExists"
    assert "VisibilityTimeout" in info.value.message
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "dup", {"DelaySeconds": "5"})
    assert info.value.name == "QueueNameExists"


def test_create_queue_after_set_attributes_compares_current_values(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "changed", {})
    queue.set_attributes({"VisibilityTimeout": "60"})
    assert broker.create_queue(ACCOUNT, REGION, "changed", {"VisibilityTimeout": "60"}) == (queue, False)
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "changed", {"VisibilityTimeout": "30"})
    assert info.value.name == "QueueNameExists"


def test_queue_names_are_scoped_by_account_and_region(broker):
    a, _ = broker.create_queue(ACCOUNT, REGION, "same", {})
    b, created_b = broker.create_queue(ACCOUNT, "eu-west-1", "same", {})
    c, created_c = broker.create_queue("111111111111", REGION, "same", {})
    assert created_b and created_c
    assert len({id(a), id(b), id(c)}) == 3
    assert a.arn == f"arn:aws:sqs:{REGION}:{ACCOUNT}:same"
    assert [q.name for q in broker.queues(ACCOUNT, REGION)] == ["same"]


def test_create_after_delete_makes_a_new_queue(broker, clock):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "again", {"VisibilityTimeout": "45"})
    broker.delete_queue(queue)
    with pytest.raises(SqsError) as info:  # AWS: wait 60 s before re-creating the name
        broker.create_queue(ACCOUNT, REGION, "again", {})
    assert info.value.name == "QueueDeletedRecently"
    clock.advance(60)
    fresh, created = broker.create_queue(ACCOUNT, REGION, "again", {"VisibilityTimeout": "46"})
    assert created and fresh is not queue
    assert broker.get_queue(ACCOUNT, REGION, "again") is fresh


def test_deleting_a_stale_queue_object_keeps_the_new_queue(broker, clock):
    old, _ = broker.create_queue(ACCOUNT, REGION, "x", {})
    broker.delete_queue(old)
    clock.advance(60)
    new, _ = broker.create_queue(ACCOUNT, REGION, "x", {})
    broker.delete_queue(old)  # already gone; must not remove its successor
    assert broker.get_queue(ACCOUNT, REGION, "x") is new


def test_get_unknown_queue_is_queue_does_not_exist(broker):
    with pytest.raises(SqsError) as info:
        broker.get_queue(ACCOUNT, REGION, "nope")
    assert info.value.name == "QueueDoesNotExist"


def test_queue_attributes_apply_to_queue(broker):
    queue, _ = broker.create_queue(
        ACCOUNT,
        REGION,
        "attrs",
        {"VisibilityTimeout": "45", "DelaySeconds": "5", "MessageRetentionPeriod": "600"},
    )
    assert (queue.visibility_timeout, queue.delay_seconds, queue.retention_period) == (45, 5, 600)
    assert queue.attributes["MaximumMessageSize"] == "1048576"  # defaults filled in
    queue.set_attributes({"VisibilityTimeout": "10"})
    assert queue.visibility_timeout == 10
    assert queue.attributes["VisibilityTimeout"] == "10"


def test_kms_key_turns_sqs_managed_sse_off_and_empty_policy_removes_policy(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "kms", {"Policy": "{}"})
    assert queue.attributes["SqsManagedSseEnabled"] == "true"
    assert queue.attributes["Policy"] == "{}"
    queue.set_attributes({"KmsMasterKeyId": "alias/aws/sqs", "Policy": ""})
    assert queue.attributes["SqsManagedSseEnabled"] == "false"
    assert "Policy" not in queue.attributes


# -- attribute validation -------------------------------------------------------


VALID = [
    ("DelaySeconds", "0"),
    ("DelaySeconds", "900"),
    ("MaximumMessageSize", "1024"),
    ("MaximumMessageSize", "1048576"),
    ("MessageRetentionPeriod", "60"),
    ("MessageRetentionPeriod", "1209600"),
    ("ReceiveMessageWaitTimeSeconds", "0"),
    ("ReceiveMessageWaitTimeSeconds", "20"),
    ("VisibilityTimeout", "0"),
    ("VisibilityTimeout", "43200"),
    ("Policy", ""),
    ("Policy", '{"Version": "2012-10-17", "Statement": []}'),
    ("KmsMasterKeyId", "alias/aws/sqs"),
    ("KmsDataKeyReusePeriodSeconds", "60"),
    ("KmsDataKeyReusePeriodSeconds", "86400"),
    ("SqsManagedSseEnabled", "true"),
    ("SqsManagedSseEnabled", "false"),
]


@pytest.mark.parametrize("name,value", VALID)
def test_validate_accepts_valid_values(name, value):
    attributes.validate({name: value}, fifo=False)
    assert attributes.canonical(name, value) == value


def test_canonical_lowers_booleans_and_keeps_the_rest():
    attributes.validate({"SqsManagedSseEnabled": "TRUE", "VisibilityTimeout": "10"}, fifo=False)
    assert attributes.canonical("SqsManagedSseEnabled", "TRUE") == "true"
    assert attributes.canonical("SqsManagedSseEnabled", "False") == "false"
    assert attributes.canonical("VisibilityTimeout", "10") == "10"
    attributes.validate({}, fifo=False)


INVALID = [
    ("DelaySeconds", "-1"),
    ("DelaySeconds", "901"),
    ("DelaySeconds", "abc"),
    ("DelaySeconds", "1.5"),
    ("DelaySeconds", ""),
    ("DelaySeconds", " 5"),
    ("DelaySeconds", "12345678901"),
    ("MaximumMessageSize", "1023"),
    ("MaximumMessageSize", "1048577"),
    ("MessageRetentionPeriod", "59"),
    ("MessageRetentionPeriod", "1209601"),
    ("ReceiveMessageWaitTimeSeconds", "21"),
    ("VisibilityTimeout", "43201"),
    ("VisibilityTimeout", "-1"),
    ("Policy", "not json"),
    ("Policy", "[]"),
    ("Policy", '"a string"'),
    ("KmsMasterKeyId", "k" * 2049),
    ("KmsDataKeyReusePeriodSeconds", "59"),
    ("KmsDataKeyReusePeriodSeconds", "86401"),
    ("SqsManagedSseEnabled", "yes"),
    ("SqsManagedSseEnabled", ""),
    ("VisibilityTimeout", 30),  # not a string
    ("DelaySeconds", None),
]


@pytest.mark.parametrize("name,value", INVALID)
def test_validate_rejects_invalid_values(name, value):
    with pytest.raises(SqsError) as info:
        attributes.validate({name: value}, fifo=False)
    assert info.value.name == "InvalidAttributeValue"
    assert name in info.value.message


@pytest.mark.parametrize("name", ["Bogus", "visibilitytimeout", "QueueArn", "ApproximateNumberOfMessages"])
def test_validate_rejects_unknown_or_unsettable_names(name):
    with pytest.raises(SqsError) as info:
        attributes.validate({name: "1"}, fifo=False)
    assert info.value.name == "InvalidAttributeName"
    assert name in info.value.message


def test_defaults_cover_every_setting_with_a_default():
    d = attributes.defaults(fifo=False)
    assert d["VisibilityTimeout"] == "30"
    assert d["MessageRetentionPeriod"] == "345600"
    assert "Policy" not in d and "KmsMasterKeyId" not in d and "FifoQueue" not in d
    attributes.validate(d, fifo=False)
    for name, value in d.items():
        assert attributes.canonical(name, value) == value


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
