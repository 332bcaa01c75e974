"""One function per SQS operation, named after it (SendMessage -> send_message).

A function takes the request's Context and params (shaped as botocore's SQS
model names them) and returns the output dict. It knows no HTTP, XML or JSON.
"""

from collections.abc import Callable

from botocore import xform_name

from emulator.api import injected, messages, move_tasks, queues, validation
from emulator.api.context import Context
from emulator.api.ids import new_request_id
from emulator.api.waiting import Wait

HANDLERS = {
    name: function
    for module in (queues, messages, move_tasks)
    for name, function in vars(module).items()
    if callable(function) and not name.startswith("_") and function.__module__ == module.__name__
}
# By the model's operation name too (SendMessage), which botocore's xform_name would map on every request.
_BY_OPERATION: dict[str, Callable] = {}


def dispatch(ctx: Context, operation: str, params: dict) -> dict | Wait:
    """Run one operation; the protocol layer has checked that botocore's model has it.
    A ReceiveMessage's long poll that has to wait answers a Wait (api/waiting.py)."""
    validation.no_lone_surrogates(params)
    handler = _BY_OPERATION.get(operation)
    if handler is None:
        handler = _BY_OPERATION[operation] = HANDLERS[xform_name(operation)]
    rules = ctx.broker.error_rules  # None unless an error rule or a KMS key state is set
    if rules is not None:
        return injected.run(ctx, operation, params, rules, handler)
    return handler(ctx, params)


__all__ = ["Context", "Wait", "dispatch", "new_request_id"]
