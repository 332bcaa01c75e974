"""SendMessage: ids, MD5 digests (docs/sqs-reference.md 1.13), attributes round trip."""

import base64
import uuid

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    md5_hex,
    md5_of_attributes,
    receive_one,
    unique_name,
)

# Test vectors from docs/sqs-reference.md 1.13: AWS's own example and the npm package
# aws-md5-of-message-attributes.
VECTORS = {
    "aws-example": (
        {
            "my_attribute_name_1": {"DataType": "String", "StringValue": "my_attribute_value_1"},
            "my_attribute_name_2": {"DataType": "String", "StringValue": "my_attribute_value_2"},
        },
        "c48838208d2b4e14e3ca0093a8443f09",
    ),
    "string": (
        {"attribName1": {"DataType": "String", "StringValue": "attribValue 1"}},
        "19e27d4e946b072f3f58da80d94fd778",
    ),
    "custom-number": (
        {
            "customNumberTypeAttrib": {
                "DataType": "Number.float",
                "StringValue": "4563442423554324324264524243.32543234",
            }
        },
        "9fe1b90bbd9965bdf77bac517c7d2495",
    ),
    "binary": (
        {"binaryAttribute": {"DataType": "Binary", "BinaryValue": b"Hello binary world!"}},
        "31a92b15d92f8db860eda32aceb656c3",
    ),
    "all-three": (
        {
            "attribName1": {"DataType": "String", "StringValue": "attribValue 1"},
            "customNumberTypeAttrib": {
                "DataType": "Number.float",
                "StringValue": "4563442423554324324264524243.32543234",
            },
            "binaryAttribute": {"DataType": "Binary", "BinaryValue": b"Hello binary world!"},
        },
        "c932db14a896c663f83c260297d594ff",
    ),
}

TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"


def test_md5_helper_matches_reference_vectors():
    for attrs, expected in VECTORS.values():
        assert md5_of_attributes(attrs) == expected


def test_send_message_basic(sqs, queue):
    resp = sqs.send_message(QueueUrl=queue, MessageBody="This is a test message")
    assert resp["MD5OfMessageBody"] == "fafb00f5732ab283681e124bf8747ed1"
    uuid.UUID(resp["MessageId"])  # MessageIds are UUIDs
    assert "MD5OfMessageAttributes" not in resp
    assert "MD5OfMessageSystemAttributes" not in resp
    assert "SequenceNumber" not in resp


def test_send_message_ids_are_unique(sqs, queue):
    ids = {sqs.send_message(QueueUrl=queue, MessageBody="same")["MessageId"] for _ in range(5)}
    assert len(ids) == 5


def test_unicode_body_md5_and_round_trip(sqs, queue):
    body = "héllo wörld \u4e2d\u6587 \U0001f600 <xml>&amp;</xml> \"quoted\" 'single'"
    resp = sqs.send_message(QueueUrl=queue, MessageBody=body)
    assert resp["MD5OfMessageBody"] == md5_hex(body)
    msg = receive_one(sqs, queue)
    assert msg["Body"] == body
    assert msg["MD5OfBody"] == md5_hex(body)
    assert msg["MessageId"] == resp["MessageId"]


@pytest.mark.parametrize("vector", list(VECTORS), ids=list(VECTORS))
def test_md5_of_message_attributes_vectors(sqs, queue, vector):
    attrs, expected = VECTORS[vector]
    resp = sqs.send_message(QueueUrl=queue, MessageBody="with attributes", MessageAttributes=attrs)
    assert resp["MD5OfMessageAttributes"] == expected
    msg = receive_one(sqs, queue, MessageAttributeNames=["All"])
    assert msg["MD5OfMessageAttributes"] == expected
    assert msg["MessageAttributes"] == attrs


def test_attribute_types_round_trip(sqs, queue):
    attrs = {
        "s": {"DataType": "String", "StringValue": "text with ünïcode"},
        "n": {"DataType": "Number", "StringValue": "-12.5"},
        "b": {"DataType": "Binary", "BinaryValue": bytes(range(256))},
        "custom": {"DataType": "String.json", "StringValue": '{"a": 1}'},
        "bin.custom": {"DataType": "Binary.gz", "BinaryValue": b"\x1f\x8b\x00"},
    }
    resp = sqs.send_message(QueueUrl=queue, MessageBody="typed", MessageAttributes=attrs)
    assert resp["MD5OfMessageAttributes"] == md5_of_attributes(attrs)
    msg = receive_one(sqs, queue, MessageAttributeNames=["All"])
    assert msg["MessageAttributes"] == attrs


def test_aws_trace_header_system_attribute(sqs, queue):
    system = {"AWSTraceHeader": {"DataType": "String", "StringValue": TRACE}}
    resp = sqs.send_message(QueueUrl=queue, MessageBody="traced", MessageSystemAttributes=system)
    assert resp["MD5OfMessageSystemAttributes"] == md5_of_attributes(system)
    assert "MD5OfMessageAttributes" not in resp
    msg = receive_one(sqs, queue, AttributeNames=["AWSTraceHeader"], MessageAttributeNames=["All"])
    assert msg["Attributes"] == {"AWSTraceHeader": TRACE}
    # A system attribute is not a message attribute.
    assert "MessageAttributes" not in msg
    assert "MD5OfMessageAttributes" not in msg


def test_send_to_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.send_message, QueueUrl=url, MessageBody="x", **QUEUE_DOES_NOT_EXIST)


def test_binary_attribute_is_base64_on_the_wire(sqs, queue, raw, protocol):
    """Binary values travel as base64 in both protocols; a raw reader sees the same bytes."""
    payload = b"\x00\x01\xfe\xff"
    sqs.send_message(
        QueueUrl=queue, MessageBody="bin", MessageAttributes={"b": {"DataType": "Binary", "BinaryValue": payload}}
    )
    if protocol == "json":
        resp = raw.json_call("ReceiveMessage", {"QueueUrl": queue, "MessageAttributeNames": ["All"]})
        assert resp.status == 200
        value = resp.json()["Messages"][0]["MessageAttributes"]["b"]["BinaryValue"]
    else:
        resp = raw.query({"Action": "ReceiveMessage", "QueueUrl": queue, "MessageAttributeName.1": "All"})
        assert resp.status == 200, resp.body
        value = resp.xml().find("ReceiveMessageResult/Message/MessageAttribute/Value/BinaryValue").text
    assert base64.b64decode(value) == payload
