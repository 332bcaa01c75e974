"""The app's door on the HTTP server: what a connection (connection.py) asks of the app.

An SQS request that never waits (a send, a delete, ...) is answered at once, on the
event loop, where it was read. What has to wait does so without a thread of its own
(pending.py): a long poll waits on its queue's wake-up (Queue.watch), a reply under
--sync always on the store's commit (Store.when_durable). Slow SQS work (a purge, a
queue's deletion) and werkzeug's way (the admin API, the dashboard, other emulators'
paths, other methods) run on a few worker threads.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import uuid
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from emulator import protocol
from emulator.api import Wait
from emulator.errors import SqsError
from emulator.protocol import Answer, HttpRequest
from emulator.server.http.connection import Peer
from emulator.server.http.limits import Limits
from emulator.server.pending import Pending
from emulator.store import Store

log = logging.getLogger("emulator.http")

WORKERS = 8  # threads for werkzeug's way and slow SQS work; nothing that waits for messages holds one


class App(Protocol):
    """What the entry asks of an app (emulator/server/app.py's EmulatorApp)."""

    def takes_werkzeug(self, method: str, path: str) -> bool:
        """Whether a request goes to the WSGI app (__call__) on a worker thread."""

    def refused_early(self, request: HttpRequest) -> Answer | None:
        """The answer to a request refused from its head alone (no body read yet)."""

    def answer(self, request: HttpRequest, blocking: bool) -> Answer | Pending:
        """The sans-IO door, called on the event loop."""

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """The WSGI app."""


class Entry:
    """`app` as the connections' door, under `limits`."""

    def __init__(self, app: App, limits: Limits):
        self.app = app
        self.limits = limits
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="sqs-emulator-http")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: set[asyncio.Future] = set()  # long polls' wake-ups, all ended by release()
        self._released = False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    # -- the door ------------------------------------------------------------------------

    def early(self, request: HttpRequest) -> Answer | None:
        return self.app.refused_early(request)

    def refusal(self, request: HttpRequest, code: str, message: str) -> Answer:
        return protocol.serialize_error(protocol.detect(request), SqsError(code, message), str(uuid.uuid4()))

    def start(self, request: HttpRequest, peer: Peer) -> Answer | Coroutine[Any, Any, Answer]:
        if self.app.takes_werkzeug(request.method, request.path):
            return self._call_werkzeug(request, peer)
        outcome = self.app.answer(request, blocking=False)
        if isinstance(outcome, Pending):
            return self._settled(outcome)
        return outcome

    async def _settled(self, outcome: Answer | Pending) -> Answer:
        while isinstance(outcome, Pending):
            outcome = await self._settle(outcome)
        return outcome

    # -- waiting -----------------------------------------------------------------------

    async def _settle(self, pending: Pending):
        if pending.wait is not None:
            try:
                output: dict | Exception = await self._messages(pending.wait)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the attempt's own SqsError, or a bug: the app answers it
                output = exc
            return pending.resume(output)
        if pending.durable is not None:
            return pending.resume(await self._commit(pending.durable))
        assert self._loop is not None
        return await self._loop.run_in_executor(self._pool, pending.resume, None)

    async def _messages(self, wait: Wait) -> dict:
        """A long poll's output: once a message came for it, or its deadline. Cancelled (its
        client went away), it leaves its place and takes no message."""
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
                    try:
                        await woken
                    finally:
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

    async def _call_werkzeug(self, request: HttpRequest, peer: Peer) -> Answer:
        assert self._loop is not None
        return await self._loop.run_in_executor(self._pool, _call_wsgi, self.app, _environ(request, peer))


def _resolve(future: asyncio.Future, value) -> None:
    if not future.done():
        future.set_result(value)


def _environ(request: HttpRequest, peer: Peer) -> dict:
    """The WSGI environ (PEP 3333) of a request read by the HTTP server."""
    environ = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": request.path.encode().decode("latin-1"),
        "QUERY_STRING": request.query_string,
        "RAW_URI": request.raw_path + ("?" + request.query_string if request.query_string else ""),
        "SERVER_NAME": peer.server,
        "SERVER_PORT": str(peer.port),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": peer.client,
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


def _call_wsgi(app: App, environ: dict) -> Answer:
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
    return Answer(status, list(headers), body)
