"""An SQS answer: its status, headers and body's bytes, as a WSGI app sends them.

The app hands an answer straight to WSGI (no werkzeug Response, whose header
object and status parsing cost about a tenth of a SendMessage); routes that
answer with werkzeug's Response (the admin API, other emulators' paths) take
``answer.response()``.

JSON bodies are written by orjson, which writes exactly what
``json.dumps(body, separators=(",", ":"), ensure_ascii=False)`` encoded as UTF-8
writes (raw UTF-8 like AWS, control characters as ``\\u00XX``), checked over
every code point, about fifteen times faster: encoding a receive of ten
messages was the largest single cost of the request path.
"""

import functools
from typing import NamedTuple

import orjson
from werkzeug.wrappers import Response


class Answer(NamedTuple):
    status: int
    headers: list[tuple[str, str]]  # in the order they are sent, Content-Length included
    body: bytes

    @property
    def status_line(self) -> str:
        return status_line(self.status)

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((value for key, value in self.headers if key.lower() == lowered), None)

    def response(self) -> Response:
        """The same answer as werkzeug's Response."""
        return Response(self.body, status=self.status, headers=self.headers)


@functools.cache
def status_line(status: int) -> str:
    return Response(status=status).status  # werkzeug's wording ("400 BAD REQUEST"), as before


def answer(body: bytes, status: int, content_type: str, request_id: str) -> Answer:
    headers = [("x-amzn-RequestId", request_id), ("Content-Type", content_type), ("Content-Length", str(len(body)))]
    return Answer(status, headers, body)


def json_answer(body: dict, status: int, content_type: str, request_id: str) -> Answer:
    return answer(orjson.dumps(body), status, content_type, request_id)
