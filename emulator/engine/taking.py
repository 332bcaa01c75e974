"""What one receive takes from a queue's ready order, with the queue's lock held: up to
the room left in flight (at the in-flight limit, nothing or OverLimit), each message delivered (a fresh receipt handle, its receive
count bumped, its visibility armed), except one that reached its redrive policy's
maxReceiveCount, which moves to the dead-letter queue instead (transfers.py); and
the queue's injected faults (faults.py) applied to what was delivered. A loose
standard queue's receive looks at a sample, in a shuffled order (loose.py)."""

from collections.abc import Callable

from emulator import limits
from emulator.engine.message import INFLIGHT, Delivery, Message
from emulator.engine.states import MessageStates
from emulator.engine.transfers import Transfer
from emulator.errors import SqsError


def take(
    states: MessageStates,
    now: float,
    max_messages: int,
    visibility_timeout: int,
    wait_seconds: int,
    dead_letter: Callable[[Message, float], Transfer | None] | None,
    queue,
) -> list[Delivery]:
    """`dead_letter(message, now)` moves a message that reached maxReceiveCount (None: not
    reached); `queue` gives its name, kind, `faults`, `stats` and `history`."""
    if states.count(INFLIGHT) >= limits.MAX_INFLIGHT:
        # AWS: a short poll of a standard queue at the in-flight limit is OverLimit;
        # a long poll, or a FIFO queue, just gets nothing.
        if wait_seconds > 0 or queue.fifo:
            return []
        raise SqsError("OverLimit", f"Too many messages in flight for queue {queue.name}.")
    deliveries: list[Delivery] = []
    held_back = None
    # Only deliveries take room in flight (a dead-letter move takes none).
    room = min(max_messages, limits.MAX_INFLIGHT - states.count(INFLIGHT))
    deliver = states.deliver
    faults = queue.faults
    picks = states.pick()
    if faults is not None and faults.loose and not queue.fifo:  # FIFO queues keep their order
        picks = faults.loosen(picks, room, wait_seconds == 0, states.put_back_picked)
    try:
        for message in picks:
            outcome = dead_letter(message, now) if dead_letter is not None else None
            if outcome is Transfer.MOVED:
                continue
            if outcome is Transfer.BUSY:
                # Stop here: a FIFO group must not get ahead of its head message.
                held_back = message
                break
            # Not due, or no dead-letter queue to move to: deliver it as usual.
            deliveries.append(deliver(message, now, visibility_timeout))
            if len(deliveries) >= room:
                break
    finally:
        picks.close()
    if held_back is not None:
        states.put_back_picked(held_back)
    history = queue.history
    if history is not None:
        history.received(deliveries, visibility_timeout, wait_seconds)
    if visibility_timeout == 0 or faults:
        for delivery in deliveries:
            if visibility_timeout == 0:
                states.end_inflight(delivery.message)
            elif faults and faults.duplicate():
                # Injected: receivable again at once, while this consumer still holds it.
                queue.stats.duplicate_deliveries += 1
                states.end_inflight(delivery.message)
                if history is not None:
                    history.record(delivery.message.key, "fault", fault="duplicate_delivery")
    return deliveries
