"""A queue's messages by id and in arrival order, and their retention.

Messages arrive in send order, so the oldest is first and one scheduler
callback per queue, armed for the oldest deadline, expires them: no callback
per message. Only dead-lettered messages of a standard queue arrive with an
older send time (they keep their first send's); a small heap of their ids
covers them.

The arrival order is a list beside an array of the arrival numbers (which
only grow), so a message is found from its arrival number (a receipt handle
carries it) by bisection, and a peek's next page finds where the last one
ended the same way. A message that leaves leaves a hole (None); holes are
squeezed out when they pile up. A list slot and an array slot cost 16 bytes a
message; a dict by arrival number beside them cost 30 to 52 more (its table
is a third empty or more) for lookups 0.2 to 0.4 us faster (a thousand to a
million messages). A delete bisects once either way: remove() starts from
the slot its handle's lookup found.
"""

import heapq
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from typing import Any

from emulator.engine.clock import Clock
from emulator.engine.lazy_deletions import LazyDeletions
from emulator.engine.message import Message, State
from emulator.engine.scheduler import Scheduler, Timer


class Arrivals:
    """Messages by arrival number (a receipt handle carries it) and in arrival order.
    Called with the queue's lock held, except the retention callback, which takes it."""

    def __init__(self, clock: Clock, scheduler: Scheduler, lock: threading.Lock, expire: Callable[[Message], None]):
        self._clock = clock
        self._scheduler = scheduler
        self._lock = lock
        self._expire = expire  # removes a message whose retention is over
        self._order: list[Message | None] = []  # None where a message left
        self._seqs = array("q")  # each slot's arrival number, holes' too
        self._head = 0  # the first slot that is not a hole (or the end)
        self._found = 0  # the slot get() found last: a remove() that follows under the lock starts there
        self._slots = LazyDeletions()
        self._older: list[tuple[float, int]] = []  # heap of (sent_at, seq): dead-lettered messages
        self._newest_sent_at = 0.0
        self.last_seq = 0  # the latest arrival number given
        self.period = 0  # the retention period, seconds
        self._due: float | None = None  # when the armed retention callback fires
        self._timer: Timer | None = None  # the armed retention timer

    def __len__(self) -> int:
        return self._slots.live

    def __iter__(self) -> Iterator[Message]:
        return (message for message in self._order[self._head :] if message is not None)

    def __getitem__(self, seq: int) -> Message:
        message = self.get(seq)
        if message is None:
            raise KeyError(seq)
        return message

    def get(self, seq: int) -> Message | None:
        slot = bisect_left(self._seqs, seq, self._head)
        if slot < len(self._seqs) and self._seqs[slot] == seq:
            self._found = slot
            return self._order[slot]  # None if it left
        return None

    def since(self, seq: int) -> Iterator[Message]:
        """The messages that arrived after arrival number `seq`, in arrival order,
        starting there (nothing before it is looked at). Nothing may arrive or
        leave while the caller iterates."""
        order = self._order
        for slot in range(bisect_right(self._seqs, seq, self._head), len(order)):
            message = order[slot]
            if message is not None:
                yield message

    def peek(
        self, states: frozenset[State], limit: int, after: int, view: Callable[[Message], Any] = Message.snapshot
    ) -> tuple[list[Any], int | None]:
        """view(message) of up to `limit` messages in the given states that arrived after
        arrival number `after`, and the cursor of the next page (None: no more).
        A page walks only the messages from its cursor on."""
        found: list[Any] = []
        cursor = after
        for message in self.since(after):
            if message.state not in states:
                continue
            if len(found) == limit:
                return found, cursor
            found.append(view(message))
            cursor = message.seq
        return found, None

    def next_seq(self) -> int:
        self.last_seq += 1
        return self.last_seq

    def count_from(self, seq: int) -> None:
        """Recovery: a store's arrival counter; numbers given before stay given."""
        self.last_seq = max(self.last_seq, seq)

    def add(self, message: Message) -> None:
        """Keep a message numbered after every one here; arm retention for it if it is due first."""
        self._order.append(message)
        self._seqs.append(message.seq)
        self._slots.live += 1
        if message.seq > self.last_seq:  # a restored message numbered before the counter moved
            self.last_seq = message.seq
        if message.sent_at < self._newest_sent_at:
            heapq.heappush(self._older, (message.sent_at, message.seq))
        else:
            self._newest_sent_at = message.sent_at
        if self._due is None or message.sent_at + self.period < self._due:
            self._arm()

    def remove(self, message: Message) -> None:
        order = self._order
        slot = self._found  # a delete looked the message up first: no second bisection
        if slot >= len(order) or order[slot] is not message:
            slot = bisect_left(self._seqs, message.seq, self._head)
        order[slot] = None
        if slot == self._head:  # the first left: the next that is not a hole is first now
            end = len(order)
            slot += 1
            while slot < end and order[slot] is None:
                slot += 1
            self._head = slot
        if self._slots.departed():
            self._compact()

    def clear(self) -> None:
        self._scheduler.cancel(self._timer)  # it would hold every message until it fired
        self._timer, self._due = None, None
        self._order, self._seqs, self._head = [], array("q"), 0
        self._slots = LazyDeletions()
        self._older.clear()

    def _compact(self) -> None:
        live = [message for message in self._order[self._head :] if message is not None]
        self._seqs = array("q", (message.seq for message in live))
        self._order = list[Message | None](live)  # typed to take holes again; one copy per compaction
        self._head = 0
        self._slots.compacted()

    # -- retention ------------------------------------------------------------

    def retain_for(self, period: int) -> None:
        """The retention period was set: re-arm for the oldest message's deadline under it."""
        self.period = period
        self._due = None
        self._arm()

    def _oldest_sent_at(self) -> float | None:
        """Send time of the oldest message still here (dropping ids of gone ones off the heap)."""
        while self._older and self.get(self._older[0][1]) is None:
            heapq.heappop(self._older)
        candidates = [sent_at for sent_at, _ in self._older[:1]]
        first = self._first()
        if first is not None:
            candidates.append(first.sent_at)
        return min(candidates, default=None)

    def _first(self) -> Message | None:
        """The first message in arrival order, or None when there is none (the head slot is never a hole)."""
        return self._order[self._head] if self._head < len(self._order) else None

    def _arm(self) -> None:
        oldest = self._oldest_sent_at()
        if oldest is None:
            return
        due = oldest + self.period
        if self._due is None or due < self._due:
            self._due = due
            self._scheduler.cancel(self._timer)
            self._timer = self._scheduler.call_at(due, self._retention_ended)

    def _retention_ended(self) -> None:
        """Expire every message older than the retention period, then re-arm for the next."""
        with self._lock:
            self._due = None
            cutoff = self._clock.now() - self.period
            while (first := self._first()) is not None and first.sent_at <= cutoff:
                self._expire(first)
            while self._older and self._older[0][0] <= cutoff:
                _, seq = heapq.heappop(self._older)
                message = self.get(seq)
                if message is not None:
                    self._expire(message)
            self._arm()
