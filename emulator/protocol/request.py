"""One HTTP request as the protocol layer reads it: method, path, query, headers and body.

Sans-IO: whichever entry read the request (the RSGI entry of emulator/server/http/,
or the WSGI app) made it whole first, so parsing a request does no I/O and a test
makes one from plain values. Header names are in lower case, as HTTP/2 and ASGI write
them, and looked up by their lower-case names: a plain dict's lookup, a fifth of one
in any case (a request looks up about ten). A header sent more than once is one value,
its values joined by ", " (RFC 9110 5.3).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import parse_qsl, quote

from werkzeug.datastructures import MIMEAccept, MultiDict
from werkzeug.http import parse_accept_header, parse_options_header


class Headers(dict[str, str]):
    """Header values by lower-case name (werkzeug's Headers, which the admin API's requests
    carry, take these names too)."""


class Peer(NamedTuple):
    """What the transport knows of a request's connection, for werkzeug's environ (PEP 3333)."""

    server_name: str  # the listening address, IPv6 without brackets
    server_port: int
    client_addr: str  # the peer's address, IPv6 without brackets
    http_version: str = "1.1"


class HttpRequest:
    __slots__ = ("__dict__", "_raw_path", "body", "headers", "host", "method", "path", "query_string", "scheme")

    def __init__(
        self,
        method: str,
        path: str,
        query_string: str,
        headers: Headers,
        body: bytes = b"",
        scheme: str = "http",
        raw_path: str | None = None,
    ):
        self.method = method  # upper case
        self.path = path  # percent-decoded, starting with "/"
        self.query_string = query_string  # as sent, still percent-encoded
        self.headers = headers
        self.body = body
        self.scheme = scheme
        self._raw_path = raw_path
        header = headers.get("host")
        self.host = _host(scheme, header) if header is not None else ""

    @classmethod
    def from_environ(cls, environ: dict, body: bytes) -> HttpRequest:
        """The request a WSGI environ (PEP 3333) describes, with its body already read."""
        headers = Headers(
            (key[5:].replace("_", "-").lower(), value) for key, value in environ.items() if key[:5] == "HTTP_"
        )
        for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            if environ.get(key):
                headers[key.replace("_", "-").lower()] = environ[key]
        path = "/" + _wsgi_text(environ.get("PATH_INFO") or "").lstrip("/")
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        return cls(
            environ.get("REQUEST_METHOD", "GET").upper(),
            path,
            environ.get("QUERY_STRING", ""),
            headers,
            body,
            environ.get("wsgi.url_scheme", "http"),
            raw.split("?", 1)[0] if raw else None,
        )

    @property
    def raw_path(self) -> str:
        """The path as sent (what a signature covers); quoted again from `path` only when asked,
        which only --require-auth does."""
        return self._raw_path if self._raw_path is not None else quote(self.path)

    @functools.cached_property
    def args(self) -> MultiDict:
        """The query string's parameters (all values of a repeated one kept)."""
        return MultiDict(parse_qsl(self.query_string, keep_blank_values=True))

    @property
    def mimetype(self) -> str:
        return _mimetype(self.headers.get("content-type", ""))

    @functools.cached_property
    def accept_mimetypes(self) -> MIMEAccept:
        return parse_accept_header(self.headers.get("accept"), MIMEAccept)

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("content-length")
        return int(value) if value is not None and value.isdigit() else None

    @property
    def url_root(self) -> str:
        """scheme://host of the request, as its Host header names it."""
        return f"{self.scheme}://{self.host}"


def joined(pairs: Iterable[tuple[str, str]]) -> Headers:
    """Header pairs (names in any case) as one value per header, repeats joined."""
    headers = Headers()
    for name, value in pairs:
        name = name.lower()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


def _wsgi_text(value: str) -> str:
    """A path from its WSGI form (PEP 3333: UTF-8 bytes as latin-1 text), as werkzeug decodes it."""
    return value.encode("latin1").decode(errors="replace")


# What a Host header may hold: RFC 3986's reg-name (IPv4 included) or a bracketed IPv6, and a port.
_HOST = re.compile(r"(?:[A-Za-z0-9.\-_~!$&'()*+,;=%]*|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?")
_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


# A client sends the same Host and content type again and again.
@functools.lru_cache(maxsize=64)
def _host(scheme: str, header: str) -> str:
    """The Host header without the scheme's default port; "" when it holds what no host
    can (as werkzeug's Request.host reads it)."""
    host = header.removesuffix(_DEFAULT_PORTS.get(scheme, "\0"))
    return host if _HOST.fullmatch(host) else ""


@functools.lru_cache(maxsize=64)
def _mimetype(content_type: str) -> str:
    return parse_options_header(content_type)[0].lower()
