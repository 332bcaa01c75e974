"""What a queue's long polls wait on: a condition on the queue's lock that wakes
callbacks as well as blocked threads.

A thread that may block (the WSGI path, consumers in the process) waits as on a
`threading.Condition`. A server that waits without a thread per poll (an event
loop) registers a callback instead, which is called, with the queue's lock held,
where a blocked thread would have been notified; it must only schedule its work
(for example `loop.call_soon_threadsafe`), never take the queue's lock itself.
Each notify() wakes one waiter of either kind, oldest callback first: one message
made visible wakes one poll.
"""

import threading
from collections import deque
from collections.abc import Callable


class Wakeups:
    def __init__(self, lock: threading.Lock):
        self._threads = threading.Condition(lock)
        self._callbacks: deque[Callable[[], None]] = deque()

    def wait(self, timeout: float | None = None) -> bool:
        """Block (the lock held, released while waiting) until notified or `timeout` passes."""
        return self._threads.wait(timeout)

    def watch(self, callback: Callable[[], None]) -> None:
        """Call `callback` once, at the next notify that reaches it (the lock held)."""
        self._callbacks.append(callback)

    def unwatch(self, callback: Callable[[], None]) -> None:
        """Forget `callback` if it has not been called (the lock held)."""
        try:
            self._callbacks.remove(callback)
        except ValueError:
            pass

    def notify(self, n: int = 1) -> None:
        callbacks = self._callbacks
        while n and callbacks:
            callbacks.popleft()()
            n -= 1
        if n:
            self._threads.notify(n)

    def notify_all(self) -> None:
        callbacks, self._callbacks = self._callbacks, deque()
        for callback in callbacks:
            callback()
        self._threads.notify_all()
