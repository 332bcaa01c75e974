"""The message operations: send, receive, delete, change visibility (and their batches)."""

from emulator import limits
from emulator.api import digests, ids, validation
from emulator.api.context import Context
from emulator.api.received import received_message
from emulator.api.waiting import Wait
from emulator.engine.message import Delivery, Message, Sent
from emulator.engine.queue import Queue
from emulator.errors import SqsError, invalid_parameter, invalid_reason


def send_message(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    message, delay = _new_message(ctx, queue, params, in_batch=False)
    (stored,) = queue.send([(message, delay)], ctx)
    return _sent(message, stored, params, {})


def send_message_batch(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    entries = params["Entries"]
    validation.batch_entries(entries, "SendMessageBatchRequestEntry")
    total = sum(_entry_size(entry) for entry in entries)
    if total > limits.MAX_BATCH_BYTES:
        raise SqsError(
            "BatchRequestTooLong",
            f"Batch requests cannot be longer than {limits.MAX_BATCH_BYTES} bytes. You have sent {total} bytes.",
        )
    accepted, sent_entries, failed = [], [], []
    for entry in entries:
        try:
            accepted.append(_new_message(ctx, queue, entry, in_batch=True))
        except SqsError as error:
            if queue.fifo:
                raise  # AWS fails a FIFO batch as a whole (recorded for missing group and dedup ids)
            failed.append(_failure(entry["Id"], error))
            continue
        sent_entries.append(entry)
    stored = queue.send(accepted, ctx)
    successful = [
        _sent(message, kept, entry, {"Id": entry["Id"]})
        for entry, (message, _), kept in zip(sent_entries, accepted, stored, strict=True)
    ]
    return _batch_result(successful, failed)


def receive_message(ctx: Context, params: dict) -> dict | Wait:
    """The messages, or a Wait when the long poll has to wait (its caller waits: api/waiting.py)."""
    queue = ctx.queue(params["QueueUrl"])
    max_messages = validation.int_in_range(params, "MaxNumberOfMessages", 1, limits.MAX_BATCH_ENTRIES, default=1)
    visibility = _at_most(params, "VisibilityTimeout", limits.MAX_VISIBILITY_TIMEOUT, queue.visibility_timeout)
    wait = _at_most(params, "WaitTimeSeconds", limits.MAX_WAIT_SECONDS, queue.receive_wait_seconds)
    # The newer MessageSystemAttributeNames wins over the deprecated AttributeNames.
    system_names = set(params.get("MessageSystemAttributeNames") or params.get("AttributeNames") or ())
    attribute_names = params.get("MessageAttributeNames") or ()
    attempt_id = params.get("ReceiveRequestAttemptId")
    if attempt_id is not None:
        validation.receive_request_attempt_id(attempt_id)
    attempt_id = attempt_id if queue.fifo else None

    def answer(deliveries: list[Delivery] | None) -> dict | None:
        if not deliveries:
            return None if deliveries is None else {}
        return {"Messages": [received_message(delivery, system_names, attribute_names) for delivery in deliveries]}

    polls = queue.polls
    now = answer(polls.poll(max_messages, visibility, wait, attempt_id))
    if now is not None:
        return now
    return Wait(
        queue,
        ctx.broker.clock.deadline(wait),
        lambda last: answer(polls.poll(max_messages, visibility, wait, attempt_id, last)),
        ctx.broker.waits,
    )


def delete_message(ctx: Context, params: dict) -> dict:
    ctx.queue(params["QueueUrl"]).delete(params["ReceiptHandle"])
    return {}


def delete_message_batch(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    entries = params["Entries"]
    validation.batch_entries(entries, "DeleteMessageBatchRequestEntry")
    handles = [entry.get("ReceiptHandle") for entry in entries]
    # The entries with a handle are deleted together, under one hold of the queue's lock.
    deleted = iter(queue.delete_batch([handle for handle in handles if handle]))
    return _outcomes(entries, [next(deleted) if handle else _no_handle() for handle in handles])


def change_message_visibility(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    queue.change_visibility(params["ReceiptHandle"], _visibility_timeout(params))
    return {}


def change_message_visibility_batch(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    return _for_each_entry(
        params["Entries"],
        "ChangeMessageVisibilityBatchRequestEntry",
        lambda entry: queue.change_visibility(_handle(entry), _visibility_timeout(entry)),
    )


# -- helpers ----------------------------------------------------------------


def _new_message(ctx: Context, queue: Queue, entry: dict, in_batch: bool) -> tuple[Message, int]:
    settings = queue.settings
    encoded = validation.body(entry.get("MessageBody"))
    body: str = entry["MessageBody"]  # there: checked
    attributes = entry.get("MessageAttributes") or {}
    size = len(encoded) + (validation.message_attributes(attributes) if attributes else 0)
    if size > settings.maximum_message_size:
        raise invalid_reason(f"Message must be shorter than {settings.maximum_message_size} bytes.")
    system_attributes = entry.get("MessageSystemAttributes") or {}
    if system_attributes:
        validation.system_attributes(system_attributes)
    if ctx.trace_header and "AWSTraceHeader" not in system_attributes:
        # X-Ray's HTTP header becomes the attribute; one given in the request wins.
        trace = {"DataType": "String", "StringValue": ctx.trace_header}
        system_attributes = {**system_attributes, "AWSTraceHeader": trace}
    group_id = entry.get("MessageGroupId")
    dedup_id = entry.get("MessageDeduplicationId")
    if queue.fifo:
        if group_id is None:
            # AWS: MissingParameter on SendMessage, InvalidParameterValue inside a batch, same text.
            raise SqsError(
                "InvalidParameterValue" if in_batch else "MissingParameter",
                "The request must contain the parameter MessageGroupId.",
            )
        if dedup_id is None and not queue.content_based_deduplication:
            raise invalid_parameter(
                "The queue should either have ContentBasedDeduplication enabled or "
                "MessageDeduplicationId provided explicitly"
            )
        if entry.get("DelaySeconds"):  # 0 is allowed: it means the queue's delay (AWS-recorded)
            raise invalid_parameter(
                f"Value {entry['DelaySeconds']} for parameter DelaySeconds is invalid. "
                "Reason: The request include parameter that is not valid for this queue type."
            )
    elif dedup_id is not None:
        raise invalid_parameter(
            f"Value {dedup_id} for parameter MessageDeduplicationId is invalid. "
            "Reason: The request include parameter that is not valid for this queue type."
        )
    if group_id is not None:  # on a standard queue: a fair-queue tenant
        validation.group_or_dedup_id("MessageGroupId", group_id)
    if dedup_id is not None:
        validation.group_or_dedup_id("MessageDeduplicationId", dedup_id)
    delay = settings.delay_seconds if queue.fifo else entry.get("DelaySeconds", settings.delay_seconds)
    if not 0 <= delay <= limits.MAX_DELAY_SECONDS:
        raise invalid_parameter(
            f"Value {delay} for parameter DelaySeconds is invalid. "
            f"Reason: DelaySeconds must be >= 0 and <= {limits.MAX_DELAY_SECONDS}."
        )
    message = Message(
        ids.new_uuid_bytes() + digests.md5_of_body(encoded),
        body,
        attributes,
        system_attributes,
        digests.md5_of_attributes(attributes) if attributes else None,
        ctx.sender_id,
        group_id,
        dedup_id,
    )
    return message, delay


def _entry_size(entry: dict) -> int:
    """An entry's bytes toward the batch's limit, counted before the entry is checked: a lone
    surrogate (which its own check refuses) counts as the three bytes it was sent as."""
    size = validation.utf8_size(entry.get("MessageBody") or "")
    for name, value in (entry.get("MessageAttributes") or {}).items():
        content = value.get("StringValue") or value.get("BinaryValue") or b""
        size += validation.utf8_size(name) + validation.utf8_size(value.get("DataType", ""))
        size += len(content) if isinstance(content, bytes) else validation.utf8_size(content)
    return size


def _sent(message: Message, stored: Message | Sent, entry: dict, result: dict) -> dict:
    """`result` with the digests of what was sent and the id (and FIFO sequence number) of
    what the queue keeps, which for a FIFO duplicate is the original message."""
    result["MessageId"] = stored.id
    result["MD5OfMessageBody"] = message.md5_of_body
    attributes_md5 = message.md5_of_attributes
    if attributes_md5:
        result["MD5OfMessageAttributes"] = attributes_md5
    # The digest of the system attributes the request carried, which is what an
    # SDK checks (the Kotlin SDK, only when it sent some); a trace that came only
    # from the X-Amzn-Trace-Id header adds none.
    system_attributes = entry.get("MessageSystemAttributes")
    if system_attributes:
        result["MD5OfMessageSystemAttributes"] = digests.md5_of_attributes(system_attributes)
    if stored.sequence_number is not None:
        result["SequenceNumber"] = stored.sequence_number
    return result


def _at_most(params: dict, name: str, high: int, default: int) -> int:
    value = params.get(name, default)
    if not 0 <= value <= high:
        raise invalid_parameter(
            f"Value {value} for parameter {name} is invalid. Reason: Must be >= 0 and <= {high}, if provided."
        )
    return value


def _no_handle() -> SqsError:
    return SqsError("MissingParameter", "The request must contain the parameter ReceiptHandle.")


def _handle(entry: dict) -> str:
    handle = entry.get("ReceiptHandle")
    if not handle:
        raise _no_handle()
    return handle


def _visibility_timeout(params: dict) -> int:
    timeout = params.get("VisibilityTimeout")
    if timeout is None:
        raise SqsError("MissingParameter", "The request must contain the parameter VisibilityTimeout.")
    if not 0 <= timeout <= limits.MAX_VISIBILITY_TIMEOUT:
        raise invalid_parameter(
            f"Value {timeout} for parameter VisibilityTimeout is invalid. "
            f"Reason: VisibilityTimeout must be an integer between 0 and {limits.MAX_VISIBILITY_TIMEOUT}."
        )
    return timeout


def _for_each_entry(entries: list, entry_shape: str, action) -> dict:
    validation.batch_entries(entries, entry_shape)
    return _outcomes(entries, [_error_of(action, entry) for entry in entries])


def _error_of(action, entry: dict) -> SqsError | None:
    try:
        action(entry)
    except SqsError as error:
        return error
    return None


def _outcomes(entries: list, errors: list[SqsError | None]) -> dict:
    """A batch's result from each entry's error, or None where it succeeded."""
    successful, failed = [], []
    for entry, error in zip(entries, errors, strict=True):
        if error is None:
            successful.append({"Id": entry["Id"]})
        else:
            failed.append(_failure(entry["Id"], error))
    return _batch_result(successful, failed)


def _batch_result(successful: list, failed: list) -> dict:
    # AWS leaves out an empty list (a client reading result["Failed"] fails there too).
    return {key: entries for key, entries in (("Successful", successful), ("Failed", failed)) if entries}


def _failure(entry_id: str, error: SqsError) -> dict:
    error = error.batch_form or error
    # A batch entry's problem reads "cannot be validated" where a single call says "are invalid".
    message = error.message.replace(
        "One or more parameters are invalid.", "One or more parameters cannot be validated."
    )
    return {"Id": entry_id, "SenderFault": error.spec.sender_fault, "Code": error.code, "Message": message}
