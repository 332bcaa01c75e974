"""The app's door on the HTTP server: what a connection (connection.py) asks of the app.

A request read whole is answered by the event loop's driver (emulator/server/drivers.py:
LoopDriver) where it was read: at once when nothing waits, else as a coroutine that
waits without a thread of its own, with slow work and werkzeug's way on a few worker
threads, which this door owns.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from emulator import protocol
from emulator.errors import SqsError
from emulator.protocol import Answer, HttpRequest, Peer
from emulator.server.drivers import App as DrivenApp
from emulator.server.drivers import LoopDriver

WORKERS = 8  # threads for werkzeug's way and slow SQS work; nothing that waits for messages holds one


class App(DrivenApp, Protocol):
    """What the door asks of an app (emulator/server/app.py's EmulatorApp), beyond the driver's."""

    @property
    def refuses_unsigned(self) -> bool:
        """Whether refused_early() can refuse anything (--require-auth)."""

    def refused_early(self, request: HttpRequest) -> Answer | None:
        """The answer to a request refused from its head alone (no body read yet)."""


class Entry:
    def __init__(self, app: App):
        self.app = app
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="sqs-emulator-http")
        self._driver: LoopDriver | None = None
        self.early: Callable[[HttpRequest], Answer | None] | None = app.refused_early if app.refuses_unsigned else None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._driver = LoopDriver(self.app, loop, self._pool)
        self.start = self._driver.start  # type: ignore[method-assign]  # a call less a request

    def refusal(self, request: HttpRequest, code: str, message: str) -> Answer:
        return protocol.serialize_error(protocol.detect(request), SqsError(code, message), str(uuid.uuid4()))

    def start(self, request: HttpRequest, peer: Peer) -> Answer | Coroutine[Any, Any, Answer]:
        assert self._driver is not None
        return self._driver.start(request, peer)

    def release(self) -> None:
        """End every wait now and answer new ones at once (the server is stopping); on the loop."""
        if self._driver is not None:
            self._driver.release()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
