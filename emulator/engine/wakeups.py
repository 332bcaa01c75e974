"""What a queue's long polls wait on: callbacks, called with the queue's lock held.

No thread blocks here. A waiter registers a callback (watch), which must only schedule
its work (an event loop's `call_soon_threadsafe`, a `threading.Event`'s set()), never
take the queue's lock itself. A receiver's callback is called once, at the notify that
reaches it: each notify() wakes one receiver, oldest first, so one message made visible
wakes one poll. Every callback, a receiver's or another watcher's (a consumer backing
off, which messages must not wake), is called at notify_all(): the queue was deleted,
the clock moved, or a consumer stops, and each waiter looks again.
"""

from collections import deque
from collections.abc import Callable

Callback = Callable[[], None]


class Wakeups:
    def __init__(self):
        self._receivers: deque[Callback] = deque()
        self._others: list[Callback] = []

    def watch(self, callback: Callback, receiving: bool = True) -> None:
        (self._receivers if receiving else self._others).append(callback)

    def unwatch(self, callback: Callback, receiving: bool = True) -> bool:
        """Forget `callback`; False when it was already called (it was woken)."""
        try:
            (self._receivers if receiving else self._others).remove(callback)
        except ValueError:
            return False
        return True

    def notify(self) -> None:
        if self._receivers:
            self._receivers.popleft()()

    def notify_all(self) -> None:
        receivers, self._receivers = self._receivers, deque()
        others, self._others = self._others, []
        for callback in (*receivers, *others):
            callback()
