"""A request on the SQS path: werkzeug's Request, with only what the path reads worked out.

werkzeug's Request works out its server address, root path, path, query and
header objects when it is made, reads a header through a case-folding lookup,
and parses the content type on every `mimetype`; together about 12 us of a
SendMessage whose app costs under 100. This one takes the method, scheme, path
and host from the environ when it is made, and the content type and body when
first asked; everything else (args, accept_mimetypes,
headers, form, ...) is werkzeug's own, unchanged, so the guard, auth and
protocol layers read it as any werkzeug Request. It is not left in its environ
(werkzeug's is, in a reference cycle that keeps the body until a full collection).
"""

import functools

from werkzeug.datastructures import EnvironHeaders
from werkzeug.http import parse_options_header
from werkzeug.sansio.utils import get_host
from werkzeug.utils import cached_property
from werkzeug.wrappers import Request
from werkzeug.wsgi import get_input_stream


class SqsRequest(Request):
    host = ""  # a plain attribute, set when made: every SQS request reads it (werkzeug's is a cached property)

    def __init__(self, environ: dict):  # werkzeug's __init__ left out on purpose: it is the cost
        self.environ = environ
        self.shallow = False
        self.method = environ.get("REQUEST_METHOD", "GET").upper()
        self.scheme = environ.get("wsgi.url_scheme", "http")
        self.path = "/" + _wsgi_text(environ.get("PATH_INFO") or "").lstrip("/")
        self.query_string = environ.get("QUERY_STRING", "").encode("latin1")
        self.remote_addr = environ.get("REMOTE_ADDR")
        header = environ.get("HTTP_HOST")
        self.host = _host(self.scheme, header) if header is not None else get_host(self.scheme, None, self.server)

    @cached_property
    def headers(self) -> EnvironHeaders:  # type: ignore[override]
        return EnvironHeaders(self.environ)

    @cached_property
    def server(self) -> tuple[str, int | None] | None:
        # PEP 3333's address of the server, read as werkzeug's Request reads it when made.
        name, port = self.environ.get("SERVER_NAME"), self.environ.get("SERVER_PORT", "")
        return None if name is None else (name, int(port) if port.isdigit() else None)

    @cached_property
    def root_path(self) -> str:
        return _wsgi_text(self.environ.get("SCRIPT_NAME") or "").rstrip("/")

    @property
    def mimetype(self) -> str:
        return _mimetype(self.environ.get("CONTENT_TYPE", ""))

    @cached_property
    def stream(self):
        if "wsgi.input_terminated" in self.environ:  # waitress's input ends with the body
            return self.environ["wsgi.input"]
        return get_input_stream(self.environ, max_content_length=self.max_content_length)


def _wsgi_text(value: str) -> str:
    """A path from its WSGI form (PEP 3333: UTF-8 bytes as latin-1 text), as werkzeug decodes it."""
    return value.encode("latin1").decode(errors="replace")


# A client sends the same Host and content type again and again.
@functools.lru_cache(maxsize=64)
def _host(scheme: str, header: str) -> str:
    return get_host(scheme, header)  # werkzeug's: the default port dropped, invalid characters refused


@functools.lru_cache(maxsize=64)
def _mimetype(content_type: str) -> str:
    return parse_options_header(content_type)[0].lower()
