"""The app's door for the HTTP server: granian's RSGI interface, on its event loop.

A request is read whole under the limits (its body refused from its length before
it is read when over --max-body-bytes, or as a chunked body passes it; the body
by --request-timeout), then answered where it was read by the event loop's driver
(emulator/server/drivers.py: LoopDriver), which waits without a thread of its own
and runs slow work and werkzeug's way on a few worker threads.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import ThreadPoolExecutor

from emulator import protocol
from emulator.errors import SqsError
from emulator.protocol import Answer, HttpRequest
from emulator.protocol.request import joined
from emulator.server.drivers import App, Connection, LoopDriver
from emulator.server.failures import log_internal_error
from emulator.server.http.deadlines import BodyDeadlines
from emulator.server.http.limits import Limits

log = logging.getLogger("emulator.http")

WORKERS = 8  # threads for werkzeug's way and slow SQS work; nothing that waits for messages holds one
CLOSE = ("connection", "close")
TRAILERS = "The chunked request body is malformed or incomplete (trailer fields are not accepted)."


class Entry:
    """`app` behind granian's RSGI interface (its __rsgi__ protocol), under `limits`."""

    def __init__(self, app: App, limits: Limits):
        self.app = app
        self.limits = limits
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="sqs-emulator-http")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._driver: LoopDriver | None = None
        self._deadlines = BodyDeadlines(limits.request_timeout)
        self._released = False

    # -- granian's RSGI protocol ------------------------------------------------------

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._driver = LoopDriver(self.app, loop, self._pool)
        if self._released:
            self._driver.release()

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
        assert self._driver is not None
        answer = await self._driver.run(request, _connection(scope))
        return answer.status, answer.headers, answer.body

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

    def release(self) -> None:
        """End every wait now and answer new ones at once (the server is stopping); on the loop."""
        self._released = True
        if self._driver is not None:
            self._driver.release()

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _connection(scope) -> Connection:
    """What werkzeug's environ needs of granian's scope."""
    server, _, port = scope.server.rpartition(":")
    return Connection(server.strip("[]"), int(port), scope.client.rpartition(":")[0].strip("[]"), scope.http_version)
