"""Routes under /_emulator/ that are not SQS: health, reset, and moving a manual clock."""

import json

from werkzeug.wrappers import Request, Response

PREFIX = "/_emulator/"


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")


def handle(request: Request, broker) -> Response:
    route = request.path[len(PREFIX) :]
    if route == "health":
        return _json({"status": "ok", "clock": "manual" if broker.clock.manual else "real"})
    if route == "reset" and request.method == "POST":
        broker.reset()
        return _json({"reset": True})
    if route == "clock/advance" and request.method == "POST":
        if not broker.clock.manual:
            return _json({"error": "the server runs on the real clock; start it with --clock manual"}, 409)
        try:
            seconds = float(request.args.get("seconds", ""))
        except ValueError:
            return _json({"error": "seconds must be a number"}, 400)
        if not 0 <= seconds <= 10 * 365 * 86400:
            return _json({"error": "seconds must be between 0 and ten years"}, 400)
        return _json({"now": broker.clock.advance(seconds)})
    return _json({"error": f"no admin route {request.method} {request.path}"}, 404)
