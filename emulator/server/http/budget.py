"""A number of bytes shared by all connections (bodies being read, answers being written):
taken and given back on the event loop, and waited for in turn when used up."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


class Budget:
    """`used` against `total`; connections add to `used` directly on their hot path."""

    def __init__(self, total: int):
        self.total = total
        self.used = 0
        self.waited = 0  # how many times a connection had to wait for it (for the metrics)
        self._waiting: deque[Callable[[], None]] = deque()

    def take(self, size: int) -> None:
        self.used += size

    def give(self, size: int) -> None:
        self.used -= size
        while self._waiting and self.used < self.total:
            self._waiting.popleft()()

    def wait(self, resume: Callable[[], None]) -> None:
        """Call `resume` once some of it is free again (first come, first resumed)."""
        self.waited += 1
        self._waiting.append(resume)

    def forget(self, resume: Callable[[], None]) -> None:
        try:
            self._waiting.remove(resume)
        except ValueError:
            pass
