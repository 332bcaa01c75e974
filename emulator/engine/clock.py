"""Time for the engine. Every deadline reads one of these, never time.time().

RealClock is the default. ManualClock only moves when told (advance), so tests
and users can expire a 30-second visibility timeout instantly. Clock is what
the engine asks of either; only ManualClock can be told to move (advance,
on_advance), so code that needs that checks for a ManualClock.

A long poll waits through wait_for(), the one place where real time bounds a
wait: on the manual clock a wait still ends after its length in real seconds
(no client's read timeout is shorter than SQS's 20 s), and `wait_cap`, when
set, ends every wait after that many real seconds (a test suite's empty polls
return at once instead of after 20 s).
"""

import threading
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol


class Waitable(Protocol):
    """What a wait blocks on: a threading.Condition, or a queue's Wakeups, held by the caller."""

    def wait(self, timeout: float | None = None) -> bool: ...


class Deadline(NamedTuple):
    """A wait of some seconds on a clock, for a waiter that keeps its own time (an event
    loop): it ends after `real_seconds` of real time, or once passed() (the manual
    clock moved past it: the clock wakes waiters when it moves)."""

    real_seconds: float
    passed: Callable[[], bool]


class Clock(Protocol):
    manual: bool  # whether time moves only when told (ManualClock.advance)

    def now(self) -> float:
        """Epoch seconds."""

    def wait_for(self, condition: Waitable, done: Callable[[], bool], seconds: float) -> None:
        """Block on `condition` (held by the caller) until done(), re-checked on each
        notify, or until `seconds` have passed on this clock or in real time."""

    def deadline(self, seconds: float) -> Deadline:
        """The same bounds as wait_for's, for a waiter that does not block."""


def _wait_for(condition: Waitable, done: Callable[[], bool], seconds: float, expired: Callable[[], bool]):
    """Wait for done() or expired(), at most `seconds` of real time (monotonic)."""
    real_deadline = time.monotonic() + seconds
    while not (done() or expired()):
        remaining = real_deadline - time.monotonic()
        if remaining <= 0:
            return
        condition.wait(remaining)


class RealClock:
    manual = False

    def __init__(self, wait_cap: float | None = None):
        self.wait_cap = wait_cap  # real seconds; None: a wait lasts as long as asked

    def now(self) -> float:
        return time.time()

    def wait_for(self, condition: Waitable, done: Callable[[], bool], seconds: float) -> None:
        _wait_for(condition, done, _capped(seconds, self.wait_cap), never)

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

    def wait_for(self, condition: Waitable, done: Callable[[], bool], seconds: float) -> None:
        # Ends when advance() (which notifies) moves the clock past the deadline, or in real time.
        deadline = self.deadline(seconds)
        _wait_for(condition, done, deadline.real_seconds, deadline.passed)

    def deadline(self, seconds: float) -> Deadline:
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
