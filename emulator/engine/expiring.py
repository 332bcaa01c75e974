"""A map whose entries expire a fixed time after they were put: FIFO
deduplication ids and receive-attempt ids, each kept for AWS's 5 minutes.

Every entry lives equally long, so insertion order is expiry order: one
scheduler callback, armed for the oldest entry, removes what is due and re-arms
for the next. Nothing scans. The owner's lock guards the map; the callback
takes it.
"""

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from emulator.engine.clock import Clock
from emulator.engine.scheduler import Scheduler


class ExpiringMap:
    def __init__(self, ttl: float, clock: Clock, scheduler: Scheduler, lock: threading.Lock):
        self.ttl = ttl
        self._clock = clock
        self._scheduler = scheduler
        self._lock = lock
        self._entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()  # key -> (expires_at, value)
        self._armed_for: float | None = None

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> Any:
        """The live value for key, or None. Caller holds the lock."""
        entry = self._entries.get(key)
        if entry is None or entry[0] <= self._clock.now():
            return None
        return entry[1]

    def put(self, key: Hashable, value: Any, since: float | None = None) -> None:
        """Keep value for ttl from `since` (default now). Caller holds the lock."""
        expires_at = (self._clock.now() if since is None else since) + self.ttl
        self._entries.pop(key, None)
        self._entries[key] = (expires_at, value)
        self._arm()

    def discard(self, key: Hashable) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()

    def items(self):
        """(key, expires_at, value) of every entry, oldest first (for persistence and peeking)."""
        return [(key, expires_at, value) for key, (expires_at, value) in self._entries.items()]

    def _arm(self) -> None:
        if self._armed_for is not None or not self._entries:
            return
        due = next(iter(self._entries.values()))[0]
        self._armed_for = due
        self._scheduler.call_at(due, self._expire)

    def _expire(self) -> None:
        with self._lock:
            self._armed_for = None
            now = self._clock.now()
            while self._entries:
                key, (expires_at, _) = next(iter(self._entries.items()))
                if expires_at > now:
                    break
                del self._entries[key]
            self._arm()
