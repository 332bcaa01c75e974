"""The app's door for the HTTP server: granian's RSGI interface, on its event loop.

A request is read whole under the limits (its body refused from its length before
it is read when over --max-body-bytes, or as a chunked body passes it; the body
by --request-timeout), then answered where it was read: an SQS request that never
waits (a send, a delete, ...) runs on the event loop, without a hand-off to a
thread. What has to wait does so without a thread of its own (pending.py): a long
poll waits on its queue's wake-up (Queue.watch), a reply under --sync always on
the store's commit (Store.when_durable). Slow SQS work (a purge, a queue's
deletion) and werkzeug's way (the admin API, the dashboard, other emulators'
paths, other methods) run on a few worker threads.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from emulator import protocol
from emulator.api import Wait
from emulator.errors import SqsError
from emulator.protocol import Answer, HttpRequest
from emulator.protocol.request import joined
from emulator.server.failures import log_internal_error
from emulator.server.http.deadlines import BodyDeadlines
from emulator.server.http.limits import Limits
from emulator.server.pending import Pending
from emulator.store import Store

log = logging.getLogger("emulator.http")

WORKERS = 8  # threads for werkzeug's way and slow SQS work; nothing that waits for messages holds one
CLOSE = ("connection", "close")
TRAILERS = "The chunked request body is malformed or incomplete (trailer fields are not accepted)."


class App(Protocol):
    """What the entry asks of an app (emulator/server/app.py's EmulatorApp)."""

    def takes_werkzeug(self, method: str, path: str) -> bool:
        """Whether a request goes to the WSGI app (__call__) on a worker thread."""

    def answer(self, request: HttpRequest, blocking: bool) -> Answer | Pending:
        """The sans-IO door, called on the event loop."""

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """The WSGI app."""


class Entry:
    """`app` behind granian's RSGI interface (its __rsgi__ protocol), under `limits`."""

    def __init__(self, app: App, limits: Limits):
        self.app = app
        self.limits = limits
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="sqs-emulator-http")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: set[asyncio.Future] = set()  # long polls' wake-ups, all ended by release()
        self._deadlines = BodyDeadlines(limits.request_timeout)
        self._released = False

    # -- granian's RSGI protocol ------------------------------------------------------

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        pass

    async def __rsgi__(self, scope, proto) -> None:
        if scope.proto != "http":  # websockets are off: granian never hands one over
            return
        try:
            status, headers, body = await self._serve(scope, proto)
        except Exception as exc:  # a bug of ours: an answer still, and the loop keeps serving
            log_internal_error(log, f"serving {scope.method}", exc)
            status, headers, body = 500, [CLOSE], b""
        proto.response_bytes(status, headers, body)

    async def _serve(self, scope, proto) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = joined(scope.headers.items())
        request = HttpRequest(scope.method, scope.path, scope.query_string, headers, b"", scope.scheme)
        refused = await self._read_body(request, proto)
        if refused is not None:
            return refused.status, [*refused.headers, CLOSE], refused.body
        if self.app.takes_werkzeug(request.method, request.path):
            return await self._call_werkzeug(request, scope)
        outcome = self.app.answer(request, blocking=False)
        while isinstance(outcome, Pending):
            outcome = await self._settle(outcome)
        return outcome.status, outcome.headers, outcome.body

    # -- reading -----------------------------------------------------------------------

    async def _read_body(self, request: HttpRequest, proto) -> Answer | None:
        """Read the body into `request`, or the refusal to answer instead (and close)."""
        headers = request.headers
        # hyper has refused a malformed length, and dropped the length of a chunked body
        # (RFC 9112 6.1: the coding alone frames it, and the connection closes after it).
        length = headers.get("content-length")
        chunked = "transfer-encoding" in headers
        limit = self.limits.max_body_bytes
        if length is not None and int(length) > limit:  # hyper has checked that it is a number
            return self._too_large(request)
        if length is None and not chunked:
            return None  # no body
        try:
            with self._deadlines.reading(self._loop):  # type: ignore[arg-type]
                if not chunked:
                    request.body = await proto()
                    return None
                received: list[bytes] = []
                size = 0
                ended = False
                async for chunk in proto:
                    if ended:  # granian passes a broken body, and trailers, as an empty chunk before its end
                        return self._refusal(request, "MalformedRequest", TRAILERS)
                    ended = not chunk
                    size += len(chunk)
                    if size > limit:
                        return self._too_large(request)
                    received.append(chunk)
                request.body = b"".join(received)
        except TimeoutError:
            return self._refusal(request, "RequestTimeout", "The request body did not arrive in time.")
        except Exception:  # the body broke off, or a bad chunk: nothing of it runs
            return self._refusal(request, "MalformedRequest", "The request body is malformed or incomplete.")
        return None

    def _too_large(self, request: HttpRequest) -> Answer:
        limit = self.limits.max_body_bytes
        message = f"Request Entity Too Large: the request body is over {limit} bytes."
        return self._refusal(request, "RequestEntityTooLarge", message)

    def _refusal(self, request: HttpRequest, name: str, message: str) -> Answer:
        """An error of the HTTP layer, in the protocol the request's headers name."""
        return protocol.serialize_error(protocol.detect(request), SqsError(name, message), str(uuid.uuid4()))

    # -- waiting -----------------------------------------------------------------------

    async def _settle(self, pending: Pending):
        if pending.wait is not None:
            try:
                output: dict | Exception = await self._messages(pending.wait)
            except Exception as exc:  # the attempt's own SqsError, or a bug: the app answers it
                output = exc
            return pending.resume(output)
        if pending.durable is not None:
            return pending.resume(await self._commit(pending.durable))
        assert self._loop is not None
        return await self._loop.run_in_executor(self._pool, pending.resume, None)

    async def _messages(self, wait: Wait) -> dict:
        """A long poll's output: once a message came for it, or its deadline."""
        if self._released or not wait.places.enter():
            return wait.attempt(True) or {}  # past --max-waits: answered at once (counted)
        loop = self._loop
        assert loop is not None
        end = loop.time() + wait.deadline.real_seconds
        try:
            while True:
                woken = loop.create_future()

                def wake(woken=woken) -> None:  # with the queue's lock held, on any thread
                    loop.call_soon_threadsafe(_resolve, woken, None)

                wait.queue.watch(wake)
                self._waiting.add(woken)
                try:
                    output = wait.attempt(False)  # after watch(): a message that comes now wakes it
                    if output is not None:
                        return output
                    remaining = end - loop.time()
                    if remaining <= 0 or wait.deadline.passed() or self._released:
                        return wait.attempt(True) or {}
                    timer = loop.call_later(remaining, _resolve, woken, None)
                    await woken
                    timer.cancel()
                finally:
                    self._waiting.discard(woken)
                    wait.queue.unwatch(wake)
        finally:
            wait.places.leave()

    async def _commit(self, store: Store) -> Exception | None:
        """Once the store has made every change so far durable: None, or the write's error."""
        loop = self._loop
        assert loop is not None
        committed = loop.create_future()

        def done(error: Exception | None) -> None:  # on the store's writing thread
            loop.call_soon_threadsafe(_resolve, committed, error)

        return await committed if store.when_durable(done) else None

    def release(self) -> None:
        """End every wait now and answer new ones at once (the server is stopping); on the loop."""
        self._released = True
        for woken in list(self._waiting):
            _resolve(woken, None)

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    # -- werkzeug's way ----------------------------------------------------------------

    async def _call_werkzeug(self, request: HttpRequest, scope) -> tuple[int, list[tuple[str, str]], bytes]:
        assert self._loop is not None
        environ = _environ(request, scope)
        return await self._loop.run_in_executor(self._pool, _call_wsgi, self.app, environ)


def _resolve(future: asyncio.Future, value) -> None:
    if not future.done():
        future.set_result(value)


def _environ(request: HttpRequest, scope) -> dict:
    """The WSGI environ (PEP 3333) of a request read by the RSGI entry."""
    server, _, server_port = scope.server.rpartition(":")
    client = scope.client.rpartition(":")[0]
    environ = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": request.path.encode().decode("latin-1"),
        "QUERY_STRING": request.query_string,
        "SERVER_NAME": server.strip("[]"),
        "SERVER_PORT": server_port,
        "SERVER_PROTOCOL": f"HTTP/{scope.http_version}",
        "REMOTE_ADDR": client.strip("[]"),
        "CONTENT_LENGTH": str(len(request.body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": request.scheme,
        "wsgi.input": io.BytesIO(request.body),
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in request.headers.items():
        if name == "content-type":
            environ["CONTENT_TYPE"] = value
        elif name != "content-length":
            environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


def _call_wsgi(app: App, environ: dict) -> tuple[int, list[tuple[str, str]], bytes]:
    """The WSGI app's answer to `environ`, whole (on a worker thread)."""
    started: list = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info=None):
        started[:] = [int(status.split(" ", 1)[0]), headers]

    result = app(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    status, headers = started
    return status, list(headers), body
