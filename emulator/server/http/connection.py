"""One client connection: HTTP/1.1 read by llhttp (httptools), each request answered on the
event loop's thread that parsed it, answers written in the order their requests came.

llhttp is strict and is left so: a malformed Content-Length, a transfer coding other than
a final chunked, Content-Length beside Transfer-Encoding, a bad chunk size, a line ended
by a bare LF, the HTTP/2 preface: a 400, and the connection closed (RFC 9112 6.1 and
6.3), so no body is ever read as the next request. An HTTP/0.9 or 2.0 request line gets
the same. What llhttp takes and SQS never needs is refused here: trailer fields.

Memory is bounded three ways: a body over its protocol's largest valid size is refused
from its Content-Length (or as a chunked body passes it); bodies being read draw on one
budget for all connections, and a connection that finds it spent stops reading until
another gives some back; answers written but not yet taken by their clients draw on
another, and no new request is answered while it is spent. Reads go through one buffer
of READ_SIZE bytes for the whole loop, so a connection that stopped reading holds at
most one read of its body beyond the budget.

Time is bounded by one deadline a connection, checked by the registry's sweep
(connections.py): its request's head and then its body within --request-timeout, the
next request within --idle-timeout, an answer read whole within --write-timeout.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import httptools

from emulator.protocol import Answer, HttpRequest, Peer
from emulator.protocol.request import Headers
from emulator.server.failures import log_internal_error
from emulator.server.http.heads import NO_BODY, answer_head, header_name
from emulator.server.http.shared import Shared
from emulator.server.http.sockets import drop_unsent, unsent_in_kernel

if TYPE_CHECKING:
    pass

log = logging.getLogger("emulator.http")

VERSIONS = frozenset({"1.0", "1.1"})
# A request line without a version (HTTP/0.9): llhttp would wait for headers that never come.
HTTP_0_9 = re.compile(rb"(?:^|\n)[A-Za-z]+ [^ \r\n]+\r?\n")
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
TRAILERS = "The chunked request body is malformed or incomplete (trailer fields are not accepted)."
# An answer this large may lie in the kernel's send buffer (several MiB on loopback) where
# no write of ours waits: its deadline is checked against the kernel's unsent bytes.
LARGE_ANSWER = 64 * 1024
MAX_PIPELINED = 8  # requests read ahead of their answers

# What a connection is doing (Connection.state).
IDLE = 0  # waiting for a request (none begun)
HEAD = 1  # a request's line and headers on their way
BODY = 2  # its body on its way
DONE = 3  # nothing more is read: refused, or closing


class Connection(asyncio.BufferedProtocol):
    def __init__(self, shared: Shared):
        self.shared = shared
        self.loop = shared.loop
        self.limits = shared.limits
        self.door = shared.door
        self.bodies = shared.bodies
        self.answers = shared.answers
        self.idle_order = shared.connections.idle_order
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.peer = Peer("", 0, "")
        self.state = IDLE
        self.deadline = 0.0  # loop time by which the current step must end; 0: none
        self.began = 0.0  # when the request being read began
        self.ready: deque[tuple[HttpRequest | Answer, bool]] = deque()  # read, not yet answered: (it, keep alive)
        self.busy = False  # a request is being answered, or its answer written
        self.task: asyncio.Task | None = None
        self.unsent = 0  # bytes of an answer charged to the answers' budget
        self.reading = True
        self.starved = False  # stopped reading until the bodies' budget has room
        self.eof = False
        self.draining = False  # a large answer went to the kernel: it must be read by the deadline
        # the request being read
        self.url = b""
        self.fields = Headers()  # by lower-case name, repeats joined (RFC 9110 5.3)
        self.request: HttpRequest | None = None
        self.parts: list[bytes] = []
        self.size = 0
        self.limit = 0
        self.keep = True
        self.held = 0  # bytes of its body charged to the bodies' budget

    # -- asyncio's protocol ------------------------------------------------------------

    def connection_made(self, transport) -> None:
        self.transport = transport
        if not self.shared.connections.admit(self):
            transport.abort()
            return
        client = transport.get_extra_info("peername") or ("", 0)
        server = transport.get_extra_info("sockname") or ("", 0)
        self.peer = Peer(str(server[0]), int(server[1]), str(client[0]))
        # pause_writing() as soon as an answer is not sent whole, resume_writing() once it is.
        transport.set_write_buffer_limits(high=0, low=0)
        self._idle()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.shared.view

    def buffer_updated(self, nbytes: int) -> None:
        if self.state == DONE:
            return  # refused or closing: what else comes is dropped
        data = self.shared.view[:nbytes]
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._stop_reading_after_last()  # answered as HTTP/1.1, then closed; nothing is upgraded
        except httptools.HttpParserError:
            self._refuse(None)
        if self.state == HEAD and self.parser.get_http_version() == "0.0" and HTTP_0_9.search(data):
            self._refuse(None)
        self._next()
        # Reading goes on while a request waits, so a client that goes away is seen (its EOF):
        # only a pipeline MAX_PIPELINED deep, or the bodies' budget, stops it.
        if self.reading and (len(self.ready) >= MAX_PIPELINED or self.starved):
            self.reading = False
            self.transport.pause_reading()  # type: ignore[union-attr]

    def eof_received(self) -> bool:
        self.eof = True
        if self.state in (HEAD, BODY) or self.task is not None:
            # A request cut short never runs; a client gone from its long poll leaves it.
            self.close()
            return False
        return bool(self.busy or self.ready)  # its answers are written first, then it closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.state = DONE
        self.shared.connections.remove(self)
        if self.task is not None:
            self.task.cancel()  # a long poll whose client has gone ends, and takes no message
            self.task = None
        self._give_back()
        self.shared.answers.forget(self._resume)
        self.shared.bodies.forget(self._fed)

    def pause_writing(self) -> None:
        self.unsent = self.transport.get_write_buffer_size()  # type: ignore[union-attr]
        self.shared.answers.take(self.unsent)
        self.deadline = self.shared.loop.time() + self.shared.limits.write_timeout

    def resume_writing(self) -> None:
        unsent, self.unsent = self.unsent, 0
        self.shared.answers.give(unsent)
        if self.state != DONE:
            self.busy = False
            self._next()

    # -- llhttp's callbacks --------------------------------------------------------------

    def on_message_begin(self) -> None:
        if self.state == DONE:
            return  # refused: what follows in the same read is never run
        self.draining = False  # its client read on: it has sent another request
        self.state = HEAD
        self.began = self.loop.time()
        self.deadline = self.began + self.limits.request_timeout
        self.idle_order.pop(self, None)
        self.url = b""
        self.fields = Headers()
        self.parts = []
        self.size = 0

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.state == BODY:  # a trailer field
            self._refuse(self.shared.door.refusal(self.request, "MalformedRequest", TRAILERS))  # type: ignore[arg-type]
        elif self.state == HEAD:
            key = header_name(name)
            fields = self.fields
            text = value.decode("latin-1")
            fields[key] = f"{fields[key]}, {text}" if key in fields else text

    def on_headers_complete(self) -> None:
        if self.state != HEAD:
            return
        parser = self.parser
        if parser.get_http_version() not in VERSIONS:
            self._refuse(None)
            return
        target = self.url
        if target[:1] == b"/":  # origin-form, as clients send it (RFC 9112 3.2.1)
            path, _, query = target.partition(b"?")
        else:
            try:
                url = httptools.parse_url(target)
            except httptools.HttpParserInvalidURLError:
                self._refuse(None)
                return
            path, query = url.path or b"/", url.query or b""
        raw_path = path.decode("utf-8", "replace")
        headers = self.fields
        request = HttpRequest(
            parser.get_method().decode("ascii"),
            unquote(raw_path, errors="replace") if "%" in raw_path else raw_path,
            query.decode("latin-1"),
            headers,
            b"",
            "http",
            raw_path,
        )
        early = self.door.early
        if early is not None:
            refused = early(request)
            if refused is not None:
                self._refuse(refused)
                return
        self.limit = self.shared.body_limit(headers.get("content-type"))
        length = headers.get("content-length")
        if length is not None and int(length) > self.limit:  # llhttp has checked that it is a number
            self._refuse(self._too_large(request))
            return
        self.request = request
        self.keep = parser.should_keep_alive()
        self.state = BODY
        self.deadline = self.loop.time() + self.limits.request_timeout
        if (
            "expect" in headers
            and headers["expect"].lower() == "100-continue"
            and (length not in (None, "0") or "transfer-encoding" in headers)
            and not (self.busy or self.ready)  # a 100 now would come before an earlier answer
        ):
            self.transport.write(CONTINUE)  # type: ignore[union-attr]

    def on_body(self, body: bytes) -> None:
        if self.state != BODY:
            return
        size = len(body)
        self.size += size
        if self.size > self.limit:
            self._refuse(self._too_large(self.request))  # type: ignore[arg-type]
            return
        self.parts.append(body)
        self.held += size
        bodies = self.bodies
        bodies.used += size
        if bodies.used >= bodies.total and not self.starved:
            self.starved = True
            bodies.wait(self._fed)

    def on_message_complete(self) -> None:
        if self.state != BODY:
            return
        request = self.request
        assert request is not None
        parts = self.parts
        request.body = parts[0] if len(parts) == 1 else b"".join(parts)
        if self.held:
            held, self.held = self.held, 0
            self.bodies.give(held)
        self.ready.append((request, self.keep))
        self.request = None
        self.parts = []
        self.state = IDLE
        self.deadline = 0.0

    # -- answering -----------------------------------------------------------------------

    def _next(self) -> None:
        """Answer the next request read, unless one is being answered; idle when none is left."""
        answers = self.answers
        while not self.busy and self.ready:
            if answers.used >= answers.total:
                self.busy = True  # until the answers' budget has room (_resume)
                answers.wait(self._resume)
                return
            item, keep = self.ready.popleft()
            self.busy = True
            if isinstance(item, Answer):  # a refusal, after every answer before it
                self._write(item, False, False)
                return
            try:
                outcome = self.door.start(item, self.peer)
            except Exception as exc:  # a bug of ours: an answer still, and the loop keeps serving
                log_internal_error(log, f"serving {item.method}", exc)
                outcome = Answer(500, [], b"")
                keep = False
            if isinstance(outcome, Answer):
                self._write(outcome, keep, item.method == "HEAD")
            else:
                self.task = self.loop.create_task(self._finish(outcome, keep, item.method == "HEAD"))
                return
        if not self.busy and not self.ready and self.state == IDLE:
            self._idle()

    async def _finish(self, outcome: Coroutine[Any, Any, Answer], keep: bool, head: bool) -> None:
        try:
            answer = await outcome
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log_internal_error(log, "serving a request that waited", exc)
            answer, keep = Answer(500, [], b""), False
        self.task = None
        self._write(answer, keep, head)
        self._next()

    def _resume(self) -> None:
        self.busy = False
        self._next()

    def _write(self, answer: Answer, keep: bool, head: bool) -> None:
        transport = self.transport
        assert transport is not None
        if transport.is_closing():
            return
        keep = keep and not self.eof
        status, headers, body = answer
        bodiless = head or status in NO_BODY
        try:
            head_bytes = answer_head(status, headers, None if bodiless else len(body), keep, self.shared.date_line)
        except UnicodeEncodeError as exc:  # a header only UTF-8 can write: a bug of ours
            log_internal_error(log, "writing an answer", exc)
            head_bytes, body, keep = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", b"", False
        if bodiless or not body:
            transport.write(head_bytes)
        elif len(body) < LARGE_ANSWER:
            transport.write(head_bytes + body)  # one send: a copy of a small body costs less than a second syscall
        else:
            transport.writelines((head_bytes, body))
        if not keep:
            self._stop()
            transport.close()  # once what was written is sent
            return
        if not self.unsent:  # all of it went at once (else resume_writing() goes on)
            self.busy = False
            if len(body) >= LARGE_ANSWER:
                self.draining = True
                self.deadline = self.shared.loop.time() + self.shared.limits.write_timeout

    def _refuse(self, answer: Answer | None) -> None:
        """Answer `answer` (None: a plain 400) after the answers before it, then close; read nothing more."""
        if self.state == DONE:
            return
        self._stop()
        if answer is None:
            self.ready.append((Answer(400, [], b""), False))
        else:
            self.ready.append((answer, False))

    def _too_large(self, request: HttpRequest) -> Answer:
        message = f"Request Entity Too Large: the request body is over {self.limit} bytes."
        return self.shared.door.refusal(request, "RequestEntityTooLarge", message)

    def _stop(self) -> None:
        self.state = DONE
        self.deadline = 0.0 if not self.unsent else self.deadline
        self._give_back_body()

    def _stop_reading_after_last(self) -> None:
        if self.ready:
            request, _ = self.ready.pop()
            self.ready.append((request, False))
        self._stop()

    def _idle(self) -> None:
        if self.eof:
            self.close()
            return
        self.state = IDLE
        if not self.draining:
            self.deadline = self.loop.time() + self.limits.idle_timeout
        self.idle_order[self] = None
        if not self.reading and not self.starved:
            self.reading = True
            self.transport.resume_reading()  # type: ignore[union-attr]

    def _fed(self) -> None:
        """The bodies' budget has room again: read on."""
        self.starved = False
        if not self.reading and len(self.ready) < MAX_PIPELINED and self.state != DONE:
            self.reading = True
            self.transport.resume_reading()  # type: ignore[union-attr]

    def _give_back_body(self) -> None:
        if self.held:
            held, self.held = self.held, 0
            self.shared.bodies.give(held)

    def _give_back(self) -> None:
        self._give_back_body()
        if self.unsent:
            unsent, self.unsent = self.unsent, 0
            self.shared.answers.give(unsent)

    # -- the registry's calls ------------------------------------------------------------

    def expire(self) -> None:
        """Its deadline passed: a body that stopped arriving is answered 408; a large answer
        the client has read meanwhile lets it idle on; else closed."""
        if self.draining and self.state == IDLE:
            self.draining = False
            if not unsent_in_kernel(self.transport):
                self.deadline = self.shared.loop.time() + self.shared.limits.idle_timeout
                return
            self.close(reset=True)
            return
        if self.unsent:
            self.close(reset=True)
            return
        if self.state == BODY and self.request is not None and not self.unsent:
            request = self.request
            self._refuse(
                self.shared.door.refusal(request, "RequestTimeout", "The request body did not arrive in time.")
            )
            self._next()
            self.deadline = self.shared.loop.time() + self.shared.limits.write_timeout
            return
        self.close()

    def close(self, reset: bool = False) -> None:
        """Close now, dropping what is unsent; `reset`: the kernel's unsent bytes too (an RST,
        where a plain close would leave the kernel sending them for as long as the client reads)."""
        self.state = DONE
        transport = self.transport
        if transport is None:
            return
        if reset:
            drop_unsent(transport)
        transport.abort()
