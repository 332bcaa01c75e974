"""The open connections of one server: their count against --max-connections, the idle
ones oldest first, and one sweep for all their deadlines.

At the cap a newcomer is not turned away while a connection only holds its place: the
oldest idle kept-alive connection is closed for it (a client reconnects as it would after
an idle timeout), else the request that has been arriving longest (a slow or stalled
sender). Only when every connection is being answered is the newcomer closed.

One sweep every SWEEP_SECONDS (or a quarter of the shortest timeout) costs a loop over
the connections; a timer a request cost about a tenth of the loop's work a SendMessage.
"""

from __future__ import annotations

import asyncio

from emulator.server.http.connection import BODY, HEAD, Connection
from emulator.server.http.limits import Limits

SWEEP_SECONDS = 1.0


class Connections:
    def __init__(self, loop: asyncio.AbstractEventLoop, limits: Limits):
        self.loop = loop
        self.cap = limits.max_connections
        self.open: set[Connection] = set()
        # idle connections in the order they became idle; connections add and remove themselves
        self.idle_order: dict[Connection, None] = {}
        self.evicted = 0
        self.turned_away = 0
        self._every = min(SWEEP_SECONDS, limits.request_timeout / 4, limits.idle_timeout / 4, limits.write_timeout / 4)
        self._sweeping: asyncio.TimerHandle | None = None

    def admit(self, connection: Connection) -> bool:
        """Whether `connection` may stay open (at the cap, another is closed for it when one can be)."""
        if len(self.open) >= self.cap:
            victim = next(iter(self.idle_order), None) or self._slowest()
            if victim is None:
                self.turned_away += 1
                return False
            self.evicted += 1
            self.remove(victim)
            victim.close()
        self.open.add(connection)
        if self._sweeping is None:
            self._sweeping = self.loop.call_later(self._every, self._sweep)
        return True

    def remove(self, connection: Connection) -> None:
        self.open.discard(connection)
        self.idle_order.pop(connection, None)

    def waiting(self) -> list[asyncio.Task]:
        """The tasks of requests being answered that wait (long polls, commits, slow work)."""
        return [connection.task for connection in self.open if connection.task is not None]

    def close_all(self) -> None:
        for connection in list(self.open):
            connection.close()
        self.open.clear()
        self.idle_order.clear()
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None

    def _slowest(self) -> Connection | None:
        reading = [c for c in self.open if c.state in (HEAD, BODY) and not c.busy]
        return min(reading, key=lambda c: c.began, default=None)

    def _sweep(self) -> None:
        now = self.loop.time()
        for connection in list(self.open):
            if 0 < connection.deadline <= now:
                connection.expire()
        self._sweeping = self.loop.call_later(self._every, self._sweep) if self.open else None
