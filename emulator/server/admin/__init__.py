"""The admin API: JSON routes under /_emulator/ that are not SQS, for tests and people, and
the dashboard. routing.MAP is werkzeug's routing map of them all; docs/reference/admin-api.md
lists them, rendered from it (reference.py), each route's docstring its entry.

Every answer is JSON (but metrics and the dashboard's files); bad input is a 4xx with
{"error": "..."}, never a 500; every answer carries the headers of headers.py.
"""

import json
import logging

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.wrappers import Request, Response

from emulator.server.admin.headers import secured
from emulator.server.admin.routes import AdminError
from emulator.server.admin.routing import MAP
from emulator.server.failures import log_internal_error

PREFIX = "/_emulator/"
MOTO_RESET = "/moto-api/reset"  # moto's server-mode reset, so suites written for it run unchanged

log = logging.getLogger(__name__)


def claims(path: str) -> bool:
    return path.startswith(PREFIX) or path == PREFIX.rstrip("/") or path == MOTO_RESET


def handle(request: Request, app) -> Response:
    """The answer to a request of a path that claims() (a werkzeug Request in, a Response out)."""
    # "/_emulator/health/", "/_emulator//health": /_emulator/health, as before the routing map
    route = MOTO_RESET if request.path == MOTO_RESET else PREFIX + request.path[len(PREFIX) :].strip("/")
    try:
        handler, arguments = MAP.bind("emulator").match(route, method=request.method)
        result = handler(request, app, **arguments)
        response = result if isinstance(result, Response) else _json(result)
    except NotFound:
        response = error(404, f"no admin route {request.path}")
    except MethodNotAllowed as refused:
        response = error(405, f"{request.method} is not allowed on {request.path}")
        response.headers["Allow"] = ", ".join(sorted(refused.valid_methods or ()))
    except AdminError as refused:
        response = error(refused.status, refused.message)
    except Exception as exc:  # a bug of ours: still a JSON answer, and the server keeps serving
        log_internal_error(log, f"in admin route {route!r}", exc)
        response = error(500, "internal error; see the server log")
    return secured(response)


def error(status: int, message: str) -> Response:
    return secured(_json({"error": message}, status))


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
