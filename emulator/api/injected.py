"""A call while error rules are in force (engine/error_rules.py): answered with the error a
rule picks instead of being run, or, for a batch, run without the entries a rule fails,
which join the answer's Failed list. Either way the call changes nothing it was not run
for: an injected error stores, deletes and changes no message.
"""

from collections.abc import Callable

from emulator.api import validation
from emulator.api.context import Context
from emulator.api.waiting import Wait
from emulator.engine.error_rules import ErrorRules
from emulator.errors import SqsError

BATCHES = frozenset({"SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"})


def run(ctx: Context, operation: str, params: dict, rules: ErrorRules, handler: Callable) -> dict | Wait:
    key, queue = _named(ctx, params)
    error = rules.call_error(operation, key, queue)
    if error is not None:
        raise error
    entries = params.get("Entries")
    if operation not in BATCHES or queue is None or not isinstance(entries, list):
        return handler(ctx, params)
    validation.batch_entries(entries, f"{operation}RequestEntry")  # the batch as a whole first, as AWS checks it
    errors = rules.entry_errors(operation, queue, len(entries))
    if not any(errors):
        return handler(ctx, params)
    kept = [entry for entry, failed in zip(entries, errors, strict=True) if failed is None]
    result = handler(ctx, {**params, "Entries": kept}) if kept else {}
    failed = [_failure(entry["Id"], error) for entry, error in zip(entries, errors, strict=True) if error]
    result["Failed"] = [*result.get("Failed", ()), *failed]
    return result


def _named(ctx: Context, params: dict) -> tuple[tuple[str, str, str] | None, object]:
    """The (account, region, name) of the queue a call names, and that queue if it exists."""
    url, name = params.get("QueueUrl"), params.get("QueueName")
    if isinstance(url, str):
        key = ctx.queue_key(url)
    elif isinstance(name, str):
        key = (params.get("QueueOwnerAWSAccountId") or ctx.account, ctx.region, name)
    else:
        return None, None
    if key is None:
        return None, None
    try:
        return key, ctx.broker.get_queue(*key)
    except SqsError:
        return key, None


def _failure(entry_id: str, error: SqsError) -> dict:
    return {"Id": entry_id, "SenderFault": error.spec.sender_fault, "Code": error.code, "Message": error.message}
