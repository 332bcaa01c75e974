"""A queue's long polls: who waits for its messages, and the receive that answers them
once they need wait no more. A member of each queue (`queue.polls`).

Nothing here blocks: a waiter watches (watch(), a callback: wakeups.py), then polls
(poll(), which answers None while a long poll would wait on), and polls again when
woken, until its deadline (Clock.deadline) ends the wait with poll(last=True). The
server's two drivers wait so (emulator/server/drivers.py: futures on the event loop,
or wait_here() on the calling thread), and so does an event source's poller.
"""

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from emulator.engine.clock import Deadline
from emulator.engine.message import Delivery
from emulator.engine.wakeups import Callback, Wakeups

T = TypeVar("T")


class LongPolls:
    def __init__(
        self,
        lock: threading.Lock,
        wakeups: Wakeups,
        may_end: Callable[[str | None], bool],
        receive: Callable[[int, int, int, str | None], list[Delivery]],
    ):
        self._lock = lock  # the queue's
        self._wakeups = wakeups
        self._may_end = may_end  # whether a receive (of this attempt id) need wait no more; the lock held
        self._receive = receive  # the queue's receive, the lock held
        self._waiting = 0  # receivers watching now

    def poll(
        self,
        max_messages: int,
        visibility_timeout: int,
        wait_seconds: int,
        attempt_id: str | None = None,
        last: bool = False,
    ) -> list[Delivery] | None:
        """What a receive answers now, or None while a long poll (wait_seconds > 0) would
        wait on; `last` (its wait is over) always answers."""
        with self._lock:
            if wait_seconds > 0 and not last and not self._may_end(attempt_id):
                return None
            return self._receive(max_messages, visibility_timeout, wait_seconds, attempt_id)

    def ready(self) -> bool:
        """Whether a receive would get a message now, or the queue is gone."""
        with self._lock:
            return self._may_end(None)

    def watch(self, callback: Callback, receiving: bool = True) -> None:
        """Call `callback` once (the queue's lock held: it must only schedule its work) when a
        receive may now get a message, or at wake_all(); a receiver counts as waiting until
        unwatch(). Not `receiving` (a consumer backing off): only wake_all() calls it."""
        with self._lock:
            self._waiting += receiving
            self._wakeups.watch(callback, receiving)

    def unwatch(self, callback: Callback, receiving: bool = True, leaving: bool = True) -> None:
        """Stop watching. A receiver `leaving` (it polls no more: it answered, or its client
        left) that was woken passes the wake-up on while there is a message, so no message
        waits beside a waiting poll; one that polls again at once (not leaving) keeps it."""
        with self._lock:
            self._waiting -= receiving
            woken = not self._wakeups.unwatch(callback, receiving)
            if woken and leaving and receiving and self._may_end(None):
                self._wakeups.notify()

    def waiting(self) -> int:
        """Receivers in a long poll now (watching)."""
        with self._lock:
            return self._waiting

    def wake_all(self) -> None:
        """Every waiter looks again (the manual clock moved, or a consumer stops)."""
        with self._lock:
            self._wakeups.notify_all()


def wait_here(
    polls: LongPolls, deadline: Deadline, attempt: Callable[[bool], T | None], receiving: bool = True
) -> T | None:
    """On the calling thread: attempt(False) now and at each wake-up until it answers (not
    None), or attempt(True) once `deadline` has passed."""
    end = time.monotonic() + deadline.real_seconds
    while True:
        woken = threading.Event()
        wake = woken.set
        polls.watch(wake, receiving)
        leaving = True
        try:
            answer = attempt(False)
            if answer is not None:
                return answer
            remaining = end - time.monotonic()
            if remaining <= 0 or deadline.passed():
                return attempt(True)
            woken.wait(remaining)
            leaving = False  # it polls again at once
        finally:
            polls.unwatch(wake, receiving, leaving)
