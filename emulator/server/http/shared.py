"""What every connection of one server shares (connection.py): the app's door, the limits,
the budgets, the read buffer, the Date line and the body limits by content type."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from email.utils import formatdate
from typing import TYPE_CHECKING, Any, Protocol

from emulator.protocol import Answer, HttpRequest, Peer
from emulator.server.http.budget import Budget
from emulator.server.http.limits import Limits

if TYPE_CHECKING:
    from emulator.server.http.connections import Connections

READ_SIZE = 64 * 1024  # one buffer for every read of the loop: a stopped connection holds one read at most
MAX_CONTENT_TYPES = 64  # the body limits cached by content type


class Door(Protocol):
    """What the connection asks of the app's side (emulator/server/http/entry.py)."""

    # The answer to a request refused from its head alone, before its body is read; None
    # where no request is (no --require-auth).
    early: Callable[[HttpRequest], Answer | None] | None

    def refusal(self, request: HttpRequest, code: str, message: str) -> Answer:
        """An error of the HTTP layer, in the protocol the request's headers name."""

    def start(self, request: HttpRequest, peer: Peer) -> Answer | Coroutine[Any, Any, Answer]:
        """The answer now, or a coroutine that ends with it (a long poll, a commit, slow work)."""


class Shared:
    """What every connection of one server uses."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: Limits, door: Door, connections: Connections):
        self.loop = loop
        self.limits = limits
        self.door = door
        self.connections = connections
        self.bodies = Budget(limits.body_budget)
        self.answers = Budget(limits.answer_budget)
        self.view = memoryview(bytearray(READ_SIZE))
        self.date_line = ""  # "Date: ...\r\n", kept by a timer rather than read a request
        self._body_limits: dict[str | None, int] = {}  # by content type: clients send a few

    def keep_date(self) -> None:
        """Write the Date line now and once a second from now on (on the loop)."""
        self.date_line = f"Date: {formatdate(time.time(), usegmt=True)}\r\n"
        self.loop.call_later(1.0, self.keep_date)

    def body_limit(self, content_type: str | None) -> int:
        limit = self._body_limits.get(content_type)
        if limit is None:
            limit = self.limits.body_limit(content_type)
            if len(self._body_limits) < MAX_CONTENT_TYPES:
                self._body_limits[content_type] = limit
        return limit
