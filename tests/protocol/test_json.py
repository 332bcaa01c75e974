"""The JSON 1.0 protocol: type checks and base64 in, JSON and the query-error header out."""

import json

import pytest
from botocore.awsrequest import HeadersDict
from botocore.parsers import create_parser

from emulator import protocol
from emulator.errors import SqsError, queue_does_not_exist
from emulator.protocol import awsjson

from .support import (
    HOST,
    JSON_MODEL,
    QURL,
    RID,
    parse_error,
    parse_response,
    raw_request,
    roundtrip,
)


def test_json_ignores_unknown_members_and_nulls():
    req = raw_request(
        headers={"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": "application/x-amz-json-1.0"},
        data=json.dumps({"Bogus": 1, "QueueNamePrefix": None, "MaxResults": 2}),
    )
    assert roundtrip(req) == ("json", ("ListQueues", {"MaxResults": 2}))


def test_json_bad_types():
    def call(body):
        return parse_error(
            raw_request(
                headers={"X-Amz-Target": "AmazonSQS.ReceiveMessage", "Content-Type": "application/x-amz-json-1.0"},
                data=body,
            )
        )

    err = call(json.dumps({"QueueUrl": QURL, "MaxNumberOfMessages": "5"}))
    assert err.name == "InvalidParameterValue"
    assert err.message.startswith('Value "5" for parameter MaxNumberOfMessages is invalid. Reason: ')
    assert call(json.dumps({"QueueUrl": QURL, "MaxNumberOfMessages": True})).name == "InvalidParameterValue"
    assert call('{"QueueUrl": ').name == "InvalidParameterValue"
    assert call("[1, 2]").name == "InvalidParameterValue"
    assert call(b"\xff\xfe").name == "InvalidParameterValue"


def test_json_bad_blob():
    req = raw_request(
        headers={"X-Amz-Target": "AmazonSQS.SendMessage"},
        data=json.dumps(
            {
                "QueueUrl": QURL,
                "MessageBody": "x",
                "MessageAttributes": {"b": {"DataType": "Binary", "BinaryValue": "***"}},
            }
        ),
    )
    err = parse_error(req)
    assert err.name == "InvalidParameterValue" and "MessageAttributes.b.BinaryValue" in err.message


def test_json_content_type_without_target():
    req = raw_request(headers={"Content-Type": "application/x-amz-json-1.0"}, data="{}")
    assert protocol.detect(req) == "json"
    assert parse_error(req).name == "InvalidAction"


def test_json_errors():
    response = protocol.serialize_error("json", queue_does_not_exist(), RID).response()
    assert response.status_code == 400
    assert response.headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"
    assert json.loads(response.get_data()) == {
        "__type": "com.amazonaws.sqs#QueueDoesNotExist",
        "message": "The specified queue does not exist.",
    }
    parsed = parse_response(JSON_MODEL, "json", "GetQueueUrl", response)
    assert parsed["Error"] == {
        "Code": "AWS.SimpleQueueService.NonExistentQueue",
        "Message": "The specified queue does not exist.",
        "Type": "Sender",
        "QueryErrorCode": "QueueDoesNotExist",
    }

    response = protocol.serialize_error("json", SqsError("PurgeQueueInProgress", "wait"), RID).response()
    parsed = parse_response(JSON_MODEL, "json", "PurgeQueue", response)
    assert response.status_code == 403
    assert parsed["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert parsed["Error"]["QueryErrorCode"] == "PurgeQueueInProgress"


def test_boto3_client_error_class():
    """botocore's SQS hook turns our JSON error into the modelled exception class."""
    import boto3

    client = boto3.client(
        "sqs", region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test", endpoint_url=HOST
    )
    response = protocol.serialize_error("json", queue_does_not_exist(), RID).response()
    raw = {"status_code": 400, "headers": HeadersDict(dict(response.headers)), "body": response.get_data()}
    parsed = create_parser("json").parse(raw, JSON_MODEL.operation_model("GetQueueUrl").output_shape)
    error_class = client.exceptions.from_code(parsed["Error"]["QueryErrorCode"])
    assert error_class is client.exceptions.QueueDoesNotExist


@pytest.mark.parametrize("depth", [900, 990, 1000, 100_000])
def test_json_nested_deeper_than_python_goes_is_the_clients(depth):
    # Deep enough and the decoder gives up, a little less and only the message's rendering does: a 400 either way.
    body = '{"QueueName": ' + "[" * depth + "]" * depth + "}"
    err = parse_error(raw_request(headers={"X-Amz-Target": "AmazonSQS.GetQueueUrl"}, data=body))
    assert err.name == "InvalidParameterValue"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"MaxNumberOfMessages": 18446744073709551616}',  # past 64 bits: orjson reads a float
        b'{"MaxNumberOfMessages": -9223372036854775809}',
        b'{"MaxNumberOfMessages": 18446744073709551615}',  # the last orjson reads whole
        b'{"QueueUrl": 123456789012345678901234567890, "MaxNumberOfMessages": "x"}',
        b'{"QueueUrl": "q", "MaxNumberOfMessages": 18446744073709551616, "VisibilityTimeout": "x"}',
        b'{"QueueUrl": "q", "Bogus": 18446744073709551616}',  # an unknown member: ignored either way
        b'{"Entries": [{"Id": "1", "DelaySeconds": 99999999999999999999999}], "QueueUrl": "0000000000"}',
        b'{"Entries": [{"Id": "1", "DelaySeconds": 99999999999999999999999}, {"Id": 2}], "QueueUrl": "q"}',
        b'{"MaxNumberOfMessages": 1e400}',
        b'{"MaxNumberOfMessages": NaN}',
        b'{"QueueUrl": "\\ud800"}',  # a lone surrogate escape
        b'{"QueueUrl": "\\u00e9\\ud83d\\ude00", "VisibilityTimeout": 1.5}',
        '{"QueueUrl": "q"}'.encode("utf-16"),
        b'\xef\xbb\xbf{"QueueUrl": "q"}',
        b'{"QueueUrl": "q", "QueueUrl": "r"}',
        b'{"QueueUrl": "q", "MessageBody": "1234567890123456789012345"}',
        b"18446744073709551616",
        b"   ",
        b"[1, 2]",
    ],
)
def test_bodies_are_read_as_the_standard_library_reads_them(raw, monkeypatch):
    """orjson reads most bodies; what a request parses to, or the error it gets, is the same
    as when the standard library reads every body (orjson made to refuse them all)."""
    target = "AmazonSQS.SendMessageBatch" if b"Entries" in raw else "AmazonSQS.ReceiveMessage"
    request = raw_request(headers={"X-Amz-Target": target}, data=raw)

    def outcome():
        try:
            return repr(protocol.parse("json", request))
        except SqsError as error:
            return repr((error.name, error.message))

    fast = outcome()

    def refuse(raw):
        raise awsjson.orjson.JSONDecodeError("refused", "", 0)

    monkeypatch.setattr(awsjson.orjson, "loads", refuse)
    assert fast == outcome()
