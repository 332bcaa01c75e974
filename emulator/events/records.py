"""A received message as a record of Lambda's SQS event.

The shape of "Using Lambda with Amazon SQS" (Lambda Developer Guide), example
standard and FIFO queue message events: messageId, receiptHandle, body,
attributes (the system attributes as strings: ApproximateReceiveCount,
SentTimestamp, SenderId, ApproximateFirstReceiveTimestamp, and on a FIFO queue
SequenceNumber, MessageGroupId, MessageDeduplicationId; AWSTraceHeader when the
message has one), messageAttributes in camel case (stringValue or binaryValue in
base64, stringListValues, binaryListValues, dataType), md5OfBody,
md5OfMessageAttributes (null when there are no attributes, as events Lambda
delivered show it: ChristianKatka/aws-step-functions my-lambda1/test/event.ts, a
logged eu-west-1 event; Powertools for TypeScript's SqsRecordSchema allows null),
eventSource "aws:sqs", eventSourceARN and awsRegion.
"""

import base64

from emulator.engine.message import Delivery


def record(delivery: Delivery, queue) -> dict:
    message = delivery.message
    return {
        "messageId": message.id,
        "receiptHandle": delivery.receipt_handle,
        "body": message.body,
        "attributes": _attributes(delivery),
        "messageAttributes": {name: _attribute(value) for name, value in message.attributes.items()},
        "md5OfBody": message.md5_of_body,
        "md5OfMessageAttributes": message.md5_of_attributes or None,
        "eventSource": "aws:sqs",
        "eventSourceARN": queue.arn,
        "awsRegion": queue.region,
    }


def _attributes(delivery: Delivery) -> dict[str, str]:
    message = delivery.message
    attributes = {
        "ApproximateReceiveCount": str(delivery.receive_count),
        "SentTimestamp": str(int(message.sent_at * 1000)),
        "SenderId": message.sender_id,
        "ApproximateFirstReceiveTimestamp": str(int(delivery.first_receive_at * 1000)),
    }
    trace = message.system_attributes.get("AWSTraceHeader")
    if trace:
        attributes["AWSTraceHeader"] = trace["StringValue"]
    if message.sequence_number is not None:  # FIFO
        attributes["SequenceNumber"] = message.sequence_number
        attributes["MessageGroupId"] = message.group_id or ""
        attributes["MessageDeduplicationId"] = message.dedup_id or ""
    if message.dead_letter_source:
        attributes["DeadLetterQueueSourceArn"] = message.dead_letter_source
    return attributes


def _attribute(value: dict) -> dict:
    converted: dict = {}
    if "StringValue" in value:
        converted["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        binary = value["BinaryValue"]
        converted["binaryValue"] = base64.b64encode(binary).decode() if isinstance(binary, bytes) else binary
    converted["stringListValues"] = list(value.get("StringListValues") or [])
    converted["binaryListValues"] = [
        base64.b64encode(item).decode() if isinstance(item, bytes) else item
        for item in value.get("BinaryListValues") or []
    ]
    converted["dataType"] = value["DataType"]
    return converted
