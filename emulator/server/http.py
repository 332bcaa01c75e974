"""The HTTP server under the WSGI app: waitress, and the limits the emulator sets on it.

waitress (pure Python, chosen by measurement: README "The HTTP server") parses
HTTP/1.1 strictly: an invalid Content-Length is a 400, a Transfer-Encoding
other than chunked a 501, a bad chunk a 400, each closing the connection; chunk
extensions and trailers are accepted. It reads a whole request on its event
loop before a worker thread runs the app, so an idle or slow connection holds
no thread, and it refuses a body over its limit from the Content-Length, or a
chunked one as it passes the limit. What this module adds:

- the 413 in AWS's error shape, in the request's protocol (waitress's is plain text);
- a deadline for a whole request to arrive (line, headers, body), besides
  waitress's idle timeout, which a client trickling a byte now and then resets;
- a connection cap that closes the longest-idle keep-alive connection to make
  room, and refuses a newcomer only when every connection is busy;
- worker threads that grow when all are busy (a long poll holds one for its
  wait), up to the cap of waits plus a few, and shrink again when idle;
- requests the app says never wait (its `answers_at_once(path, headers)`) run on
  the event loop's own thread as soon as they are read: handing a request to a
  worker and back (a lock, a wake-up, the GIL passed twice) cost about a fifth
  of a SendMessage's server CPU.
"""

from __future__ import annotations

import logging
import resource
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, WSGITask
from waitress.utilities import RequestEntityTooLarge

from emulator import protocol
from emulator.errors import SqsError
from emulator.server.event_loop import ParkingLoop
from emulator.server.sqs_request import SqsRequest

log = logging.getLogger("emulator.http")

WORKERS = 8  # threads kept for requests that do not wait; long polls add their own
SPARE_SECONDS = 10.0  # a thread past WORKERS ends after this long without work
CHECK_INTERVAL = 1  # seconds between two checks of the deadlines
DESCRIPTORS_BESIDE_CONNECTIONS = 64  # the listener, the trigger, epoll, the store, temporary body files


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int
    max_connections: int
    max_waits: int
    request_timeout: float  # seconds from a request's first byte to its last
    idle_timeout: float  # seconds a keep-alive connection may wait for its next request


class HttpServer:
    """`app` on host:port until shutdown(); server_close() then ends the worker threads."""

    def __init__(self, app, host: str, port: int, limits: Limits):
        self.limits = limits
        _allow_descriptors(limits.max_connections + DESCRIPTORS_BESIDE_CONNECTIONS)
        self._threads = _Threads(WORKERS, WORKERS + limits.max_waits)
        adjustments = Adjustments(
            host=host,
            port=port,
            max_request_body_size=limits.max_body_bytes,
            # _Server keeps to the cap itself (waitress would stop accepting instead of
            # closing an idle connection); waitress's count also holds its listener and trigger.
            connection_limit=limits.max_connections + 3,
            cleanup_interval=CHECK_INTERVAL,
            backlog=1024,
            # A worker never waits for the loop to flush (its connection may be parked,
            # event_loop.py): a response over 1 MiB goes to a temporary file instead.
            outbuf_high_watermark=1 << 40,
            ident="sqs-emulator",
        )
        self._server = _Server(app, dispatcher=self._threads, adj=adjustments)
        self._server.limits = limits
        self._server.at_once = getattr(app, "answers_at_once", None)
        self.server_port: int = int(self._server.effective_port)
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        """Serve until shutdown()."""
        try:
            self._server.run()
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop accepting and close every connection; returns once serve_forever has."""
        self._server.pull_trigger_with(self._close_all)
        self._stopped.wait()

    def _close_all(self) -> None:  # on the event loop's thread
        for dispatcher in list(self._server._map.values()):
            dispatcher.close()
        self._server._map.clear()

    def server_close(self) -> None:
        """End the worker threads (those in a long poll once the broker has released it)."""
        if not self._stopped.is_set():  # never served: no loop to ask
            self._close_all()
            self._stopped.set()
        self._threads.shutdown()


_serving = threading.local()


class _Answer(WSGITask):
    """waitress's task, sending the header and a body of known length in one send() (it sends two)."""

    wrote_header: bool

    def write(self, data: bytes) -> None:
        whole = self.complete and not self.wrote_header and self.has_body and not self.chunked_response
        if whole and data and self.content_length == len(data):
            self.channel.write_soon(self.build_response_header() + data)
            self.wrote_header = True
            self.content_bytes_written = len(data)
            return
        super().write(data)


class _ErrorAnswer(ErrorTask):
    """waitress's answer to a request it refused; a body over the limit gets AWS's shape."""

    def execute(self) -> None:
        if not isinstance(self.request.error, RequestEntityTooLarge):
            super().execute()
            return
        answer = too_large(self.request.headers, self.channel.server.limits.max_body_bytes)
        body = answer.body
        self.status = "413 Request Entity Too Large"  # werkzeug's reason would be upper case
        self.response_headers.extend(
            (name, value) for name, value in answer.headers if name.lower() != "content-length"
        )
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def too_large(headers: dict[str, str], limit: int) -> protocol.Answer:
    """The 413 for a body over `limit` bytes, in the protocol the request's headers name."""
    # waitress keeps headers as CGI names without the HTTP_ prefix.
    environ = {name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}": v for name, v in headers.items()}
    wire = protocol.detect(SqsRequest(environ))
    error = SqsError("RequestEntityTooLarge", f"Request Entity Too Large: the request body is over {limit} bytes.")
    return protocol.serialize_error(wire, error, str(uuid.uuid4()))


class _Channel(HTTPChannel):
    task_class = _Answer
    error_task_class = _ErrorAnswer
    request_started = 0.0  # time.monotonic() of the first byte of the request being read
    reading = False  # in received(), on the loop's thread
    serve_here = False  # the request just read runs on the loop's thread, once received() is done
    parkable = True  # event_loop.py may leave it out of the loop's turns
    server: _Server

    def add_channel(self, map=None) -> None:
        super().add_channel(map)
        self.server.loop.add(self)

    def del_channel(self, map=None) -> None:
        fd = self._fileno
        super().del_channel(map)
        self.server.loop.forget(fd)

    def service(self) -> None:  # on a worker thread
        _serving.channel = self  # whom the worker's pull_trigger() is about
        try:
            super().service()
        finally:
            _serving.channel = None

    def received(self, data: bytes) -> bool:
        if self.request is None:
            self.request_started = time.monotonic()
        self.reading = True
        try:
            result = super().received(data)  # calls the server's add_task() with a lock held
        finally:
            self.reading = False
        if self.serve_here:
            self.serve_here = False
            self.service()  # a request pipelined behind it goes to a worker (add_task, not reading)
        return result

    def idle(self) -> bool:
        """Between requests of a kept-alive connection: nothing read, running or left to send."""
        return self.request is None and not self.requests and not self.total_outbufs_len


def _allow_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files toward `wanted`, as far as the hard limit allows:
    a common soft limit of 1,024 would refuse connections long before --max-connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class _Server(TcpWSGIServer):
    channel_class = _Channel
    limits: Limits
    at_once = None  # the app's answers_at_once(path, headers), if it has one

    def add_task(self, task) -> None:
        if task.reading and self.at_once is not None:
            request = task.requests[0]
            if request.error is None and self.at_once(request.path, request.headers):
                task.serve_here = True  # by received(), once waitress has let go of its lock
                return
        super().add_task(task)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loop = ParkingLoop(self._map, self.adj.asyncore_loop_timeout)

    def run(self) -> None:
        self.loop.run()

    def pull_trigger(self) -> None:
        channel = getattr(_serving, "channel", None)
        if channel is None or not self.loop.settle(channel):
            super().pull_trigger()

    def pull_trigger_with(self, thunk) -> None:
        self.trigger.pull_trigger(thunk)

    def handle_accept(self) -> None:
        if len(self.active_channels) >= self.limits.max_connections and not self._close_longest_idle():
            accepted = self.accept()
            if accepted is not None:  # every connection is busy: this one waits for none
                accepted[0].close()
            return
        super().handle_accept()

    def _close_longest_idle(self) -> bool:
        idle = [channel for channel in self.active_channels.values() if channel.idle()]
        if not idle:
            return False
        min(idle, key=lambda channel: channel.last_activity).handle_close()
        return True

    def maintenance(self, now: float) -> None:
        idle_since = now - self.limits.idle_timeout  # waitress's last_activity is time.time()
        started_before = time.monotonic() - self.limits.request_timeout
        for channel in list(self.active_channels.values()):
            late = channel.request is not None and channel.request_started < started_before
            if late or (not channel.requests and channel.last_activity < idle_since):
                channel.will_close = True
                self.loop.unpark(channel)


class _Threads:
    """waitress's task dispatcher, growing: `base` threads always, one more
    whenever a task finds them all busy (long polls hold theirs), up to `most`;
    a thread past `base` ends after SPARE_SECONDS without work."""

    def __init__(self, base: int, most: int):
        self._base = base
        self._most = most
        self._tasks: deque = deque()
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._ended = threading.Condition(self._lock)
        self.count = 0
        self._idle = 0
        self._stopping = False

    def add_task(self, task) -> None:
        with self._lock:
            self._tasks.append(task)
            if len(self._tasks) > self._idle and self.count < self._most:
                self._start()
            else:
                self._work.notify()

    def _start(self) -> None:  # with the lock held
        self.count += 1
        threading.Thread(target=self._serve, name=f"sqs-emulator-http-{self.count}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._tasks and not self._stopping:
                    self._idle += 1
                    woken = self._work.wait(SPARE_SECONDS)
                    self._idle -= 1
                    if not woken and not self._tasks and self.count > self._base:
                        break
                if self._stopping or not self._tasks:
                    self.count -= 1
                    self._ended.notify_all()
                    return
                task = self._tasks.popleft()
            try:
                task.service()
            except BaseException:
                log.exception("unexpected error serving %r", task)

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            self._stopping = True
            self._work.notify_all()
            while self.count and time.monotonic() < deadline:
                self._ended.wait(deadline - time.monotonic())
            while self._tasks:
                self._tasks.popleft().cancel()
        return True

    def set_thread_count(self, count: int) -> None:  # waitress's interface; the count follows the load
        pass
