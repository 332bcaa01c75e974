"""The message move task operations: redrive a dead-letter queue's messages."""

import base64
import binascii
import json

from emulator import limits
from emulator.api.context import Context
from emulator.engine import move_tasks, redrive
from emulator.errors import SqsError, invalid_parameter


def start_message_move_task(ctx: Context, params: dict) -> dict:
    source = _existing(ctx, params["SourceArn"], "SourceArn")
    if not ctx.broker.dead_letter_sources(source):
        raise invalid_parameter("Source queue must be configured as a Dead Letter Queue.")
    destination_arn = params.get("DestinationArn")
    if destination_arn is not None:
        destination = _existing(ctx, destination_arn, "DestinationArn")
        if destination is source:
            raise invalid_parameter("Source queue and destination queue must be different.")
    rate = params.get("MaxNumberOfMessagesPerSecond")
    if rate is not None and not 1 <= rate <= limits.MAX_MOVE_RATE:
        raise invalid_parameter(
            f"Value {rate} for parameter MaxNumberOfMessagesPerSecond is invalid. "
            f"Reason: You must enter a number that's between 1 and {limits.MAX_MOVE_RATE}."
        )
    task = ctx.broker.start_move_task(source, destination_arn, rate)
    return {"TaskHandle": task.handle}


def list_message_move_tasks(ctx: Context, params: dict) -> dict:
    source = _existing(ctx, params["SourceArn"], "SourceArn")
    max_results = params.get("MaxResults", 1)
    if not 1 <= max_results <= limits.MAX_MOVE_TASK_RESULTS:
        raise invalid_parameter(
            f"Value {max_results} for parameter MaxResults is invalid. Reason: You must enter a number "
            f"that's between 1 and {limits.MAX_MOVE_TASK_RESULTS}."
        )
    tasks = ctx.broker.move_tasks(source.arn)[:max_results]
    return {"Results": [task.describe() for task in tasks]}


def cancel_message_move_task(ctx: Context, params: dict) -> dict:
    handle = params["TaskHandle"]
    try:
        source_arn = json.loads(base64.b64decode(handle, validate=True))["sourceArn"]
    except (ValueError, KeyError, TypeError, RecursionError, binascii.Error):
        raise invalid_parameter("Value for parameter TaskHandle is invalid.") from None
    source = _existing(ctx, source_arn, "SourceArn")
    task = next((t for t in ctx.broker.move_tasks(source.arn) if t.handle == handle), None)
    if task is None:
        raise SqsError("ResourceNotFoundException", "Task does not exist.")
    if task.status != move_tasks.RUNNING:
        raise invalid_parameter("Only active tasks can be cancelled.")
    task.cancel()
    return {"ApproximateNumberOfMessagesMoved": task.moved}


def _existing(ctx: Context, arn: str, parameter: str):
    queue = ctx.broker.queue_by_arn(arn) if redrive.ARN.fullmatch(arn) else None
    if queue is None:
        raise SqsError(
            "ResourceNotFoundException",
            f"The resource that you specified for the {parameter} parameter doesn't exist.",
        )
    return ctx.accessible(queue)
