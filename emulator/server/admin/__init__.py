"""The admin API: JSON routes under /_emulator/ that are not SQS, for tests and people.

    GET    /_emulator/health           status, version, clock, persistence
    POST   /_emulator/reset            delete every queue and all state (also POST /moto-api/reset)
    GET    /_emulator/queues           every queue of every account and region, with counts and totals
    GET    /_emulator/messages         peek: ?queue=<url or name>[&account=&region=][&state=][&limit=&after=]
    POST   /_emulator/clock/advance    {"seconds": N} (or ?seconds=N), manual clock only
    POST   /_emulator/clock/set        {"time": epoch seconds or ISO 8601}, forward only
    GET    /_emulator/faults           the fault policies ([?queue=])
    PUT    /_emulator/faults           {"queue": ..., "duplicate_delivery": p, "lost_delete": p,
                                        "delayed_visibility_seconds": s, "seed": n}
    DELETE /_emulator/faults           [?queue=]: clear one queue's policy, or every one
    GET    /_emulator/event-sources    event source mappings (POST one; GET, PATCH, DELETE .../<id>):
                                        see emulator/server/admin/event_sources.py
    GET    /_emulator/metrics          Prometheus text format
    GET    /_emulator/ui               the dashboard (static files from emulator/server/admin/static/)
    GET    /_emulator/                 redirects to the dashboard (so does a browser's GET /, see ui.py)

Every answer is JSON (but metrics and the dashboard); bad input is a 4xx with
{"error": "..."}, never a 500.
"""

import json
import logging

from werkzeug.wrappers import Request, Response

from emulator.server.admin import event_sources, routes, ui
from emulator.server.admin.routes import AdminError
from emulator.server.failures import log_internal_error

PREFIX = "/_emulator/"
MOTO_RESET = "/moto-api/reset"  # moto's server-mode reset, so suites written for it run unchanged

log = logging.getLogger(__name__)

ROUTES = {**routes.ROUTES, **event_sources.ROUTES}  # "<prefix>/*" matches "<prefix>/<id>"


def claims(path: str) -> bool:
    return path.startswith(PREFIX) or path == PREFIX.rstrip("/") or path == MOTO_RESET


def handle(request: Request, app) -> Response:
    route = "reset" if request.path == MOTO_RESET else request.path[len(PREFIX) :].strip("/")
    try:
        if not route and request.method in ("GET", "HEAD"):
            return ui.redirect()
        if route == "ui" or route.startswith("ui/"):
            return ui.serve(request, route[len("ui") :].lstrip("/"))
        methods = ROUTES.get(route) or ROUTES.get(f"{route.rpartition('/')[0]}/*")
        if methods is None:
            raise AdminError(404, f"no admin route {request.path}")
        handler = methods.get(request.method)
        if handler is None:
            error = _json({"error": f"{request.method} is not allowed on {request.path}"}, 405)
            error.headers["Allow"] = ", ".join(sorted(methods))
            return error
        result = handler(request, app)
        return result if isinstance(result, Response) else _json(result)
    except AdminError as error:
        return _json({"error": error.message}, error.status)
    except Exception as exc:  # a bug of ours: still a JSON answer, and the server keeps serving
        log_internal_error(log, f"in admin route {route!r}", exc)
        return _json({"error": "internal error; see the server log"}, 500)


def error(status: int, message: str) -> Response:
    return _json({"error": message}, status)


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
