"""What a request must show before the app acts on it, so that no web page can drive the
emulator: a Host it answers to, and for anything that may change state, no foreign Origin.

A page on another site can make the user's browser send requests here (a form POST, a
`fetch` in no-cors mode, an image's GET of `/?Action=DeleteQueue...`) without asking first,
and a DNS-rebinding page can even read the answers, under its own host name. So:

* the Host must be loopback (`localhost`, `*.localhost`), an IP address (a page cannot
  rebind an address literal), `--hostname`, or a name of `--allowed-hosts` (`*`: any),
  or `sqs.<region>.` before one of them (the host form of queue URLs);
* an SQS request (any method: the query protocol runs actions from a GET) and an admin
  request (reads too: a page that cannot see an answer can still make the server build
  large ones, again and again) are refused when the browser says they come from another
  origin: an `Origin` other than the emulator's own, or `Sec-Fetch-Site` other than
  same-origin or none. SDKs send neither header. The one exception is the user following
  a link to the dashboard (a top-level navigation to /_emulator/ui);
* an admin POST, PUT or DELETE with a body must be JSON, which no page can send
  cross-origin without a CORS preflight;
* CORS headers go only to the origins of `--cors-origins`, which also pass the checks.
"""

import functools
import ipaddress
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from emulator.api import queue_urls
from emulator.protocol import HttpRequest

LOOPBACK_NAMES = frozenset({"localhost"})
JSON = "application/json"
READS = frozenset({"GET", "HEAD"})
SAFE_FETCH_SITES = frozenset({"same-origin", "none"})
DASHBOARD = "/_emulator/ui"
# Headers an SDK in a browser sends, and the ones its answers carry that it reads.
CORS_EXPOSED = "x-amzn-RequestId, x-amzn-query-error"
CORS_MAX_AGE = "600"


# The SQS path's sans-IO request, or werkzeug's (the admin API's): the guard reads either.
AnyRequest = Request | HttpRequest


class Refusal(NamedTuple):
    status: int
    message: str


def _host_name(host: str) -> str | None:
    """The name of a Host header's host[:port], lower case, IPv6 without brackets."""
    try:
        return urlsplit(f"//{host}").hostname
    except ValueError:
        return None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _opens_dashboard(request: AnyRequest) -> bool:
    """The user following a link to the dashboard's page: a top-level navigation, whose answer
    only the user sees (its scripts and data then come from its own origin)."""
    headers = request.headers
    return (
        request.method in READS
        and request.path.startswith(DASHBOARD)
        and headers.get("sec-fetch-mode") == "navigate"
        and headers.get("sec-fetch-dest") == "document"
    )


class Guard:
    def __init__(
        self, hostname: str | None = None, allowed_hosts: Iterable[str] = (), cors_origins: Iterable[str] = ()
    ):
        names = {name.lower() for name in allowed_hosts}
        if hostname:
            names.add(_host_name(hostname) or hostname.lower())
        self.any_host = "*" in names
        self.names = frozenset(names | LOOPBACK_NAMES)
        self.cors_origins = frozenset(origin.rstrip("/").lower() for origin in cors_origins)
        # A client names the same few hosts again and again; parsing one costs more than routing a request.
        self.host_allowed = functools.lru_cache(maxsize=128)(self._host_allowed)

    def _host_allowed(self, host: str) -> bool:
        name = _host_name(host)
        if name is None:
            return False
        name = queue_urls.unregional(name)  # --queue-urls host: sqs.<region>.<a host it answers to>
        return self.any_host or name in self.names or name.endswith(".localhost") or _is_address(name)

    def refusal(self, request: AnyRequest, admin: bool) -> Refusal | None:
        """Why the request must not run (None: it may)."""
        if not self.host_allowed(request.host):
            return Refusal(
                403,
                f"Host {request.host!r} is not a name this emulator answers to (a DNS-rebinding page "
                "would use one); add it with --allowed-hosts or --hostname.",
            )
        headers = request.headers  # an HttpRequest's, or werkzeug's (the admin API's): either reads any case
        origin = headers.get("origin")
        if origin is not None and not self._own_origin(origin, request) and not self.cors_allowed(origin):
            return Refusal(
                403, f"Requests from the web page origin {origin!r} are refused (--cors-origins allows some)."
            )
        site = headers.get("sec-fetch-site")
        if (
            site is not None
            and site not in SAFE_FETCH_SITES
            and not (origin and self.cors_allowed(origin))
            and not (admin and _opens_dashboard(request))
        ):
            return Refusal(403, "Requests a web page of another site makes are refused (--cors-origins allows some).")
        if not admin or request.method in READS or request.method == "OPTIONS":
            return None
        if (request.content_length or request.mimetype) and request.mimetype != JSON:
            return Refusal(415, f"An admin {request.method} takes a JSON body (Content-Type: {JSON}).")
        return None

    def _own_origin(self, origin: str, request: AnyRequest) -> bool:
        return origin.lower() == f"{request.scheme}://{request.host}".lower()

    def cors_allowed(self, origin: str) -> bool:
        return origin.rstrip("/").lower() in self.cors_origins

    def preflight(self, request: Request) -> Response | None:
        """The answer to a CORS preflight (OPTIONS with Access-Control-Request-Method), or None."""
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return None
        response = Response(status=204)
        self.add_cors(request, response)
        if "Access-Control-Allow-Origin" in response.headers:
            response.headers["Access-Control-Allow-Methods"] = "GET, HEAD, POST, PUT, DELETE"
            requested = request.headers.get("Access-Control-Request-Headers")
            if requested:
                response.headers["Access-Control-Allow-Headers"] = requested
            response.headers["Access-Control-Max-Age"] = CORS_MAX_AGE
        return response

    def add_cors(self, request: AnyRequest, response: Response) -> None:
        for name, value in self.cors_headers(request):
            if name == "Vary":
                response.headers.add(name, value)
            else:
                response.headers[name] = value

    def cors_headers(self, request: AnyRequest) -> list[tuple[str, str]]:
        """The CORS headers the answer to `request` carries (none unless its origin is allowed)."""
        if not self.cors_origins:  # the default: no origin is, and every answer asks
            return []
        origin = request.headers.get("origin")
        if origin is None or not self.cors_allowed(origin):
            return []
        return [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Expose-Headers", CORS_EXPOSED),
            ("Vary", "Origin"),
        ]
