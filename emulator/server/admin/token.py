"""The admin token (--require-auth): what the admin API and the dashboard ask for.

Every client sends it as `Authorization: Bearer <token>`: the inspector and the pytest
plugin take it from SQS_EMULATOR_ADMIN_TOKEN; the dashboard from the link the banner
prints, `/_emulator/ui/#token=<token>`, whose fragment never leaves the browser. The page
keeps it in sessionStorage, which belongs to one scheme, host and port (a cookie would
go to every port of the host, RFC 6265 section 8.5), and adds the header itself.

Open without it: `/_emulator/health` (readiness probes) and, to a GET, the dashboard's
page and files (they hold no data; the page asks for the token).
"""

import hmac
import json

from werkzeug.wrappers import Request, Response

from emulator.protocol import HttpRequest
from emulator.server.admin.headers import secured

HEALTH = "/_emulator/health"
DASHBOARD = ("/_emulator", "/_emulator/ui")  # the redirect to the dashboard, and the dashboard
VARIABLE = "SQS_EMULATOR_ADMIN_TOKEN"


def _matches(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode(), token.encode())


def _open(request: Request | HttpRequest) -> bool:
    path = request.path.rstrip("/")
    if path == HEALTH:
        return True
    dashboard = path in DASHBOARD or path.startswith(DASHBOARD[1] + "/")
    return dashboard and request.method in ("GET", "HEAD")


def admits(request: Request | HttpRequest, token: str) -> bool:
    """Whether the request carries the token in its Authorization header, or needs none."""
    return _open(request) or carried(request, token)


def carried(request: Request | HttpRequest, token: str) -> bool:
    """Whether the request carries the token in its Authorization header."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and _matches(given.strip(), token)


def challenge(request: Request, token: str) -> Response:
    """The 401 of a request without the token."""
    message = (
        "the admin API needs the admin token (--require-auth): send 'Authorization: Bearer <token>' "
        f"(the inspector and the pytest plugin read it from {VARIABLE}), or open the dashboard "
        "with the link in the startup banner; the token is in the banner or the config file"
    )
    response = Response(json.dumps({"error": message}), status=401, mimetype="application/json")
    response.headers["WWW-Authenticate"] = 'Bearer realm="sqs-emulator"'
    return secured(response)
