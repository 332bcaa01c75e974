"""The admin token (--require-auth): what the admin API and the dashboard ask for.

A client sends it as `Authorization: Bearer <token>`; a browser visits
`/_emulator/ui?token=<token>` once, which keeps it in a cookie that only this
origin's own pages send (SameSite=Strict, HttpOnly). `/_emulator/health` stays
open, for readiness probes.
"""

import hmac
import json
from urllib.parse import urlencode

from werkzeug.utils import redirect
from werkzeug.wrappers import Request, Response

from emulator.server.admin.headers import secured

COOKIE = "sqs_emulator_token"
OPEN_PATHS = frozenset({"/_emulator/health"})
UI = "/_emulator/ui"


def _matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def admits(request: Request, token: str) -> bool:
    """Whether the request carries the token (header or cookie), or needs none."""
    if request.path.rstrip("/") in OPEN_PATHS:
        return True
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and _matches(given.strip(), token):
        return True
    return _matches(request.cookies.get(COOKIE), token)


def challenge(request: Request, token: str) -> Response:
    """The dashboard's URL with the right ?token= keeps it in a cookie; anything else is a 401."""
    if request.method == "GET" and request.path.startswith(UI) and _matches(request.args.get("token"), token):
        rest = {k: v for k, v in request.args.items() if k != "token"}
        response = redirect(request.path + (f"?{urlencode(rest)}" if rest else ""), 303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response
    message = (
        "the admin API needs the admin token (--require-auth): send 'Authorization: Bearer <token>', "
        f"or open {UI}?token=<token> once in a browser; the token is in the startup banner or the config file"
    )
    response = Response(json.dumps({"error": message}), status=401, mimetype="application/json")
    response.headers["WWW-Authenticate"] = 'Bearer realm="sqs-emulator"'
    return secured(response)
