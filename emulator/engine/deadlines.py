"""When a queue's delayed and in-flight messages are due: one scheduler timer per queue.

Every receive sets a deadline (its visibility end), and nearly all come in
order, since most receives use the queue's one visibility timeout: those wait
in a deque. A deadline earlier than the last one (a shorter timeout, a delay)
goes on a heap. The queue's one timer is armed for the earliest deadline of
both; it ends the visibility or delay of every message due, and re-arms.

An entry is a small list, [due, message] in the deque and [due, order, message]
on the heap (order: a counter, for ties), and the message's DeliveryFields.entry points at it. A deadline
that no longer holds (the message left, or its visibility was set again) lets
go of its message at once (its last item becomes None) and is skipped when it
comes up; such entries are counted and swept out once they outnumber the live
ones, so the entries stay at most about twice the messages waiting.

Called with the queue's lock held, except the timer's callback, which takes it.
"""

import heapq
import itertools
import threading
from collections import deque
from collections.abc import Callable

from emulator.engine.clock import Clock
from emulator.engine.lazy_deletions import LazyDeletions
from emulator.engine.message import DeliveryFields, Message
from emulator.engine.scheduler import Scheduler, Timer


class Deadlines:
    def __init__(self, clock: Clock, scheduler: Scheduler, lock: threading.Lock, due: Callable[[Message], None]):
        self._clock = clock
        self._scheduler = scheduler
        self._lock = lock
        self._due = due  # ends a waiting message's visibility or delay
        self._in_order: deque[list] = deque()  # [due, message], ascending deadlines
        self._heap: list[list] = []  # [due, order, message]: the deadlines that came out of order
        self._order = itertools.count()  # ties on the heap: a message may have stale entries of equal due
        self._entries = LazyDeletions()
        self._armed_for: float | None = None
        self._timer: Timer | None = None

    def set(self, message: Message, due: float) -> None:
        """The message (in flight or delayed) is due then; a deadline it had no longer holds."""
        fields = message.delivery_fields
        if fields is None:
            fields = message.delivery_fields = DeliveryFields()
        elif fields.entry is not None:
            self._let_go(fields)
        fields.due = due
        self._entries.live += 1
        in_order = self._in_order
        if not in_order or due >= in_order[-1][0]:
            fields.entry = entry = [due, message]
            in_order.append(entry)
        else:
            fields.entry = entry = [due, next(self._order), message]
            heapq.heappush(self._heap, entry)
        if self._armed_for is None or due < self._armed_for:
            self._arm(due)

    def unset(self, message: Message) -> None:
        """The message no longer waits for its deadline (it left, or is visible again)."""
        fields = message.delivery_fields
        if fields is not None and fields.entry is not None:
            fields.entry[-1] = None
            fields.entry = fields.due = None
            if self._entries.departed():
                self._compact()

    def _let_go(self, fields: DeliveryFields) -> None:
        fields.entry[-1] = None  # type: ignore[index]
        if self._entries.departed():
            self._compact()

    def clear(self) -> None:
        self._scheduler.cancel(self._timer)  # it would hold the queue until it fired
        self._timer, self._armed_for = None, None
        self._in_order.clear()
        self._heap.clear()
        self._entries = LazyDeletions()

    def __len__(self) -> int:
        """Entries kept, live or not."""
        return len(self._in_order) + len(self._heap)

    def _arm(self, due: float) -> None:
        self._scheduler.cancel(self._timer)
        self._armed_for = due
        self._timer = self._scheduler.call_at(due, self._fire)

    def _first(self) -> float | None:
        in_order, heap = self._in_order, self._heap
        if in_order and (not heap or in_order[0][0] <= heap[0][0]):
            return in_order[0][0]
        return heap[0][0] if heap else None

    def _fire(self) -> None:
        with self._lock:
            self._armed_for, self._timer = None, None
            now = self._clock.now()
            in_order, heap = self._in_order, self._heap
            while True:
                if in_order and in_order[0][0] <= now and (not heap or in_order[0][0] <= heap[0][0]):
                    message = in_order.popleft()[-1]
                elif heap and heap[0][0] <= now:
                    message = heapq.heappop(heap)[-1]
                else:
                    break
                if message is None:  # a deadline that no longer held
                    self._entries.gone -= 1
                    continue
                self._entries.live -= 1
                fields = message.delivery_fields
                fields.entry = fields.due = None
                self._due(message)
            first = self._first()
            if first is not None:
                self._arm(first)

    def _compact(self) -> None:
        """Keep only the entries of deadlines that hold."""
        self._in_order = deque(entry for entry in self._in_order if entry[-1] is not None)
        self._heap = [entry for entry in self._heap if entry[-1] is not None]
        heapq.heapify(self._heap)
        self._entries.compacted()
