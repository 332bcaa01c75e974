"""A received message as ReceiveMessage answers it (and the admin API's peek shows it)."""

from typing import Any

from emulator.api import digests
from emulator.engine.message import Delivery


def received_message(delivery: Delivery, system_names: set[str], attribute_names: Any) -> dict:
    message = delivery.message
    result: dict[str, Any] = {
        "MessageId": message.id,
        "ReceiptHandle": delivery.receipt_handle,
        "MD5OfBody": message.md5_of_body,
        "Body": message.body,
    }
    system = _system_attributes(delivery, system_names)
    if system:
        result["Attributes"] = system
    selected = _select_attributes(message.attributes, attribute_names)
    if selected:
        result["MessageAttributes"] = selected
        # AWS digests the attributes it returns, so a filtered subset gets its own digest.
        result["MD5OfMessageAttributes"] = (
            message.md5_of_attributes
            if len(selected) == len(message.attributes)
            else digests.md5_of_attributes(selected)
        )
    return result


def _system_attributes(delivery: Delivery, names: set[str]) -> dict[str, str]:
    if not names:
        return {}
    message = delivery.message
    available = {
        "SenderId": message.sender_id,
        "SentTimestamp": str(int(message.sent_at * 1000)),
        "ApproximateReceiveCount": str(delivery.receive_count),
        "ApproximateFirstReceiveTimestamp": str(int(delivery.first_receive_at * 1000)),
    }
    trace = message.system_attributes.get("AWSTraceHeader")
    if trace:
        available["AWSTraceHeader"] = trace["StringValue"]
    if message.group_id is not None:
        available["MessageGroupId"] = message.group_id
    sequence_number, dedup_id = message.sequence_number, message.dedup_id
    # FIFO only (a FIFO message has both): a standard queue drops these names silently.
    if sequence_number is not None and dedup_id is not None:
        available["MessageDeduplicationId"] = dedup_id
        available["SequenceNumber"] = sequence_number
    if message.dead_letter_source:
        available["DeadLetterQueueSourceArn"] = message.dead_letter_source
    if "All" in names:
        return available
    return {name: value for name, value in available.items() if name in names}


def _select_attributes(attributes: dict, names: Any) -> dict:
    """The attributes MessageAttributeNames selects: All, * or .* for every one,
    "prefix.*" by plain prefix, otherwise exact names; unknown names select nothing."""
    if not attributes or not names:
        return {}
    if any(name in ("All", "*", ".*") for name in names):
        return attributes
    prefixes = tuple(name[:-2] for name in names if name.endswith(".*"))
    return {name: value for name, value in attributes.items() if name in names or name.startswith(prefixes)}
