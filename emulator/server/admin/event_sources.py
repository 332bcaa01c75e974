"""The admin routes of event source mappings (emulator/events/):

    GET    /_emulator/event-sources          every mapping, with its counters
    POST   /_emulator/event-sources          {"queue": <url or name>, "target": ..., ...} -> 201 the mapping
    GET    /_emulator/event-sources/<id>     one mapping
    PATCH  /_emulator/event-sources/<id>     change the fields given (not the queue)
    DELETE /_emulator/event-sources/<id>     stop and forget it

Bad input answers 400 with {"error": "<field>: <problem>", "field": "<field>"}.

A mapping runs code, so POST and PATCH take only a JSON body (Content-Type:
application/json, which no web page can send across origins without a CORS
preflight this server never grants) and refuse a foreign Origin; a command or
"package.module:function" target is taken only from this machine, addressed as
localhost or a loopback address (so a DNS-rebinding page cannot name one either).
The config file and serve() are the operator's own and have no such limits.
"""

import ipaddress
import json
from urllib.parse import urlsplit

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from emulator.events.spec import MappingError
from emulator.server.admin.routes import AdminError, _body, _context, _queue

PATH = "/_emulator/event-sources"
QUEUE_KEYS = ("queue", "account", "region")


def describe(ctx, mapping) -> dict:
    return {"queue": ctx.queue_url(mapping.queue), **mapping.describe()}


def list_mappings(request, app) -> dict:
    """Every event source mapping, with its settings, state and counters (see emulator/events/)."""
    ctx = _context(request, app)
    return {"event_sources": [describe(ctx, mapping) for mapping in app.event_sources.all()]}


def create(request, app) -> Response:
    """Make a mapping: `{"queue": <URL or name>, "target": ..., ...}` answers 201 with the mapping.

    A JSON body only; a command or module target only from this machine. Bad input
    answers 400 with `{"error": "<field>: <problem>", "field": "<field>"}`.
    """
    body = _trusted_body(request)
    ctx, queue = _queue(request, app, body)
    fields = {key: value for key, value in body.items() if key not in QUEUE_KEYS}
    try:
        mapping = app.event_sources.create(queue, fields)
    except MappingError as error:
        return _refused(error)
    return Response(json.dumps(describe(ctx, mapping)), status=201, mimetype="application/json")


def show(request, app, mapping_id: str) -> dict:
    """One mapping, with its settings, state and counters."""
    return describe(_context(request, app), _mapping(app, mapping_id))


def update(request, app, mapping_id: str):
    """Change the fields given (not the queue); the counters carry on. A JSON body only."""
    mapping = _mapping(app, mapping_id)
    body = _trusted_body(request)
    if any(key in body for key in QUEUE_KEYS):
        return _refused(MappingError("queue", "a mapping's queue does not change; delete it and create another"))
    try:
        app.event_sources.update(mapping.id, body)
    except MappingError as error:
        return _refused(error)
    return describe(_context(request, app), mapping)


def delete(request, app, mapping_id: str) -> dict:
    """Stop a mapping and forget it; answers the mapping as it was, with `"deleted": true`."""
    mapping = _mapping(app, mapping_id)
    app.event_sources.delete(mapping.id)
    return {**describe(_context(request, app), mapping), "deleted": True}


def _mapping(app, mapping_id: str):
    try:
        return app.event_sources.get(mapping_id)
    except KeyError:
        raise AdminError(404, f"no event source mapping {mapping_id}") from None


def _trusted_body(request) -> dict:
    if request.mimetype != "application/json":
        raise AdminError(415, "send the mapping as JSON, with Content-Type: application/json")
    body = _body(request)
    target = body.get("target")
    runs_code_here = isinstance(target, list) or (isinstance(target, str) and "://" not in target)
    if runs_code_here and not (_loopback(request.remote_addr) and _loopback(urlsplit(f"//{request.host}").hostname)):
        raise AdminError(
            403,
            "command and module targets are taken from this machine only, addressed as localhost or "
            "127.0.0.1; use an http(s) target, or the config file",
        )
    return body


def _loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def _refused(error: MappingError) -> Response:
    return Response(json.dumps({"error": str(error), "field": error.field}), status=400, mimetype="application/json")


RULES = [
    Rule(PATH, methods=["GET"], endpoint=list_mappings),
    Rule(PATH, methods=["POST"], endpoint=create),
    Rule(f"{PATH}/<mapping_id>", methods=["GET"], endpoint=show),
    Rule(f"{PATH}/<mapping_id>", methods=["PATCH"], endpoint=update),
    Rule(f"{PATH}/<mapping_id>", methods=["DELETE"], endpoint=delete),
]
