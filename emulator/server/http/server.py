"""The HTTP server: an asyncio protocol over llhttp (httptools, Node's parser), on uvloop.

Each request is read, parsed and answered on the event loop's thread (connection.py), as
Node answers on the thread that parsed: no hand-over to another thread, which with one
client is pure latency and at saturation CPU (docs/server.md has the measurements that
chose it over granian and uvicorn). What has to wait does so as a future (a long poll, a
commit); the werkzeug app and slow SQS work run on the door's few worker threads
(entry.py). It serves on a loop of its own: the command line's main thread, or the
thread `serve()` and the pytest plugin start in the test process.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import threading

from emulator.server.http.connection import Connection
from emulator.server.http.connections import Connections
from emulator.server.http.entry import App, Entry
from emulator.server.http.limits import Limits
from emulator.server.http.shared import Shared
from emulator.server.http.sockets import listen

READY_TIMEOUT = 10.0  # seconds for the listener to take a connection after start
DESCRIPTORS_BESIDE_CONNECTIONS = 64  # epoll, the store, the loop's own, temporary files
STOP_GRACE = 1.0  # seconds the answers of released long polls may take to be written at shutdown


class HttpServer:
    """`app` on host:port until shutdown(); server_close() then releases its threads."""

    def __init__(self, app: App, host: str, port: int, limits: Limits):
        self.limits = limits
        self._listener = listen(host, port, limits.write_timeout)
        self.server_port = int(self._listener.getsockname()[1])
        _allow_descriptors(limits.max_connections + DESCRIPTORS_BESIDE_CONNECTIONS)
        self._entry = Entry(app)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connections: Connections | None = None
        self._stopping: asyncio.Future | None = None
        self._ready = threading.Event()
        self._stopped = threading.Event()
        self._failure: BaseException | None = None

    def serve_forever(self) -> None:
        """Serve until shutdown(), on this thread (which runs the server's event loop)."""
        loop = _new_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve(loop))
        except BaseException as exc:
            self._failure = exc
            if not self._ready.is_set():
                return  # start() or wait_ready() raises it
            raise
        finally:
            self._ready.set()
            loop.close()
            self._stopped.set()

    async def _serve(self, loop: asyncio.AbstractEventLoop) -> None:
        self._entry.bind(loop)
        connections = self._connections = Connections(loop, self.limits)
        shared = Shared(loop, self.limits, self._entry, connections)
        shared.keep_date()
        server = await loop.create_server(lambda: Connection(shared), sock=self._listener, backlog=1024)
        self._stopping = loop.create_future()
        self._ready.set()
        try:
            await self._stopping
        finally:
            server.close()
            self._entry.release()  # the waiting long polls answer what they have...
            waiting = connections.waiting()
            if waiting:
                await asyncio.wait(waiting, timeout=STOP_GRACE)  # ...and are written, before the close
            connections.close_all()
            await asyncio.sleep(0)  # the connections' losses run before the loop closes

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
        if self._stopping is not None and not self._stopping.done():
            self._stopping.set_result(None)

    def server_close(self) -> None:
        """Release the worker threads and the listening socket (after shutdown(), or when never served)."""
        self._entry.close()
        self._listener.close()


def _new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop where it is installed (a dependency where it ships wheels; its
    transports cost about half of asyncio's a request, docs/server.md), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _allow_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files toward `wanted`, as far as the hard limit allows:
    a common soft limit of 1,024 would refuse connections long before --max-connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
