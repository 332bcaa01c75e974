"""The admin routes of AWS's errors by rule and of KMS keys' states (emulator/engine/error_rules.py),
and the one reader of a rule's fields, which the config file shares (the pytest plugin calls the routes).
"""

from werkzeug.routing import Rule

from emulator.api.injected import BATCHES
from emulator.engine.error_rules import KMS_ERRORS, ErrorRule
from emulator.errors import ERRORS
from emulator.protocol.model import error_documentation, service_model
from emulator.server.admin.routes import AdminError, _body, _context, _param

RULE_FIELDS = (
    "error",
    "queue",
    "account",
    "region",
    "operation",
    "probability",
    "after",
    "count",
    "entries",
    "seed",
    "message",
)


def get_error_rules(request, app) -> dict:
    """The error rules in force, each with how many calls it matched and answered, and the KMS keys' states.

    Answers `rules` (each with `id`, `error`, `message`, `queue` (null: every call), `operations`
    (null: every one), `probability`, `after`, `count`, `entries`, `seed`, `matched` and `fired`)
    and `kms_keys` (each key, an ARN read down to its key id or alias, to its state).
    """
    rules = app.broker.error_rules
    if rules is None:
        return {"rules": [], "kms_keys": {}}
    return {"rules": [rule.as_dict() for rule in rules.rules()], "kms_keys": rules.keys()}


def post_error_rule(request, app) -> dict:
    """Add an error rule: matching SQS calls are answered with an AWS error instead of being run.

    Body: `error` (an error of the emulator's table, e.g. `RequestThrottled`, `InternalError`,
    `ServiceUnavailable`, `KmsDisabled`, any error of SQS's model), and optionally `queue` (URL
    or name; `account`, `region`; absent: every call), `operation` (a name or a list; absent:
    every one), `probability` (0 to 1, default 1), `after` (matching calls that pass first,
    default 0), `count` (how many times it fires; absent: no end), `entries` (true: a batch
    operation's entries fail one by one in its `Failed` list instead of the call), `seed` and
    `message` (default: AWS's wording). Answers `rule`, the rule now in force, with its `id`.
    """
    body = _body(request)
    rule = error_rule(body, lambda message: AdminError(400, message), lambda: _context(request, app))
    return {"rule": app.broker.errors(lambda rules: rules.add(rule)).as_dict()}


def delete_error_rules(request, app) -> dict:
    """Remove one error rule (`?id=`, or `id` in the body), or every one (the KMS keys' states stay).

    Answers the rules left, as GET does; 404 for an id that names no rule.
    """
    rule_id = _param(request, _body(request), "id")
    if rule_id is None:
        app.broker.errors(lambda rules: rules.clear_rules())
        return get_error_rules(request, app)
    try:
        number = int(rule_id)
    except (TypeError, ValueError):
        raise AdminError(400, "id must be a rule's id, a number") from None
    if not app.broker.errors(lambda rules: rules.remove(number)):
        raise AdminError(404, f"no error rule {rule_id}")
    return get_error_rules(request, app)


def put_kms_key(request, app) -> dict:
    """Set a KMS key's state: SendMessage, SendMessageBatch and ReceiveMessage on every queue whose
    KmsMasterKeyId names it answer the matching Kms* error.

    Body: `key` (`alias/aws/sqs`, a key id, or a key or alias ARN) and `state`: `disabled`
    (KmsDisabled), `pending_deletion` (KmsInvalidState), `not_found` (KmsNotFound),
    `access_denied` (KmsAccessDenied), `invalid_usage` (KmsInvalidKeyUsage), `throttled`
    (KmsThrottled), `opt_in_required` (KmsOptInRequired) or `enabled` (the key works again).
    Answers `kms_keys`, every key's state.
    """
    body = _body(request)
    key, state = body.get("key"), body.get("state")
    if not isinstance(key, str) or not key:
        raise AdminError(400, "key must name a KMS key: alias/aws/sqs, a key id or an ARN")
    try:
        return {
            "kms_keys": app.broker.errors(lambda rules: rules.set_key(key, state if isinstance(state, str) else ""))
        }
    except ValueError as problem:
        raise AdminError(400, str(problem)) from None


def delete_kms_keys(request, app) -> dict:
    """Every KMS key works again. Answers `{"kms_keys": {}}`."""
    app.broker.errors(lambda rules: rules.clear_keys())
    return {"kms_keys": {}}


RULES = [
    Rule("/_emulator/error-rules", methods=["GET"], endpoint=get_error_rules),
    Rule("/_emulator/error-rules", methods=["POST"], endpoint=post_error_rule),
    Rule("/_emulator/error-rules", methods=["DELETE"], endpoint=delete_error_rules),
    Rule("/_emulator/kms-keys", methods=["PUT"], endpoint=put_kms_key),
    Rule("/_emulator/kms-keys", methods=["DELETE"], endpoint=delete_kms_keys),
]


# -- shared with the config file ------------------------------------------------------------


def error_rule(fields: dict, error, context) -> ErrorRule:
    """An ErrorRule from its JSON or TOML fields; `error(message)` builds the exception to raise,
    `context()` the api.Context a queue's URL or name is read in."""
    unknown = sorted(fields.keys() - set(RULE_FIELDS))
    if unknown:
        raise error(f"unknown field {unknown[0]!r} (known: {', '.join(RULE_FIELDS)})")
    name = fields.get("error")
    if name not in ERRORS:
        raise error(f"error must be one of {', '.join(sorted(ERRORS))}")
    queue = fields.get("queue")
    key = None
    if queue is not None:
        ctx = context()
        account, region = fields.get("account"), fields.get("region")
        if not isinstance(queue, str) or not queue:
            raise error("queue must be a queue's URL or name")
        if account is not None or region is not None:
            ctx = ctx._replace(account=account or ctx.account, region=region or ctx.region)
        key = ctx.queue_key(queue)
        if key is None:
            raise error(f"queue {queue!r} names no queue")
    message = fields.get("message")
    if message is not None and not isinstance(message, str):
        raise error("message must be a string")
    if message is None and name not in KMS_ERRORS:
        message = ERRORS[name].wording or error_documentation(ERRORS[name].shape)
    operations = _operations(fields.get("operation"), error)
    entries = _flag(fields, "entries", error)
    if entries and operations is not None and not operations <= BATCHES:
        raise error(f"entries fail only in a batch: operation must be among {', '.join(sorted(BATCHES))}")
    try:
        return ErrorRule(
            name,
            message,
            queue=key,
            operations=operations,
            probability=_number(fields, "probability", 1.0, error),
            after=int(_number(fields, "after", 0, error, whole=True)),
            count=None if fields.get("count") is None else int(_number(fields, "count", 1, error, whole=True)),
            entries=entries,
            seed=None if fields.get("seed") is None else int(_number(fields, "seed", 0, error, whole=True)),
        )
    except ValueError as problem:
        raise error(str(problem)) from None


def _operations(value, error) -> frozenset[str] | None:
    if value is None:
        return None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        raise error("operation must be an SQS operation's name, or a list of them")
    known = service_model().operation_names
    for name in names:
        if name not in known:
            raise error(f"operation {name!r} is not an SQS operation (e.g. SendMessage, ReceiveMessage)")
    return frozenset(names)


def _number(fields: dict, name: str, default: float, error, whole: bool = False) -> float:
    value = fields.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise error(f"{name} must be {'a whole number' if whole else 'a number'}")
    return value


def _flag(fields: dict, name: str, error) -> bool:
    value = fields.get(name, False)
    if not isinstance(value, bool):
        raise error(f"{name} must be true or false")
    return value
