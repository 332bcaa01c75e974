"""How many long polls may wait at once (--max-waits): the one gate both of the
server's drivers pass (emulator/server/drivers.py). A poll past the cap is answered
at once, with what there is, and counted."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_MAX_WAITS = 4000


class Waits:
    def __init__(self, cap: int = DEFAULT_MAX_WAITS):
        self.cap = cap
        self.waiting = 0
        self.refused = 0  # polls answered at once because the cap was reached, since start
        self._lock = threading.Lock()

    @contextmanager
    def place(self) -> Iterator[bool]:
        """Hold a place for one wait while inside; yields False (and counts it) when all
        are taken. The place is left however the wait ends (its task cancelled too)."""
        with self._lock:
            admitted = self.waiting < self.cap
            if admitted:
                self.waiting += 1
            else:
                self.refused += 1
        try:
            yield admitted
        finally:
            if admitted:
                with self._lock:
                    self.waiting -= 1
