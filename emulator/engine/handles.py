"""What a receipt handle does to the message it names, with the queue's lock held: a
delete, or a change of its visibility, as the queue's receipt policy allows (receipts.py).
A handle of a message that is gone deletes nothing and succeeds, as on AWS."""

from emulator import limits
from emulator.engine import receipts
from emulator.engine.message import INFLIGHT
from emulator.engine.states import MessageStates
from emulator.errors import SqsError, invalid_parameter


def delete(states: MessageStates, policy, queue, receipt_handle: str) -> None:
    """`queue` gives its `faults` and `stats`."""
    seq, message_id, nonce = receipts.decode(receipt_handle)
    message, latest = states.named_by_handle(seq, message_id, nonce)
    history = queue.history
    if message is None:
        if history is not None:
            history.deleted(message_id, receipt_handle, None, latest, False)
        return
    inflight = message.state is INFLIGHT
    lost = False
    try:
        allowed = policy.may_delete(receipt_handle, latest, inflight)
    except SqsError:  # a FIFO queue's expired handle: the story tells the stale delete too
        if history is not None:
            history.deleted(message.key, receipt_handle, message, False, False)
        raise
    if allowed:
        if queue.faults and queue.faults.lose_delete():
            queue.stats.lost_deletes += 1  # injected: success, and the message stays
            lost = True
        else:
            states.remove(message)
            queue.stats.deleted += 1
    if history is not None:
        history.deleted(message.key, receipt_handle, message, latest and inflight, lost)


def change_visibility(
    states: MessageStates, policy, now: float, receipt_handle: str, timeout: int, history=None
) -> None:
    """`history`: the queue's MessageHistories (history.py), or None."""
    seq, message_id, nonce = receipts.decode(receipt_handle)
    message, latest = states.named_by_handle(seq, message_id, nonce)
    if message is None:
        raise receipts.not_available(receipt_handle)
    policy.may_change(receipt_handle, latest, message.state is INFLIGHT)
    if message.state is not INFLIGHT:
        if history is not None:
            history.visibility_changed(message, receipt_handle, latest, timeout, False)
        return  # its visibility already ended: AWS answers 200 and changes nothing
    if now + timeout > message.received_at + limits.MAX_VISIBILITY_TIMEOUT:
        raise invalid_parameter(
            f"Value {timeout} for parameter VisibilityTimeout is invalid. Reason: Total "
            f"VisibilityTimeout for the message is beyond the limit [{limits.MAX_VISIBILITY_TIMEOUT} seconds]."
        )
    if timeout == 0:
        states.end_inflight(message)
    else:
        states.arm_visibility(message, now + timeout)
    if history is not None:
        history.visibility_changed(message, receipt_handle, latest, timeout, True)
