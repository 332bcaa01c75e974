"""The threads that run invocations: one pool for the whole process.

Each mapping may have up to `maximum_concurrency` (1,000) batches in flight, and
without a cap over all of them two mappings to a target that never answers took a
server from 7 to 2,009 threads. So every invocation of every mapping runs on one
pool of at most MAX_THREADS threads, started as they are needed and kept while
idle; an invocation beyond them waits its turn in order, without a thread, and is
counted (`waited`) and shown (`waiting`) in the admin API and the metrics. A target
that never answers holds a pool thread until its timeout (the invocation's
`timeout_seconds`), never one of its own.

The threads are daemons, as the invocation threads were before: a target that never
answers must not keep the process from ending.
"""

import threading
from collections import deque
from collections.abc import Callable

MAX_THREADS = 64


class Invokers:
    """A pool of daemon threads: submit(work) runs work() on one of them, in order."""

    def __init__(self, max_threads: int = MAX_THREADS):
        self.max_threads = max_threads
        self._lock = threading.Lock()
        self._work_ready = threading.Condition(self._lock)
        self._pending: deque[Callable[[], None]] = deque()
        self._threads = 0
        self._idle = 0
        self._running = 0
        self._waited = 0

    def submit(self, work: Callable[[], None]) -> None:
        """Run work() on a pool thread: an idle one, a new one under the cap, or the first
        to come free (the invocation then waits its turn, counted)."""
        with self._lock:
            self._pending.append(work)
            if self._idle >= len(self._pending):
                self._work_ready.notify()
                return
            if self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._serve, name="event-source-invoker", daemon=True).start()
            else:
                self._waited += 1

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._idle += 1
                    self._work_ready.wait()
                    self._idle -= 1
                work = self._pending.popleft()
                self._running += 1
            try:
                work()  # never raises: the poller's _invoke catches everything
            finally:
                with self._lock:
                    self._running -= 1

    def as_dict(self) -> dict:
        with self._lock:
            return {
                "max_threads": self.max_threads,
                "threads": self._threads,
                "running": self._running,
                "waiting": len(self._pending),
                "waited": self._waited,
            }


INVOKERS = Invokers()  # the process's: every server and mapping in it shares the cap
