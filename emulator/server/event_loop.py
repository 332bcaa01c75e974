"""waitress's event loop, with connections that have nothing to do left out of each turn.

waitress's own loop (wasyncore.poll2) asks every connection, on every turn,
whether it wants to read or write: with 2,000 long polls or idle keep-alive
connections open, that is milliseconds of Python per turn, and a request
takes a few turns (measured: SendMessage beside 2,000 waiting polls ran at a
quarter of its speed). This loop asks only the connections that may have
something to do. The others are parked:

- waiting for bytes (idle between requests, or a request still arriving): in
  an epoll set, asked again when the kernel says bytes (or EOF) came;
- waiting for their worker thread (a long poll, or any request being served):
  asked again when the worker would wake the loop (waitress's pull_trigger);
  a worker that leaves its connection with nothing to do but read parks it for
  reading itself, and the loop is not woken at all.

A parked connection's state changes only through those doors, or on the
loop's own thread (the deadline sweep, the connection cap), which unparks it
first. The dispatchers and their handlers are waitress's, untouched.
"""

from __future__ import annotations

import contextlib
import select
import threading
from collections import deque
from typing import Any

from waitress.wasyncore import readwrite

READ = select.POLLIN | select.POLLPRI
WRITE = select.POLLOUT


class ParkingLoop:
    def __init__(self, socket_map: dict, timeout: float):
        self._map = socket_map  # fd -> dispatcher, waitress's
        self._timeout_ms = int(timeout * 1000)
        self._active: dict[int, Any] = dict(socket_map)  # asked every turn
        self._reading: dict[int, Any] = {}  # parked in the epoll set
        self._serving: dict[int, Any] = {}  # parked until their worker wakes them
        self._woken: deque = deque()  # appended by worker threads
        self._epoll = select.epoll()
        # The three dicts and the epoll set, between loop and workers; re-entered when the
        # listener's readable() runs the deadline sweep, which unparks.
        self._lock = threading.RLock()

    def add(self, dispatcher) -> None:
        """A new connection (on the loop's thread)."""
        with self._lock:
            self._active[dispatcher._fileno] = dispatcher

    def forget(self, fd: int) -> None:
        """A connection is closing (on the loop's thread, before its socket closes)."""
        with self._lock:
            self._active.pop(fd, None)
            self._serving.pop(fd, None)
            if self._reading.pop(fd, None) is not None:
                with contextlib.suppress(OSError):
                    self._epoll.unregister(fd)

    def unpark(self, dispatcher) -> None:
        """On the loop's thread: ask `dispatcher` again from the next turn."""
        with self._lock:
            self._unpark(dispatcher)

    def settle(self, dispatcher: Any) -> bool:
        """From a worker thread about to wake the loop for `dispatcher`: True when
        the loop need not wake, the connection now only waiting for bytes (parked
        for them here); else it is queued for the loop's next turn."""
        with self._lock:
            fd = dispatcher._fileno
            closed = fd is None or self._map.get(fd) is not dispatcher
            if closed:
                return False
            if dispatcher.readable() and not dispatcher.writable():
                if fd not in self._reading:
                    self._active.pop(fd, None)
                    self._serving.pop(fd, None)
                    self._park_for_reading(fd, dispatcher)
                return True
            self._woken.append(dispatcher)
            return False

    def _unpark(self, dispatcher) -> None:  # with the lock held
        fd = dispatcher._fileno
        if fd is None:
            return
        if self._reading.pop(fd, None) is not None:
            self._epoll.unregister(fd)
        self._serving.pop(fd, None)
        self._active[fd] = dispatcher

    def _park_for_reading(self, fd: int, dispatcher) -> None:  # with the lock held
        self._reading[fd] = dispatcher
        self._epoll.register(fd, select.EPOLLIN)

    def run(self) -> None:
        try:
            while self._map:
                self._turn()
        finally:
            self._epoll.close()

    def _turn(self) -> None:
        pollster = select.poll()
        pollster.register(self._epoll.fileno(), select.POLLIN)
        with self._lock:
            self._ask(pollster)
        try:
            ready = pollster.poll(self._timeout_ms)
        except InterruptedError:
            return
        for fd, flags in ready:
            if fd == self._epoll.fileno():
                self._bytes_came()
                continue
            dispatcher = self._map.get(fd)
            if dispatcher is not None:
                readwrite(dispatcher, flags)

    def _ask(self, pollster) -> None:  # with the lock held
        while self._woken:
            dispatcher = self._woken.popleft()
            if self._map.get(dispatcher._fileno) is dispatcher:
                self._unpark(dispatcher)
        for fd, dispatcher in list(self._active.items()):
            closed = self._map.get(fd) is not dispatcher
            if closed:
                del self._active[fd]
                continue
            reads = dispatcher.readable()
            if dispatcher.writable() and not dispatcher.accepting:
                pollster.register(fd, WRITE | (READ if reads else 0))
            elif not getattr(dispatcher, "parkable", False):  # the listener and the trigger stay
                if reads:
                    pollster.register(fd, READ)
            elif reads:
                del self._active[fd]
                self._park_for_reading(fd, dispatcher)
            else:  # a worker serves it and will wake the loop or settle it
                del self._active[fd]
                self._serving[fd] = dispatcher

    def _bytes_came(self) -> None:
        for fd, _ in self._epoll.poll(0):
            with self._lock:
                dispatcher = self._reading.get(fd)
                if dispatcher is None:
                    continue
                self._unpark(dispatcher)
            if self._map.get(fd) is dispatcher:
                readwrite(dispatcher, select.POLLIN)
