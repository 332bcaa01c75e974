"""Time for the engine. Every deadline reads one of these, never time.time().

RealClock is the default. ManualClock only moves when told (advance), so tests
and users can expire a 30-second visibility timeout instantly. Clock is what
the engine asks of either; only ManualClock can be told to move (advance,
on_advance), so code that needs that checks for a ManualClock.
"""

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    manual: bool  # whether time moves only when told (ManualClock.advance)

    def now(self) -> float:
        """Epoch seconds."""

    def wait(self, condition: threading.Condition, deadline: float) -> None:
        """Block on `condition` (held by the caller) until notified or, at the latest, `deadline`."""


class RealClock:
    manual = False

    def now(self) -> float:
        return time.time()

    def wait(self, condition: threading.Condition, deadline: float) -> None:
        """Block on `condition` (held by the caller) until notified or `deadline`."""
        remaining = deadline - self.now()
        if remaining > 0:
            condition.wait(remaining)


class ManualClock:
    manual = True

    def __init__(self, start: float | None = None):
        self._now = time.time() if start is None else start
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []

    def now(self) -> float:
        return self._now

    def wait(self, condition: threading.Condition, deadline: float) -> None:
        # Real time does not bring the deadline closer; advance() notifies.
        condition.wait()

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
