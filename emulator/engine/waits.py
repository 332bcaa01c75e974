"""How many long polls may wait at once: each holds a server thread for up to
20 s, so the count is capped (--max-waits) and a poll past the cap is answered
at once, empty, and counted."""

import threading

DEFAULT_MAX_WAITS = 4000


class Waits:
    def __init__(self, cap: int = DEFAULT_MAX_WAITS):
        self.cap = cap
        self.waiting = 0
        self.refused = 0  # polls answered empty because the cap was reached, since start
        self._lock = threading.Lock()

    def enter(self) -> bool:
        """Take a place for one wait; False (and counted) when all are taken."""
        with self._lock:
            if self.waiting >= self.cap:
                self.refused += 1
                return False
            self.waiting += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.waiting -= 1
