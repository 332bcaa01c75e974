"""The admin routes (RULES; the whole map is in emulator/server/admin/routing.py): each takes
(request, app) and returns a JSON-able dict, or raises AdminError with its 4xx status.

A route's docstring is its entry in docs/reference/admin-api.md (reference.py renders it):
the first line says what it does, the rest what it takes and answers.
"""

import json
import math
from datetime import UTC, datetime
from importlib import metadata

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from emulator import api
from emulator.api import peek
from emulator.engine.faults import FaultPolicy
from emulator.engine.message import State
from emulator.errors import SqsError
from emulator.server.admin import metrics, views

MAX_PEEK = 1000
DEFAULT_PEEK = 100
MAX_ADVANCE = 10 * 365 * 86400  # seconds: ten years
STATES = {
    "visible": frozenset({State.VISIBLE}),
    "inflight": frozenset({State.INFLIGHT}),
    "delayed": frozenset({State.DELAYED}),
    "all": frozenset({State.VISIBLE, State.INFLIGHT, State.DELAYED}),
}
FAULT_FIELDS = ("duplicate_delivery", "lost_delete", "delayed_visibility_seconds", "loose", "seed")

try:
    VERSION = metadata.version("sqs-emulator")
except metadata.PackageNotFoundError:  # run from a checkout without installing
    VERSION = "unknown"


class AdminError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


# -- input --------------------------------------------------------------------


def _body(request) -> dict:
    """The request's JSON object body ({} when empty)."""
    data = request.get_data()
    if not data.strip():
        return {}
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder goes
        raise AdminError(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise AdminError(400, "the body must be a JSON object")
    return body


def _param(request, body: dict, name: str):
    """A value from the JSON body, else from the query string."""
    return body[name] if name in body else request.args.get(name)


def _number(value, name: str, low: float, high: float) -> float:
    if isinstance(value, bool):
        raise AdminError(400, f"{name} must be a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise AdminError(400, f"{name} must be a number") from None
    if not (math.isfinite(number) and low <= number <= high):
        raise AdminError(400, f"{name} must be from {low:g} to {high:g}")
    return number


def _context(request, app, account: str | None = None, region: str | None = None) -> api.Context:
    return api.Context(
        broker=app.broker,
        account=account or app.account_id,
        region=region or app.region,
        base_url=app.base_url(request),
        default_region=app.region,
        sender_id=app.account_id,
        # The admin API and dashboard tell queues apart by URL, unsigned: the path form names each alone.
        url_form="path",
    )


def _queue(request, app, body: dict | None = None):
    body = body or {}
    name = _param(request, body, "queue")
    if not name or not isinstance(name, str):
        raise AdminError(400, "name a queue: queue=<queue URL or name>")
    ctx = _context(request, app, _param(request, body, "account"), _param(request, body, "region"))
    try:
        return ctx, ctx.queue(name)
    except SqsError:
        raise AdminError(404, f"no queue {name}") from None


def _manual_clock(app):
    if not app.broker.clock.manual:
        raise AdminError(409, "the server runs on the real clock; start it with --clock manual")
    return app.broker.clock


# -- routes -----------------------------------------------------------------------


def health(request, app) -> dict:
    """The server's status, version, clock, default account and region, and persistence.

    Open without the admin token under `--require-auth`, for readiness probes.
    Answers `status` ("ok"), `version`, `clock` ("manual" or "real"), `now` (epoch
    seconds), `account`, `region`, `queues` (how many) and `persistence` (null in memory).
    """
    clock = app.broker.clock
    return {
        "status": "ok",
        "version": VERSION,
        "clock": "manual" if clock.manual else "real",
        "now": clock.now(),
        "account": app.account_id,
        "region": app.region,
        "queues": len(app.broker.all_queues()),
        "persistence": app.store.describe(),
    }


def reset(request, app) -> dict:
    """Delete every queue, message, move task, event source mapping, cooldown, error rule and KMS key state; the clock keeps its time.

    Answers `{"reset": true}`.
    """
    app.event_sources.clear()
    app.broker.reset()
    return {"reset": True}


def queues(request, app) -> dict:
    """Every queue of every account and region, with its counts, totals, attributes and mappings.

    Answers `{"queues": [...]}`, each with `url`, `name`, `account`, `region`, `arn`,
    `type`, the counts `visible`, `inflight` and `delayed`, `totals` (what happened
    since it was created, `moved_in` counting the messages that arrived by
    dead-lettering or a move task), `attributes`, `tags`, `dead_letter_target` (an
    ARN or null), `dead_letter_sources` (the ARNs of the queues whose redrive policy
    names it), `faults`, `fair` (AWS's fair-queue metrics) and `event_sources` (each
    mapping's id, target, state and counters, with its last error).
    """
    ctx = _context(request, app)
    every = sorted(app.broker.all_queues(), key=lambda q: (q.account, q.region, q.name))
    sources = views.dead_letter_sources(every)
    return {
        "queues": [
            {
                **views.queue(ctx, queue),
                "dead_letter_sources": sources.get(queue.arn, []),
                "event_sources": views.event_sources(app.event_sources.on_queue(queue)),
            }
            for queue in every
        ]
    }


def messages(request, app) -> Response:
    """Peek at a queue's messages without receiving them: no receive count, no visibility change.

    Query: `queue` (URL or name; with a name, `account` and `region` pick another
    account's queue), `state` (`visible`, `inflight`, `delayed` or `all`, the default),
    `limit` (1 to 1000, default 100) and `after` (the `next` of the page before). A page
    holds at most 4 MiB of bodies and attributes (always one message), so `limit` may
    not be reached before `next`. Answers `queue`, `messages` and `next` (a cursor, or
    null on the last page).
    """
    ctx, queue = _queue(request, app)
    state = request.args.get("state", "all")
    if state not in STATES:
        raise AdminError(400, f"state must be one of {', '.join(STATES)}")
    limit = int(_number(request.args.get("limit", DEFAULT_PEEK), "limit", 1, MAX_PEEK))
    after = int(_number(request.args.get("after", 0), "after", 0, 2**63))
    found, cursor = queue.peek(STATES[state], limit, after, _with_message)
    shown = peek.within_page_bytes([message for message, _ in found])
    if shown < len(found):
        cursor = found[shown - 1][1]["cursor"]
    page = {"queue": ctx.queue_url(queue), "next": str(cursor) if cursor is not None else None}
    # Each message is written once, as UTF-8 (not six bytes for each \uXXXX escape): a page of
    # PAGE_BYTES is an answer of about that size, however its bodies read.
    return views.json_page(page, "messages", [views.message(snapshot) for _, snapshot in found[:shown]])


def _with_message(message) -> tuple:
    """Under the queue's lock: the message (to size it outside the lock) and its snapshot."""
    return message, message.snapshot()


def advance(request, app) -> dict:
    """Move the manual clock forward by `{"seconds": N}` (or `?seconds=N`), at most ten years.

    Only with `--clock manual` (else 409). Answers `{"now": <epoch seconds>}`.
    """
    clock = _manual_clock(app)
    seconds = _number(_param(request, _body(request), "seconds"), "seconds", 0, MAX_ADVANCE)
    return {"now": clock.advance(seconds)}


def set_clock(request, app) -> dict:
    """Move the manual clock forward to `{"time": <epoch seconds or ISO 8601>}` (or `?time=`).

    Only forward, and only with `--clock manual` (else 409). Answers `{"now": <epoch seconds>}`.
    """
    clock = _manual_clock(app)
    value = _body(request).get("time", request.args.get("time"))
    target = _time(value)
    now = clock.now()
    if target < now:
        raise AdminError(400, f"time only moves forward: {_iso(target)} is before the clock's {_iso(now)}")
    if target - now > MAX_ADVANCE:
        raise AdminError(400, "time may move at most ten years at once")
    return {"now": clock.advance(target - now)}


def get_faults(request, app) -> dict:
    """The fault policies in force: one queue's with `?queue=`, else every one.

    Answers `queue` and `faults` (the policy, or null), or `{"faults": [...]}`.
    """
    if request.args.get("queue"):
        ctx, queue = _queue(request, app)
        return views.faults(ctx, queue)
    ctx = _context(request, app)
    return {"faults": [views.faults(ctx, q) for q in app.broker.all_queues() if q.faults is not None]}


def put_faults(request, app) -> dict:
    """Give a queue a fault policy: injected duplicates, lost deletes, late visibility.

    Body: `queue` (URL or name), `duplicate_delivery` and `lost_delete` (probabilities),
    `delayed_visibility_seconds`, `loose` (a standard queue as loose as AWS's: true or
    false) and `seed`; the fields not given are 0 (false). Answers `queue` and `faults`,
    the policy now in force.
    """
    body = _body(request)
    ctx, queue = _queue(request, app, body)
    queue.faults = fault_policy(body, lambda message: AdminError(400, message), queue.fifo)
    return views.faults(ctx, queue)


def delete_faults(request, app) -> dict:
    """Clear one queue's fault policy (`?queue=`, or `queue` in the body), or every queue's.

    Answers `queue` and `"faults": null`, or `{"faults": []}`.
    """
    body = _body(request)
    if _param(request, body, "queue"):
        ctx, queue = _queue(request, app, body)
        queue.faults = None
        return views.faults(ctx, queue)
    for queue in app.broker.all_queues():
        queue.faults = None
    return {"faults": []}


def prometheus(request, app):
    """Prometheus text: requests by operation and outcome, latencies, queue depths and totals, mappings."""
    return metrics.response(app)


def moto_reset(request, app) -> dict:
    """moto's server-mode reset, the same as POST /_emulator/reset, so suites written for moto run unchanged."""
    return reset(request, app)


RULES = [
    Rule("/_emulator/health", methods=["GET"], endpoint=health),
    Rule("/_emulator/reset", methods=["POST"], endpoint=reset),
    Rule("/moto-api/reset", methods=["POST"], endpoint=moto_reset),
    Rule("/_emulator/queues", methods=["GET"], endpoint=queues),
    Rule("/_emulator/messages", methods=["GET"], endpoint=messages),
    Rule("/_emulator/clock/advance", methods=["POST"], endpoint=advance),
    Rule("/_emulator/clock/set", methods=["POST"], endpoint=set_clock),
    Rule("/_emulator/faults", methods=["GET"], endpoint=get_faults),
    Rule("/_emulator/faults", methods=["PUT"], endpoint=put_faults),
    Rule("/_emulator/faults", methods=["DELETE"], endpoint=delete_faults),
    Rule("/_emulator/metrics", methods=["GET"], endpoint=prometheus),
]


# -- shared with the config file ---------------------------------------------------


def fault_policy(fields: dict, error, fifo: bool) -> FaultPolicy:
    """A FaultPolicy from its JSON or TOML fields for a queue (`fifo`: a FIFO queue's);
    `error(message)` builds the exception to raise."""
    unknown = sorted(fields.keys() - {*FAULT_FIELDS, "queue", "account", "region"})
    if unknown:
        raise error(f"unknown fault {unknown[0]!r} (known: {', '.join(FAULT_FIELDS)})")
    values = {}
    for name in FAULT_FIELDS[:3]:
        if name in fields:
            value = fields[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise error(f"{name} must be a number")
            values[name] = float(value)
    loose = fields.get("loose", False)
    if not isinstance(loose, bool):
        raise error("loose must be true or false")
    if loose and fifo:
        raise error("loose is for standard queues: a FIFO queue keeps its order")
    seed = fields.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise error("seed must be an integer")
    try:
        return FaultPolicy(**values, loose=loose, seed=seed)
    except ValueError as problem:
        raise error(str(problem)) from None


def _time(value) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(value, "time", 0, 2**40)
    if isinstance(value, str) and value:
        try:
            return _number(value, "time", 0, 2**40)
        except AdminError:
            pass
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise AdminError(400, "time must be epoch seconds or ISO 8601, e.g. 2026-12-03T10:00:00Z") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)  # a time without a zone is UTC
        return parsed.timestamp()
    raise AdminError(400, "time must be epoch seconds or ISO 8601, e.g. 2026-12-03T10:00:00Z")


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()
