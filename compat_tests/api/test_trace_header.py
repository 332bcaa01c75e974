"""X-Ray tracing: the X-Amzn-Trace-Id HTTP header of a send becomes the
message's AWSTraceHeader system attribute (docs/sqs-reference.md
section 3; https://docs.aws.amazon.com/xray/latest/devguide/xray-services-sqs.html).
"""

import pytest

from compat_tests.helpers import md5_of_attributes, receive_one

# The values AWS was recorded with (docs/sqs-reference.md section 3).
HEADER_TRACE = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"
ATTRIBUTE_TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
ATTRIBUTE_TRACE_MD5 = "5ae4d5d7636402d80f4eb6d213245a88"
USER_ATTRIBUTES = {"colour": {"DataType": "String", "StringValue": "blue"}}


def _system(trace: str) -> dict:
    return {"AWSTraceHeader": {"DataType": "String", "StringValue": trace}}


@pytest.fixture
def traced(make_client):
    """A client whose sends carry the X-Amzn-Trace-Id header, as the X-Ray SDK's do."""
    client = make_client()

    def add_header(request, **_):
        request.headers["X-Amzn-Trace-Id"] = HEADER_TRACE

    for operation in ("SendMessage", "SendMessageBatch"):
        client.meta.events.register(f"before-sign.sqs.{operation}", add_header)
    return client


def test_the_header_becomes_the_attribute(traced, queue):
    sent = traced.send_message(QueueUrl=queue, MessageBody="traced")
    # The digest covers the system attributes the request carried: none here.
    assert "MD5OfMessageSystemAttributes" not in sent and "MD5OfMessageAttributes" not in sent
    message = receive_one(traced, queue, AttributeNames=["SentTimestamp", "AWSTraceHeader"])
    assert message["Attributes"]["AWSTraceHeader"] == HEADER_TRACE
    assert set(message["Attributes"]) == {"SentTimestamp", "AWSTraceHeader"}


def test_an_explicit_attribute_wins_over_the_header(traced, queue):
    sent = traced.send_message(QueueUrl=queue, MessageBody="traced", MessageSystemAttributes=_system(ATTRIBUTE_TRACE))
    assert sent["MD5OfMessageSystemAttributes"] == ATTRIBUTE_TRACE_MD5
    message = receive_one(traced, queue, AttributeNames=["All"])
    assert message["Attributes"]["AWSTraceHeader"] == ATTRIBUTE_TRACE


def test_the_trace_is_no_message_attribute(sqs, queue):
    sent = sqs.send_message(
        QueueUrl=queue,
        MessageBody="traced",
        MessageAttributes=USER_ATTRIBUTES,
        MessageSystemAttributes=_system(ATTRIBUTE_TRACE),
    )
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(USER_ATTRIBUTES)
    assert sent["MD5OfMessageSystemAttributes"] == ATTRIBUTE_TRACE_MD5
    message = receive_one(sqs, queue, MessageAttributeNames=["All"], AttributeNames=["All"])
    assert message["MessageAttributes"] == USER_ATTRIBUTES
    assert message["MD5OfMessageAttributes"] == md5_of_attributes(USER_ATTRIBUTES)
    assert message["Attributes"]["AWSTraceHeader"] == ATTRIBUTE_TRACE


def test_batch_entries_take_the_header_and_their_own_attribute_wins(traced, queue):
    result = traced.send_message_batch(
        QueueUrl=queue,
        Entries=[
            {"Id": "header", "MessageBody": "from the header"},
            {"Id": "own", "MessageBody": "its own", "MessageSystemAttributes": _system(ATTRIBUTE_TRACE)},
        ],
    )
    by_id = {entry["Id"]: entry for entry in result["Successful"]}
    assert "MD5OfMessageSystemAttributes" not in by_id["header"]
    assert by_id["own"]["MD5OfMessageSystemAttributes"] == ATTRIBUTE_TRACE_MD5
    traces = {}
    for _ in range(2):
        message = receive_one(traced, queue, AttributeNames=["AWSTraceHeader"], VisibilityTimeout=60)
        traces[message["Body"]] = message["Attributes"]["AWSTraceHeader"]
    assert traces == {"from the header": HEADER_TRACE, "its own": ATTRIBUTE_TRACE}


def test_the_trace_is_returned_only_when_asked_for(traced, queue):
    traced.send_message(QueueUrl=queue, MessageBody="traced")
    message = receive_one(traced, queue, AttributeNames=["SentTimestamp"], VisibilityTimeout=0)
    assert set(message["Attributes"]) == {"SentTimestamp"}
    assert "Attributes" not in receive_one(traced, queue)


def test_no_header_no_trace(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="untraced")
    assert "AWSTraceHeader" not in receive_one(sqs, queue, AttributeNames=["All"])["Attributes"]
