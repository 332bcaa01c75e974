"""What an earlier receipt handle may do, per receipt policy (receipts.py).

AWS mode (the default) follows AWS-recorded responses (docs/sqs-reference.md section 3,
"Old receipt handles on a standard queue"); strict mode is the seed design,
where a stale handle never touches a newer delivery; a FIFO queue's handle
expires with its visibility timeout (docs/sqs-reference.md section 2).
"""

import base64
import uuid

import pytest
from engine_support import ACCOUNT, REGION, counts, error_name, send

from emulator.engine import receipts
from emulator.engine.broker import Broker
from emulator.engine.message import State


@pytest.fixture
def strict_queue(clock):
    broker = Broker(clock, receipts="strict")
    queue, _ = broker.create_queue(ACCOUNT, REGION, "strict", {"VisibilityTimeout": "30"})
    yield queue
    broker.close()


@pytest.fixture
def fifo_queue(broker):
    queue, _ = broker.create_queue(
        ACCOUNT, REGION, "f.fifo", {"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )
    return queue


def received_twice(queue, clock, first_timeout=30):
    """A message received, its visibility ended, received again: (message, first, second)."""
    message = send(queue, group_id="g" if queue.fifo else None)
    [first] = queue.receive(1, first_timeout, 0)
    clock.advance(first_timeout)
    [second] = queue.receive(1, 30, 0)
    return message, first, second


# -- AWS mode --------------------------------------------------------------------


def test_aws_mode_earlier_handle_changes_visibility_of_the_newer_delivery(queue, clock):
    # AWS-recorded: receive with VisibilityTimeout 0 (h1), again with 3 (h2); ChangeMessageVisibility(h1, 0)
    # succeeds and the message is receivable at once.
    message = send(queue)
    [first] = queue.receive(1, 0, 0)
    [_second] = queue.receive(1, 3, 0)
    assert counts(queue) == (0, 1, 0)
    queue.change_visibility(first.receipt_handle, 0)
    assert message.state is State.VISIBLE
    [third] = queue.receive(1, 30, 0)
    assert third.message is message and third.receive_count == 3


def test_aws_mode_earlier_handle_deletes_the_message(queue, clock):
    message, first, _second = received_twice(queue, clock)
    queue.delete(first.receipt_handle)
    assert message.state is State.GONE
    assert counts(queue) == (0, 0, 0)
    assert queue.stats.stale_receipts == 1 and queue.stats.deleted == 1


def test_aws_mode_handle_whose_visibility_ended_still_deletes(queue, clock):
    # AWS-recorded: no receive since, ApproximateNumberOfMessages is 0 afterwards.
    message = send(queue)
    [delivery] = queue.receive(1, 30, 0)
    clock.advance(30)
    assert counts(queue) == (1, 0, 0)
    queue.delete(delivery.receipt_handle)
    assert message.state is State.GONE
    assert counts(queue) == (0, 0, 0)
    assert queue.stats.stale_receipts == 1


def test_live_handle_use_is_not_counted_as_stale(queue):
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 60)
    queue.delete(delivery.receipt_handle)
    assert queue.stats.stale_receipts == 0


# -- strict mode -------------------------------------------------------------------


def test_strict_stale_delete_succeeds_and_spares_the_newer_delivery(strict_queue, clock):
    queue = strict_queue
    message, first, second = received_twice(queue, clock)
    queue.delete(first.receipt_handle)  # stale: no error, no effect
    assert message.state is State.INFLIGHT
    assert counts(queue) == (0, 1, 0)
    assert queue.stats.stale_receipts == 1
    # The newer delivery is untouched: its handle still works for both calls.
    queue.change_visibility(second.receipt_handle, 60)
    clock.advance(59)
    assert counts(queue) == (0, 1, 0)
    queue.delete(second.receipt_handle)
    assert message.state is State.GONE


def test_strict_stale_delete_after_message_is_visible_again_is_a_noop(strict_queue, clock):
    queue = strict_queue
    send(queue)
    [first] = queue.receive(1, 30, 0)
    clock.advance(30)
    [second] = queue.receive(1, 0, 0)  # received again, left visible
    queue.delete(first.receipt_handle)
    assert counts(queue) == (1, 0, 0)
    queue.delete(second.receipt_handle)  # the latest handle still deletes
    assert counts(queue) == (0, 0, 0)


def test_strict_stale_visibility_change_is_invalid_parameter_and_arms_nothing(strict_queue, clock):
    queue = strict_queue
    message, first, _second = received_twice(queue, clock)
    assert error_name(queue.change_visibility, first.receipt_handle, 100) == "InvalidParameterValue"
    clock.advance(30)  # the newer delivery still expires at its own 30 s
    assert counts(queue) == (1, 0, 0)
    assert message.state is State.VISIBLE


# -- FIFO ----------------------------------------------------------------------------


def test_fifo_handle_expires_with_its_visibility(fifo_queue, clock):
    queue = fifo_queue
    message = send(queue, group_id="g")
    [delivery] = queue.receive(1, 30, 0)
    clock.advance(30)
    for call in (queue.delete, lambda handle: queue.change_visibility(handle, 10)):
        with pytest.raises(Exception) as info:
            call(delivery.receipt_handle)
        assert info.value.name == "InvalidParameterValue"
        assert info.value.message == (
            f"Value {delivery.receipt_handle} for parameter ReceiptHandle is invalid. "
            "Reason: The receipt handle has expired."
        )
    assert message.state is State.VISIBLE


def test_fifo_earlier_handle_of_a_redelivered_message_has_expired(fifo_queue, clock):
    queue = fifo_queue
    message, first, second = received_twice(queue, clock)
    assert error_name(queue.delete, first.receipt_handle) == "InvalidParameterValue"
    assert message.state is State.INFLIGHT
    queue.delete(second.receipt_handle)
    assert message.state is State.GONE
    queue.delete(second.receipt_handle)  # the message is gone: nothing to expire, success


def test_fifo_live_handle_changes_visibility_and_deletes(fifo_queue, clock):
    queue = fifo_queue
    message = send(queue, group_id="g")
    [delivery] = queue.receive(1, 30, 0)
    queue.change_visibility(delivery.receipt_handle, 100)
    clock.advance(99)
    queue.delete(delivery.receipt_handle)
    assert message.state is State.GONE


# -- malformed and foreign handles ----------------------------------------------------


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
    # The handle's own form (receipts.py): hex of 32 bytes, and nothing else.
    "ab" * 31,
    "ab" * 33,
    "zz" * 32,
    "ab " * 21 + "a",
    "\u00e9" * 64,
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
    queue.delete(receipts.encode(12345, uuid.uuid4().bytes, receipts.new_nonce()))
    assert counts(queue) == (0, 1, 0)


def test_handle_with_a_made_up_id_touches_nothing(strict_queue):
    """A handle carries the arrival number the queue looks the message up by, and the
    id: one with the right number but another id names no message here."""
    send(strict_queue)
    [delivery] = strict_queue.receive(1, 30, 0)
    seq, _, nonce = receipts.decode(delivery.receipt_handle)
    forged = receipts.encode(seq, uuid.uuid4().bytes, nonce)
    strict_queue.delete(forged)
    assert error_name(strict_queue.change_visibility, forged, 10) == "InvalidParameterValue"
    assert counts(strict_queue) == (0, 1, 0)
    strict_queue.delete(delivery.receipt_handle)
    assert counts(strict_queue) == (0, 0, 0)


def test_strict_handle_with_another_nonce_is_stale(strict_queue):
    send(strict_queue)
    [delivery] = strict_queue.receive(1, 30, 0)
    seq, message_id, nonce = receipts.decode(delivery.receipt_handle)
    strict_queue.delete(receipts.encode(seq, message_id, nonce ^ 1))
    assert counts(strict_queue) == (0, 1, 0)
    assert strict_queue.stats.stale_receipts == 1


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
    message_id, nonce = uuid.uuid4().bytes, receipts.new_nonce()
    handle = receipts.encode(2**40 + 7, message_id + b"a body digest...", nonce)
    assert receipts.decode(handle) == (2**40 + 7, message_id, nonce)


# -- a batch of deletes ----------------------------------------------------------------


def test_delete_batch_answers_each_handle_in_order_under_one_lock(fifo_queue, clock):
    """DeleteMessageBatch's engine call: each handle as delete() would take it, each one's
    error in its place, and the ones around a failure deleted all the same."""
    queue = fifo_queue
    for group in ("a", "b", "c"):
        send(queue, body=group, group_id=group)
    expired, _, _ = queue.receive(10, 30, 0)
    clock.advance(30)  # the first receive's handles expired; receive again
    again = queue.receive(10, 30, 0)
    assert len(again) == 3
    outcomes = queue.delete_batch(
        [again[1].receipt_handle, "garbage", expired.receipt_handle, again[0].receipt_handle, again[1].receipt_handle]
    )
    assert [None if error is None else error.code for error in outcomes] == [
        None,
        "ReceiptHandleIsInvalid",
        "InvalidParameterValue",  # expired (receipts.expired)
        None,
        None,  # its message is gone: nothing to expire, success
    ]
    assert counts(queue) == (0, 1, 0)
    assert [d.message.state for d in again] == [State.GONE, State.GONE, State.INFLIGHT]
    assert queue.delete_batch([]) == []
