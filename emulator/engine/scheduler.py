"""The one scheduler: every time-driven transition (delay end, visibility
expiry, retention expiry) is a callback on this heap, keyed by deadline.

Callbacks run outside the scheduler's lock: they take queue locks, and queue
code calls call_at() while holding its own lock. Scheduler is what the queues
and their parts ask of it; HeapScheduler is the one the broker runs.

A timer that no longer matters (its message deleted, its visibility changed)
is cancelled: its entry lets go of the callback and arguments at once, so a
deleted message is not kept alive until its old deadline (up to 12 hours), and
the heap drops cancelled entries once they are half of it.
"""

import heapq
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from emulator.engine.clock import Clock

log = logging.getLogger(__name__)


# A heap entry: [deadline, order, callback, args]. Lists compare by deadline,
# then order (unique), and cancel() can empty one in place.
Timer = list

COMPACT_AFTER = 1024  # cancelled entries tolerated before they may be swept out


class Scheduler(Protocol):
    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> Timer:
        """Run callback(*args) once the clock reads `when` or later, outside any lock the caller holds."""

    def cancel(self, timer: Timer | None) -> None:
        """The timer will not run, and holds nothing any more (None, or a timer that ran: nothing to do)."""


class HeapScheduler:
    def __init__(self, clock: Clock):
        self._clock = clock
        self._heap: list[Timer] = []
        self._cancelled = 0  # entries in the heap with no callback
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._order = itertools.count()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> Timer:
        timer = [when, next(self._order), callback, args]
        with self._lock:
            heapq.heappush(self._heap, timer)
            if self._heap[0] is timer:
                self._changed.notify()  # the earliest deadline moved closer
        return timer

    def cancel(self, timer: Timer | None) -> None:
        if timer is None:
            return
        with self._lock:
            if timer[2] is None:  # ran, or cancelled before
                return
            timer[2], timer[3] = None, ()
            self._cancelled += 1
            if self._cancelled > COMPACT_AFTER and self._cancelled * 2 > len(self._heap):
                self._heap = [entry for entry in self._heap if entry[2] is not None]
                heapq.heapify(self._heap)
                self._cancelled = 0

    def __len__(self) -> int:
        """Timers still to run."""
        return len(self._heap) - self._cancelled

    def run_due(self) -> None:
        """Run every callback whose deadline has passed, earliest first."""
        while True:
            with self._lock:
                if not self._heap or self._heap[0][0] > self._clock.now():
                    return
                timer = heapq.heappop(self._heap)
                callback, args = timer[2], timer[3]
                if callback is None:
                    self._cancelled -= 1
                    continue
                timer[2], timer[3] = None, ()  # ran: a later cancel() does nothing
            try:
                callback(*args)
            except Exception:  # one bad callback must not stop time for every queue
                log.exception("scheduled callback failed")

    def start(self) -> None:
        """Run due callbacks on a thread (real clock). A manual clock calls run_due on advance."""
        self._thread = threading.Thread(target=self._run, name="sqs-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._stopped:
                    if self._heap:
                        remaining = self._heap[0][0] - self._clock.now()
                        if remaining <= 0:
                            break
                        self._changed.wait(remaining)
                    else:
                        self._changed.wait()
                if self._stopped:
                    return
            self.run_due()
