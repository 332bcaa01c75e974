"""What a queue asks its ready order: which visible message a receive gets next.

A standard queue's order is TenantOrder (standard.py): oldest first, quiet
fair-queue tenants before noisy ones. A FIFO queue's is GroupOrder (fifo.py):
ready message groups, each in send order. The queue tells its order about every
state change that matters to it and asks it only what is named here.

Both orders keep their entries in heaps and delete lazily: an entry of a
message that went away stays until it reaches a heap's top or the order
compacts. LazyDeletions is that bookkeeping, shared by both orders and by the
queue's arrival order (retention.py).
"""

from collections.abc import Generator
from typing import Protocol

from emulator.engine.message import Message

# Compact when more than this many entries belong to departed messages (and
# they outnumber the live ones): the index stays at most about twice its size.
COMPACT_AFTER = 1024


class ReadyOrder(Protocol):
    def add(self, message: Message) -> None:
        """The message became visible (sent, delay over, visibility over, or put back
        after a pick). Called with the queue's lock held."""

    def discard(self, message: Message) -> None:
        """The visible message went away (deleted, expired) while in the order; its
        entry may stay until it surfaces. Called with the queue's lock held."""

    def delayed(self, message: Message, entering: bool) -> None:
        """The message entered (True) or left (False) the DELAYED state: fair queues
        count each tenant's delayed messages. Called with the queue's lock held."""

    def taken(self, message: Message) -> None:
        """The message went in flight (delivered, or put back so by a store).
        Called with the queue's lock held."""

    def released(self, message: Message) -> bool:
        """The message left the in-flight state (visible again or gone): True when that
        made another message receivable (a FIFO group unblocked), so a waiting
        receiver should be woken. Called with the queue's lock held."""

    def available(self) -> bool:
        """Whether pick() would yield a message now. Called with the queue's lock held."""

    def pick(self) -> Generator[Message, None, None]:
        """Visible messages in the order a receive takes them, each taken off the order
        as it is yielded; the caller delivers it, moves it away, or add()s it back.
        Called, and closed, with the queue's lock held."""


class LazyDeletions:
    """Counts of an index that leaves departed messages' entries in place: compact
    when they pile up."""

    __slots__ = ("gone", "live")

    def __init__(self):
        self.live = 0  # entries of messages still there
        self.gone = 0  # entries of messages that went away, at most

    def added(self) -> None:
        self.live += 1

    def removed(self) -> None:
        """An entry was taken out for real (popped)."""
        self.live -= 1

    def departed(self) -> bool:
        """A message went away and its entry stays: True when the index should compact now."""
        self.live -= 1
        self.gone += 1
        return self.gone > COMPACT_AFTER and self.gone > self.live

    def compacted(self) -> None:
        self.gone = 0
