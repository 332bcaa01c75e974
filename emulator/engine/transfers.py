"""Moving messages between queues: dead letters, and move tasks' batches.

A move replaces a message in its source queue by a copy in the target queue
in one step under both queues' locks (accept(), the target's side), so the
message is never in both queues or in neither. The source's lock is held
first; the target's is waited for at most TRANSFER_WAIT, so two queues that
are each other's dead-letter queue cannot deadlock, and a move that gives up
leaves the message where it was, to be moved on a later try.

The source's side is Queue's: move_out (a move task's batch) and its
dead-lettering on receive (queue.py, taking.py).
"""

import enum
import uuid
from collections.abc import Callable
from functools import partial

from emulator.engine import history
from emulator.engine.message import Message
from emulator.engine.states import MessageStates

TRANSFER_WAIT = 0.05


class Transfer(enum.Enum):
    MOVED = "moved"
    BUSY = "busy"  # the target's lock was not free in time
    NO_TARGET = "no target"  # the target queue does not exist (any more)


def transfer(
    states: MessageStates,
    message: Message,
    target,
    replacement: Message,
    sent_at: float,
    note: Callable[[], None] | None = None,
) -> Transfer:
    """Replace `message`, picked off the source's ready order (its MessageStates,
    lock held), by `replacement` in `target`, enqueued there as sent at `sent_at`.
    `note()` runs with both locks held once the move is certain (the stories, history.py)."""

    def remove_original() -> None:
        states.remove(message, picked=True)
        if note is not None:
            note()

    return accept(target, replacement, sent_at, remove_original)


def accept(target, message: Message, sent_at: float, remove_original: Callable[[], None]) -> Transfer:
    """Take into `target` a message another queue moves there (whose lock the caller holds).
    remove_original() takes it out there while both locks are held, so it is never in both
    queues or in neither. Waits at most TRANSFER_WAIT for the target's lock."""
    if not target._lock.acquire(timeout=TRANSFER_WAIT):
        return Transfer.BUSY
    try:
        if target.deleted:
            return Transfer.NO_TARGET
        remove_original()
        target._enqueue(message, sent_at, 0)
        target.stats.moved_in += 1
        return Transfer.MOVED
    finally:
        target._lock.release()


def move_out(
    source, states: MessageStates, now: float, limit: int, destination: Callable[[Message], object]
) -> tuple[int, bool]:
    """Queue.move_out with the source's lock held (`source`, its MessageStates `states`): move up to `limit` visible
    messages, in the order a receive would take them, each as a new message into
    destination(message). Returns (moved, failed): failed when a message has no
    destination queue."""
    moved = 0
    outcome = Transfer.MOVED
    picks = states.pick()
    try:
        for message in picks:
            target = destination(message)
            outcome = Transfer.NO_TARGET
            if target is not None:
                copy = message.redriven(uuid.uuid4().bytes)
                note = partial(history.redriven, source, target, message, copy)
                outcome = transfer(states, message, target, copy, now, note)
            if outcome is not Transfer.MOVED:
                break
            moved += 1
            if moved >= limit:
                break
    finally:
        picks.close()
    if outcome is not Transfer.MOVED:
        states.put_back_picked(message)  # it stays in its queue, first in line
    return moved, outcome is Transfer.NO_TARGET
