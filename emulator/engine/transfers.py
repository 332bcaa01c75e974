"""Moving messages between queues: dead letters, and move tasks' batches.

A move replaces a message in its source queue by a copy in the target queue
in one step under both queues' locks (the target's Queue.accept_move), so the
message is never in both queues or in neither. The source's lock is held
first; the target's is waited for at most TRANSFER_WAIT, so two queues that
are each other's dead-letter queue cannot deadlock, and a move that gives up
leaves the message where it was, to be moved on a later try.
"""

import enum
import uuid
from collections.abc import Callable

from emulator.engine.message import Message
from emulator.engine.queue_config import QueueConfig
from emulator.engine.states import MessageStates
from emulator.engine.stats import QueueStats

TRANSFER_WAIT = 0.05


class Transfer(enum.Enum):
    MOVED = "moved"
    BUSY = "busy"  # the target's lock was not free in time
    NO_TARGET = "no target"  # the target queue does not exist (any more)


def transfer(states, message: Message, target, replacement: Message, sent_at: float) -> Transfer:
    """Replace `message`, picked off the source's ready order (its MessageStates,
    lock held), by `replacement` in `target`, enqueued there as sent at `sent_at`."""
    return target.accept_move(replacement, sent_at, lambda: states.remove(message, picked=True))


def move_out(states, now: float, limit: int, destination: Callable[[Message], object]) -> tuple[int, bool]:
    """Queue.move_out with the source's lock held: move up to `limit` visible
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
                outcome = transfer(states, message, target, message.redriven(uuid.uuid4().bytes), now)
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


class QueueTransfers(QueueConfig):
    """A queue's part in moves: dead-lettering its messages, moving them out, taking
    them in. The base of Queue (queue.py), which provides what is declared here."""

    _states: MessageStates
    _find_queue: Callable[[str], "QueueTransfers | None"]  # by ARN: dead-letter targets
    stats: QueueStats
    deleted: bool

    def _enqueue(self, message: Message, sent_at: float, delay: float) -> None:
        raise NotImplementedError

    def move_out(self, limit: int, destination: Callable[[Message], "QueueTransfers | None"]) -> tuple[int, bool]:
        """Move up to `limit` visible messages, in the order a receive would take
        them, each as a new message into destination(message). Returns (moved,
        failed): failed when a message has no destination queue."""
        if limit <= 0:
            return 0, False
        with self._lock:
            return move_out(self._states, self._clock.now(), limit, destination)

    def _dead_letter(self, message: Message, now: float) -> Transfer:
        """Move a picked message that reached maxReceiveCount."""
        target = self._find_queue(self.redrive.target_arn)
        if target is None or target is self:
            return Transfer.NO_TARGET
        outcome = transfer(self._states, message, target, *self._dead_letter_copy(message, now))
        if outcome is Transfer.MOVED:
            self.stats.dead_lettered += 1
        return outcome

    def _dead_letter_copy(self, message: Message, now: float) -> tuple[Message, float]:
        """The message as the dead-letter queue takes it, and its enqueue time there.
        A standard queue keeps the original, so retention counts from the first send."""
        return message.dead_lettered(self.arn), message.sent_at

    def accept_move(self, message: Message, sent_at: float, remove_original: Callable[[], None]) -> Transfer:
        """Take a message another queue moves here; the caller holds that queue's lock.
        remove_original() takes it out there while both locks are held, so it is never
        in both queues or in neither. Waits at most TRANSFER_WAIT for this queue's lock (transfers.py)."""
        if not self._lock.acquire(timeout=TRANSFER_WAIT):
            return Transfer.BUSY
        try:
            if self.deleted:
                return Transfer.NO_TARGET
            remove_original()
            self._enqueue(message, sent_at, 0)
            self.stats.moved_in += 1
            return Transfer.MOVED
        finally:
            self._lock.release()
