"""What a queue asks its ready order: which visible message a receive gets next.

A standard queue's order is TenantOrder (standard.py): oldest first, quiet
fair-queue tenants before noisy ones. A FIFO queue's is GroupOrder (fifo.py):
ready message groups, each in send order. The queue tells its order about every
state change that matters to it and asks it only what is named here.

Both orders keep their entries in heaps and delete lazily: an entry of a
message that went away stays until it reaches a heap's top or the order
compacts (lazy_deletions.py counts them).
"""

import heapq
from collections import deque
from collections.abc import Generator
from typing import Protocol

from emulator.engine.message import VISIBLE, Message


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


class SendOrder:
    """Visible messages oldest first by arrival number, without a tuple per message.

    Nearly every message becomes visible in arrival order (at its send): those
    wait in a deque, 8 bytes each. Only one that comes back behind a newer one
    (its visibility or delay ended) goes on a heap of (seq, message), 64 bytes
    more. Entries of messages no longer visible are dropped when they surface.
    """

    __slots__ = ("_back", "_fresh")

    def __init__(self):
        self._fresh: deque[Message] = deque()  # ascending arrival numbers
        self._back: list[tuple[int, Message]] = []  # heap: messages that came back out of order

    def __bool__(self) -> bool:
        """Whether any entry is left, live or not."""
        return bool(self._fresh or self._back)

    def push(self, message: Message) -> None:
        fresh = self._fresh
        if not fresh or message.seq > fresh[-1].seq:
            fresh.append(message)
        else:
            heapq.heappush(self._back, (message.seq, message))

    def top(self) -> Message | None:
        """The oldest visible message (left in place), dropping entries of ones that are not."""
        fresh, back = self._fresh, self._back
        while fresh and fresh[0].state is not VISIBLE:
            fresh.popleft()
        while back and back[0][1].state is not VISIBLE:
            heapq.heappop(back)
        if not back:
            return fresh[0] if fresh else None
        if not fresh or back[0][0] < fresh[0].seq:
            return back[0][1]
        return fresh[0]

    def pop(self) -> Message | None:
        """Take the oldest visible message off (None when there is none)."""
        fresh, back = self._fresh, self._back
        while fresh and fresh[0].state is not VISIBLE:
            fresh.popleft()
        while back and back[0][1].state is not VISIBLE:
            heapq.heappop(back)
        if back and (not fresh or back[0][0] < fresh[0].seq):
            return heapq.heappop(back)[1]
        return fresh.popleft() if fresh else None

    def compacted(self) -> "SendOrder":
        """A copy without the entries of messages that are not visible."""
        live = SendOrder()
        live._fresh.extend(message for message in self._fresh if message.state is VISIBLE)
        live._back = [entry for entry in self._back if entry[1].state is VISIBLE]
        heapq.heapify(live._back)
        return live
