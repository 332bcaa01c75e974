"""Time for the engine. Every deadline reads one of these, never time.time().

RealClock is the default. ManualClock only moves when told (advance), so tests
and users can expire a 30-second visibility timeout instantly. Clock is what
the engine asks of either; only ManualClock can be told to move (advance,
on_advance), so code that needs that checks for a ManualClock.

A long poll's wait ends at a deadline(), the one place where real time bounds a
wait: on the manual clock a wait still ends after its length in real seconds
(no client's read timeout is shorter than SQS's 20 s), and `wait_cap`, when
set, ends every wait after that many real seconds (a test suite's empty polls
return at once instead of after 20 s). The waiter keeps the time itself (an
event loop's timer, or a thread's timed wait: engine/long_polls.py).
"""

import threading
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol


class Deadline(NamedTuple):
    """A wait of some seconds on a clock, for a waiter that keeps its own time: it ends
    after `real_seconds` of real time, or once passed() (the manual clock moved past
    it: the clock wakes waiters when it moves)."""

    real_seconds: float
    passed: Callable[[], bool]


class Clock(Protocol):
    manual: bool  # whether time moves only when told (ManualClock.advance)

    def now(self) -> float:
        """Epoch seconds."""

    def deadline(self, seconds: float) -> Deadline:
        """The end of a wait of `seconds` on this clock, or in real time."""


class RealClock:
    manual = False

    def __init__(self, wait_cap: float | None = None):
        self.wait_cap = wait_cap  # real seconds; None: a wait lasts as long as asked

    def now(self) -> float:
        return time.time()

    def deadline(self, seconds: float) -> Deadline:
        return Deadline(_capped(seconds, self.wait_cap), never)


class ManualClock:
    manual = True

    def __init__(self, start: float | None = None, wait_cap: float | None = None):
        self._now = time.time() if start is None else start
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self.wait_cap = wait_cap  # real seconds; None: a wait lasts as long as asked

    def now(self) -> float:
        return self._now

    def deadline(self, seconds: float) -> Deadline:
        # Passed once advance() (whose listeners wake every waiter) moves the clock past it.
        at = self._now + seconds
        return Deadline(_capped(seconds, self.wait_cap), lambda: self._now >= at)

    def on_advance(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("time only moves forward")
        with self._lock:
            self._now += seconds
            for listener in self._listeners:
                listener()
            return self._now


def _capped(seconds: float, cap: float | None) -> float:
    return seconds if cap is None else min(seconds, cap)


def never() -> bool:
    return False
