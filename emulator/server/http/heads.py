"""The heads of requests and answers, as the connection (connection.py) reads and writes them:
header names read into lower case once, status lines and answer heads written."""

from __future__ import annotations

from http import HTTPStatus

NO_BODY = frozenset({204, 304})
MAX_NAMES = 256  # header names remembered: clients send the same few

_NAMES: dict[bytes, str] = {}  # header names as sent -> lower case
_STATUS_LINES: dict[int, str] = {}


def header_name(raw: bytes) -> str:
    name = _NAMES.get(raw)
    if name is None:
        name = raw.decode("latin-1").lower()
        if len(_NAMES) < MAX_NAMES:
            _NAMES[raw] = name
    return name


def answer_head(status: int, headers: list[tuple[str, str]], length: int | None, keep: bool, date_line: str) -> bytes:
    """An answer's status line and headers. `length`: the body's, written as its Content-Length
    (werkzeug and answers.py name the header so; theirs is dropped); None for an answer without
    a body (HEAD, 204, 304), whose headers go as given. UnicodeEncodeError for a header latin-1
    cannot write."""
    lines = [_STATUS_LINES.get(status) or _status_line(status)]
    for name, value in headers:
        if length is None or (name != "Content-Length" and name != "content-length"):
            lines.append(f"{name}: {value}\r\n")
    if length is not None:
        lines.append(f"Content-Length: {length}\r\n")
    lines.append(date_line)
    if not keep:
        lines.append("Connection: close\r\n")
    lines.append("\r\n")
    return "".join(lines).encode("latin-1")


def _status_line(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    line = _STATUS_LINES[status] = f"HTTP/1.1 {status} {phrase}\r\n"
    return line
