"""The HTTP server: granian (Rust, on hyper), embedded, with the app behind its RSGI entry.

Chosen by throughput at saturation (docs/server.md): hyper parses HTTP/1.1 strictly
(a malformed Content-Length or chunk size, a transfer coding other than chunked, an
HTTP/0.9 or HTTP/2 request line: a 400, and the connection closed; Content-Length
beside chunked: processed by the coding alone and closed), and keeps at most one
answer unsent per connection (no request of a connection is read while its answer
waits to be written). Embedded (granian.server.embed, the documented way to run it in
a process of one's own; granian marks it experimental), it serves on an asyncio loop
of ours: the command line's main thread, or the thread `serve()` and the pytest
plugin start in the test process. Used through its documented API only.

On Linux granian binds with SO_REUSEPORT, which would let a second emulator share a
busy port; so the port is first bound here without it, which fails (EADDRINUSE) where
any server listens, and picked here when 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
import threading
import time

from granian.constants import HTTPModes, Interfaces
from granian.http import HTTP1Settings
from granian.log import LogLevels
from granian.server.embed import Server

from emulator.server.http.entry import App, Entry
from emulator.server.http.limits import Limits
from emulator.server.http.sockets import set_write_deadline

READY_TIMEOUT = 10.0  # seconds for the listener to take a connection after start
BACKLOG = 1024
DESCRIPTORS_BESIDE_CONNECTIONS = 64  # epoll, the store, the loop's own, temporary files
# granian's loggers at their level, leaving every other logger and handler of the process
# alone (granian's default configuration replaces the process's handlers).
LOGGING = {"version": 1, "incremental": True, "formatters": {}, "handlers": {}, "loggers": {}}


class HttpServer:
    """`app` on host:port until shutdown(); server_close() then releases its threads."""

    def __init__(self, app: App, host: str, port: int, limits: Limits):
        self.limits = limits
        address, self.server_port = _claim(host, port)
        self._connect_to = _reachable(address)
        _allow_descriptors(limits.max_connections + DESCRIPTORS_BESIDE_CONNECTIONS)
        self._entry = Entry(app, limits)
        self._granian = Server(
            self._entry,
            address=address,
            port=self.server_port,
            interface=Interfaces.RSGI,
            http=HTTPModes.http1,
            websockets=False,
            backlog=BACKLOG,
            backpressure=limits.max_connections,
            http1_settings=HTTP1Settings(
                # hyper's one deadline for a request's head, which also ends a kept-alive connection's wait.
                header_read_timeout=max(1, int(min(limits.request_timeout, limits.idle_timeout) * 1000)),
            ),
            log_level=LogLevels.error,  # its "experimental" warning at every start says nothing to a user
            log_dictconfig=LOGGING,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stopped = threading.Event()
        self._failure: BaseException | None = None

    def serve_forever(self) -> None:
        """Serve until shutdown(), on this thread (which runs the server's event loop)."""
        loop = _new_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:
            self._failure = exc
            if not self._ready.is_set():
                return  # start() or wait_ready() raises it
            raise
        finally:
            self._ready.set()
            loop.close()
            self._stopped.set()

    async def _serve(self) -> None:
        serving = asyncio.ensure_future(self._granian.serve())
        await _until_listening(serving, self._connect_to, self.server_port)
        set_write_deadline(self.server_port, self.limits.write_timeout)
        self._ready.set()
        await serving

    def start(self, name: str = "sqs-emulator-http") -> threading.Thread:
        """serve_forever() on a daemon thread of that name, returned once the server takes
        connections; raises (the thread ended) what stopped it from starting."""
        thread = threading.Thread(target=self.serve_forever, name=name, daemon=True)
        thread.start()
        try:
            self.wait_ready()
        except BaseException:
            self.shutdown()
            thread.join()
            raise
        return thread

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        """Return once the server takes connections (from another thread than serve_forever's);
        raises what stopped it from starting."""
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the HTTP server did not start within {timeout:g} s")
        if self._failure is not None:
            raise self._failure

    def shutdown(self) -> None:
        """Stop accepting, answer the waiting long polls, close every connection; returns
        once serve_forever has."""
        loop = self._loop
        if loop is not None and not self._stopped.is_set():
            with contextlib.suppress(RuntimeError):  # its loop just closed: it stopped anyway
                loop.call_soon_threadsafe(self._stop)
            self._stopped.wait()

    def _stop(self) -> None:  # on the loop
        self._entry.release()
        self._granian.stop()

    def server_close(self) -> None:
        """Release the worker threads (after shutdown(), or when never served)."""
        self._entry.close()


def _new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop where it is installed (a dependency where it ships wheels): granian wakes the
    loop from its own threads for every request, and uvloop's wake-ups cost about a third of
    asyncio's (docs/server.md); else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _claim(host: str, port: int) -> tuple[str, int]:
    """The address to listen on for `host`, and the port: `port` if no server listens on it
    (OSError if one does, or the host is not this machine's), else a free one for 0."""
    family, _, _, _, sockaddr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR as a server sets it: a port with connections in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(sockaddr)
        return str(sockaddr[0]), int(probe.getsockname()[1])


def _reachable(address: str) -> str:
    """Where a client of this machine reaches a listener on `address`."""
    if address == "0.0.0.0":
        return "127.0.0.1"
    if address == "::":
        return "::1"
    return address


async def _until_listening(serving: asyncio.Future, host: str, port: int) -> None:
    """Return once a connection to host:port is taken; what `serving` raised if it ends first."""
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if serving.done():
            serving.result()  # raises why it could not start
            raise OSError(f"the HTTP server on port {port} stopped before it listened")
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the HTTP server did not listen on port {port}") from None
            await asyncio.sleep(0.0002)
            continue
        writer.close()
        return


def _allow_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files toward `wanted`, as far as the hard limit allows:
    a common soft limit of 1,024 would refuse connections long before --max-connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
