"""Deadlines for bodies on their way in, kept cheaply: one sweep a second for all of them.

asyncio.timeout() around each body's read made (and cancelled) a timer per request,
about a tenth of the event loop's own work per SendMessage; a read here costs a dict
entry instead, and a late one is cancelled at most a second past its deadline.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

SWEEP_SECONDS = 1.0


class BodyDeadlines:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self._reading: dict[asyncio.Task, float] = {}  # task -> its loop.time() deadline
        self._late: set[asyncio.Task] = set()
        self._sweeping: asyncio.TimerHandle | None = None

    @contextmanager
    def reading(self, loop: asyncio.AbstractEventLoop):
        """Within it, the current task's await is cancelled once the deadline passes; it then
        raises TimeoutError (and only then: another cancellation goes through)."""
        task = asyncio.current_task(loop)
        assert task is not None
        self._reading[task] = loop.time() + self.seconds
        if self._sweeping is None:
            self._sweeping = loop.call_later(SWEEP_SECONDS, self._sweep, loop)
        try:
            yield
        except asyncio.CancelledError:
            if task not in self._late:
                raise
            task.uncancel()
            raise TimeoutError from None
        finally:
            del self._reading[task]
            self._late.discard(task)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        for task, deadline in list(self._reading.items()):
            if deadline <= now and task not in self._late:
                self._late.add(task)
                task.cancel()
        self._sweeping = loop.call_later(SWEEP_SECONDS, self._sweep, loop) if self._reading else None
