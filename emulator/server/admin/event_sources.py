"""The admin routes of event source mappings (emulator/events/):

    GET    /_emulator/event-sources          every mapping, with its counters
    POST   /_emulator/event-sources          {"queue": <url or name>, "target": ..., ...} -> 201 the mapping
    GET    /_emulator/event-sources/<id>     one mapping
    PATCH  /_emulator/event-sources/<id>     change the fields given (not the queue)
    DELETE /_emulator/event-sources/<id>     stop and forget it

Bad input answers 400 with {"error": "<field>: <problem>", "field": "<field>"}; a second
mapping of a queue to the same function answers 409 with Lambda's ResourceConflictException
({"error": "An event source mapping with SQS arn ... already exists. ...", "field":
"target", "code": "ResourceConflictException", "existing": "<its id>"}).

A mapping sends messages somewhere, so POST and PATCH take only a JSON body
(Content-Type: application/json, which no web page can send across origins without a
CORS preflight) and refuse a foreign Origin (emulator/server/guard.py). An http(s) URL
target is taken so. A command or "package.module:function" target runs code as the
emulator's user, so it is the operator's: the config file's and Python's (serve()), and
over HTTP only when the operator started the server with --allow-code-targets, and then
only from a request that

* carries that start's random token (printed in the banner) in X-Emulator-Code-Token,
* carries no Origin and no Sec-Fetch-* header (no web page, not even a --cors-origins
  one or the dashboard, sends one without them), and
* comes from this machine, addressed as localhost or a loopback address;

its module is one the server imported already: nothing is imported on a request
(emulator/events/targets.py). Each refusal is a 403 saying what to do.
"""

import hmac
import ipaddress
import json
from urllib.parse import urlsplit

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from emulator.events import targets
from emulator.events.registry import MappingConflict
from emulator.events.spec import MappingError
from emulator.server.admin.routes import AdminError, _body, _context, _queue

PATH = "/_emulator/event-sources"
QUEUE_KEYS = ("queue", "account", "region")
CODE_TOKEN_HEADER = "X-Emulator-Code-Token"


def describe(ctx, mapping) -> dict:
    return {"queue": ctx.queue_url(mapping.queue), **mapping.describe()}


def list_mappings(request, app) -> dict:
    """Every event source mapping, with its settings, state and counters (see emulator/events/).

    Answers `event_sources` and `invokers`: the process's one pool of invocation threads
    (`max_threads`, `threads`, `running`, `waiting` for a thread now, `waited` in all).
    """
    ctx = _context(request, app)
    return {
        "event_sources": [describe(ctx, mapping) for mapping in app.event_sources.all()],
        "invokers": app.event_sources.invokers.as_dict(),
    }


def create(request, app) -> Response:
    """Make a mapping: `{"queue": <URL or name>, "target": ..., ...}` answers 201 with the mapping.

    A JSON body only; a command or module target only with --allow-code-targets and
    its token (this module's docstring). Bad input answers 400 with
    `{"error": "<field>: <problem>", "field": "<field>"}`; a second mapping of the queue
    to the same function, 409 `ResourceConflictException`.
    """
    body = _trusted_body(request, app)
    ctx, queue = _queue(request, app, body)
    fields = {key: value for key, value in body.items() if key not in QUEUE_KEYS}
    try:
        mapping = app.event_sources.create(queue, fields, remote=True)
    except MappingError as error:
        return _refused(error)
    return Response(json.dumps(describe(ctx, mapping)), status=201, mimetype="application/json")


def show(request, app, mapping_id: str) -> dict:
    """One mapping, with its settings, state and counters."""
    return describe(_context(request, app), _mapping(app, mapping_id))


def update(request, app, mapping_id: str):
    """Change the fields given (not the queue); the counters carry on. A JSON body only."""
    mapping = _mapping(app, mapping_id)
    body = _trusted_body(request, app)
    if any(key in body for key in QUEUE_KEYS):
        return _refused(MappingError("queue", "a mapping's queue does not change; delete it and create another"))
    try:
        app.event_sources.update(mapping.id, body, remote=True)
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


def _trusted_body(request, app) -> dict:
    if request.mimetype != "application/json":
        raise AdminError(415, "send the mapping as JSON, with Content-Type: application/json")
    body = _body(request)
    if "target" in body and targets.runs_code(body["target"]):
        _check_code_target(request, app.event_sources.code_token)
    return body


def _check_code_target(request, code_token: str | None) -> None:
    """A command or module target over HTTP: the operator's opt-in and its token, and no web page."""
    if code_token is None:
        raise AdminError(
            403,
            "command and module targets run code as the emulator's user: give them in the config file "
            "or in Python (serve().event_source), or start the server with --allow-code-targets and send "
            f"its token in {CODE_TOKEN_HEADER}; an http(s) URL target needs neither",
        )
    if "Origin" in request.headers or any(name.lower().startswith("sec-fetch-") for name, _ in request.headers.items()):
        raise AdminError(403, "command and module targets are never taken from a web page (Origin, Sec-Fetch-*)")
    if not (_loopback(request.remote_addr) and _loopback(urlsplit(f"//{request.host}").hostname)):
        raise AdminError(
            403, "command and module targets are taken from this machine only, addressed as localhost or 127.0.0.1"
        )
    given = request.headers.get(CODE_TOKEN_HEADER, "")
    if not hmac.compare_digest(given.encode(), code_token.encode()):
        raise AdminError(
            403, f"command and module targets need the token --allow-code-targets printed, in {CODE_TOKEN_HEADER}"
        )


def _loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def _refused(error: MappingError) -> Response:
    body = {"error": str(error), "field": error.field}
    if isinstance(error, MappingConflict):
        body.update(code="ResourceConflictException", existing=error.existing.id)
    status = 409 if isinstance(error, MappingConflict) else 400
    return Response(json.dumps(body), status=status, mimetype="application/json")


RULES = [
    Rule(PATH, methods=["GET"], endpoint=list_mappings),
    Rule(PATH, methods=["POST"], endpoint=create),
    Rule(f"{PATH}/<mapping_id>", methods=["GET"], endpoint=show),
    Rule(f"{PATH}/<mapping_id>", methods=["PATCH"], endpoint=update),
    Rule(f"{PATH}/<mapping_id>", methods=["DELETE"], endpoint=delete),
]
