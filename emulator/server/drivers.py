"""The two ways an SQS answer is driven (design.md, "The front door").

`EmulatorApp.answer(request)` hands back an Answer, or a Pending (pending.py) that
names what it waits for; a driver supplies that and calls `resume()` until there is
an answer. Both wait for the same things through the same doors: a long poll on its
queue's wake-ups (`queue.polls.watch`, engine/long_polls.py) until its deadline
(`Clock.deadline`), holding a place under --max-waits (`Waits.place`, the one gate);
a reply under --sync always on the store's commit (`Store.when_durable`).

- `LoopDriver`, the HTTP server's: on its asyncio event loop, a long poll is a
  future and holds no thread; slow work and werkzeug's way (the admin API, the
  dashboard, other emulators' paths, other methods) run on the server's few worker
  threads. Cancel-safe: a request whose task is cancelled (its client went away)
  stops waiting at once, leaves its place and takes no message.
- `on_thread`, for the WSGI callable (`EmulatorApp.__call__`: any WSGI server,
  werkzeug's test client, the in-process benchmark): the calling thread waits.
"""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import Executor
from typing import Any, Protocol

from emulator.api import Wait
from emulator.engine.long_polls import wait_here
from emulator.protocol import Answer, HttpRequest, Peer
from emulator.server.pending import Pending
from emulator.store import Store


class App(Protocol):
    """What a driver asks of the app (emulator/server/app.py's EmulatorApp)."""

    def takes_werkzeug(self, method: str, path: str) -> bool:
        """Whether a request takes werkzeug's way (the WSGI app) rather than answer()."""

    def answer(self, request: HttpRequest) -> Answer | Pending:
        """An SQS request's answer, or what it waits for; never blocks."""

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """The WSGI app."""


# -- the thread driver ------------------------------------------------------------------


def on_thread(outcome: Answer | Pending) -> Answer:
    """The answer, once the calling thread has waited for what `outcome` waits for."""
    while isinstance(outcome, Pending):
        if outcome.wait is not None:
            try:
                value: object = _messages_here(outcome.wait)
            except Exception as exc:  # the attempt's own SqsError, or a bug: the app answers it
                value = exc
        elif outcome.commit is not None:
            value = committed_here(outcome.commit)
        else:
            value = None  # slow work runs here, on this thread
        outcome = outcome.resume(value)
    return outcome


def _messages_here(wait: Wait) -> dict:
    with wait.places.place() as admitted:
        if not admitted:
            return wait.attempt(True) or {}  # past --max-waits: answered at once (counted)
        return wait_here(wait.queue.polls, wait.deadline, wait.attempt) or {}


def committed_here(store: Store) -> Exception | None:
    """Once the store has made every change so far durable: None, or the write's error."""
    done = threading.Event()
    told: list[Exception | None] = [None]

    def tell(error: Exception | None) -> None:  # on the store's writing thread
        told[0] = error
        done.set()

    if store.when_durable(tell):
        done.wait()
    return told[0]


# -- the event loop's driver ------------------------------------------------------------


class LoopDriver:
    """Answers requests on `loop` (run() is called there), with `pool` for slow work."""

    def __init__(self, app: App, loop: asyncio.AbstractEventLoop, pool: Executor):
        self.app = app
        self._loop = loop
        self._pool = pool
        self._waiting: set[asyncio.Future] = set()  # long polls' wake-ups, all ended by release()
        self._released = False

    def start(self, request: HttpRequest, peer: Peer) -> Answer | Coroutine[Any, Any, Answer]:
        """The answer to a request read whole, now when nothing waits (most requests: no
        coroutine, no task), else a coroutine that ends with it."""
        if self.app.takes_werkzeug(request.method, request.path):
            return self._werkzeug(request, peer)
        outcome = self.app.answer(request)
        return outcome if isinstance(outcome, Answer) else self._settled(outcome)

    async def run(self, request: HttpRequest, peer: Peer) -> Answer:
        """The answer to a request read whole (its body included)."""
        outcome = self.start(request, peer)
        return outcome if isinstance(outcome, Answer) else await outcome

    async def _werkzeug(self, request: HttpRequest, peer: Peer) -> Answer:
        return await self._loop.run_in_executor(self._pool, call_wsgi, self.app, wsgi_environ(request, peer))

    async def _settled(self, outcome: Answer | Pending) -> Answer:
        while isinstance(outcome, Pending):
            outcome = await self._settle(outcome)
        return outcome

    def release(self) -> None:
        """End every wait now and answer new ones at once (the server is stopping); on the loop."""
        self._released = True
        for woken in list(self._waiting):
            _resolve(woken, None)

    async def _settle(self, pending: Pending) -> Answer | Pending:
        if pending.wait is not None:
            try:
                output: dict | Exception = await self._messages(pending.wait)
            except Exception as exc:  # the attempt's own SqsError, or a bug: the app answers it
                output = exc
            return pending.resume(output)
        if pending.commit is not None:
            return pending.resume(await self._commit(pending.commit))
        return await self._loop.run_in_executor(self._pool, pending.resume, None)

    async def _messages(self, wait: Wait) -> dict:
        """A long poll's output: once a message came for it, or at its deadline. Cancelled
        (its client went away), it stops watching and leaves its place, having taken nothing."""
        loop = self._loop
        polls = wait.queue.polls
        with wait.places.place() as admitted:
            if not admitted or self._released:
                return wait.attempt(True) or {}  # past --max-waits, or stopping: answered at once
            end = loop.time() + wait.deadline.real_seconds
            while True:
                woken = loop.create_future()

                def wake(woken=woken) -> None:  # with the queue's lock held, on any thread
                    loop.call_soon_threadsafe(_resolve, woken, None)

                polls.watch(wake)
                self._waiting.add(woken)
                timer = None
                leaving = True
                try:
                    output = wait.attempt(False)  # after watch(): a message that comes now wakes it
                    if output is not None:
                        return output
                    remaining = end - loop.time()
                    if remaining <= 0 or wait.deadline.passed() or self._released:
                        return wait.attempt(True) or {}
                    timer = loop.call_later(remaining, _resolve, woken, None)
                    await woken
                    leaving = False  # it polls again at once
                finally:
                    if timer is not None:
                        timer.cancel()
                    self._waiting.discard(woken)
                    polls.unwatch(wake, leaving=leaving)  # woken but cancelled: the wake-up passes on

    async def _commit(self, store: Store) -> Exception | None:
        """Once the store has made every change so far durable: None, or the write's error."""
        loop = self._loop
        committed = loop.create_future()

        def done(error: Exception | None) -> None:  # on the store's writing thread
            loop.call_soon_threadsafe(_resolve, committed, error)

        return await committed if store.when_durable(done) else None


def _resolve(future: asyncio.Future, value) -> None:
    if not future.done():
        future.set_result(value)


# -- werkzeug's way -----------------------------------------------------------------------


def wsgi_environ(request: HttpRequest, peer: Peer) -> dict:
    """The WSGI environ (PEP 3333) of a request the transport read whole."""
    environ = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": request.path.encode().decode("latin-1"),
        "QUERY_STRING": request.query_string,
        "RAW_URI": request.raw_path + ("?" + request.query_string if request.query_string else ""),
        "SERVER_NAME": peer.server_name,
        "SERVER_PORT": str(peer.server_port),
        "SERVER_PROTOCOL": f"HTTP/{peer.http_version}",
        "REMOTE_ADDR": peer.client_addr,
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


def call_wsgi(app: App, environ: dict) -> Answer:
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
