"""The one scheduler: every time-driven transition (delay end, visibility
expiry, retention expiry) is a callback on this heap, keyed by deadline.

Callbacks run outside the scheduler's lock: they take queue locks, and queue
code calls call_at() while holding its own lock. Scheduler is what the queues
and their parts ask of it; HeapScheduler is the one the broker runs.
"""

import heapq
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from emulator.engine.clock import Clock

log = logging.getLogger(__name__)


class Scheduler(Protocol):
    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> None:
        """Run callback(*args) once the clock reads `when` or later, outside any lock the caller holds."""


class HeapScheduler:
    def __init__(self, clock: Clock):
        self._clock = clock
        self._heap: list[tuple[float, int, Callable[..., Any], tuple]] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._order = itertools.count()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> None:
        with self._lock:
            heapq.heappush(self._heap, (when, next(self._order), callback, args))
            if self._heap[0][0] == when:
                self._changed.notify()  # the earliest deadline moved closer

    def __len__(self) -> int:
        return len(self._heap)

    def run_due(self) -> None:
        """Run every callback whose deadline has passed, earliest first."""
        while True:
            with self._lock:
                if not self._heap or self._heap[0][0] > self._clock.now():
                    return
                _, _, callback, args = heapq.heappop(self._heap)
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
