"""Round-trip tests of emulator.protocol against botocore's own serializers and parsers.

Requests are produced by botocore's serializers (the current JSON model, and
the last query-protocol model from botocore 1.31.80), responses are read by
botocore's parsers, so passing tests mean real clients understand us.
"""

import json
from pathlib import Path
from urllib.parse import urlencode

import botocore.session
import pytest
from botocore.awsrequest import HeadersDict
from botocore.model import ServiceModel
from botocore.parsers import create_parser
from botocore.serialize import create_serializer
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from emulator import protocol
from emulator.errors import SqsError, queue_does_not_exist

# The last query-protocol model (botocore 1.31.80's sqs/2012-11-05/service-2.json), kept in the repository.
QUERY_MODEL = Path(__file__).resolve().parent.parent / "fixtures" / "wire" / "botocore-1.31.80-sqs-service-2.json"
HOST = "http://localhost:9324"
QURL = f"{HOST}/000000000000/q1"
RID = "11111111-2222-3333-4444-555555555555"

JSON_MODEL = botocore.session.get_session().get_service_model("sqs")


@pytest.fixture(scope="module")
def query_model():
    return ServiceModel(json.loads(QUERY_MODEL.read_text()), service_name="sqs")


# ------------------------------------------------------------------ helpers


def json_request(operation, params):
    op = JSON_MODEL.operation_model(operation)
    req = create_serializer("json", include_validation=False).serialize_to_request(params, op)
    return _request(req, req["body"])


def query_request(model, operation, params, path="/"):
    op = model.operation_model(operation)
    req = create_serializer("query", include_validation=False).serialize_to_request(params, op)
    req["url_path"] = path
    # What botocore's AWSRequest does with a dict body.
    return _request(req, urlencode(req["body"], doseq=True))


def _request(req, body):
    env = EnvironBuilder(
        path=req["url_path"], base_url=HOST, method=req["method"], headers=dict(req["headers"]), data=body
    )
    return Request(env.get_environ())


def raw_request(path="/", method="POST", headers=None, data=None, query_string=None):
    env = EnvironBuilder(
        path=path, base_url=HOST, method=method, headers=headers or {}, data=data, query_string=query_string
    )
    return Request(env.get_environ())


def roundtrip(request):
    proto = protocol.detect(request)
    return proto, protocol.parse(proto, request)


def parse_response(model, proto, operation, response):
    assert response.headers["x-amzn-RequestId"] == RID
    headers = HeadersDict(dict(response.headers))
    raw = {"status_code": response.status_code, "headers": headers, "body": response.get_data()}
    return create_parser(proto).parse(raw, model.operation_model(operation).output_shape)


BINARY = b"\x00\x01\xfebinary"
SEND_PARAMS = {
    "QueueUrl": QURL,
    "MessageBody": "hello & <world>\r\n",
    "DelaySeconds": 5,
    "MessageAttributes": {
        "s": {"DataType": "String", "StringValue": "v1"},
        "b": {"DataType": "Binary", "BinaryValue": BINARY},
        "n": {"DataType": "Number.int", "StringValue": "42"},
    },
    "MessageSystemAttributes": {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1"}},
}

RECEIVE_OUTPUT = {
    "Messages": [
        {
            "MessageId": "m1",
            "ReceiptHandle": "rh1",
            "MD5OfBody": "abc",
            "Body": "body one\r\nline2 & <x>",
            "Attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1700000000000"},
            "MD5OfMessageAttributes": "def",
            "MessageAttributes": {
                "s": {"DataType": "String", "StringValue": "v1"},
                "b": {"DataType": "Binary", "BinaryValue": BINARY},
            },
        },
        {"MessageId": "m2", "ReceiptHandle": "rh2", "MD5OfBody": "x", "Body": "", "Attributes": None},
    ]
}
RECEIVE_EXPECTED = {
    "Messages": [
        RECEIVE_OUTPUT["Messages"][0],
        {"MessageId": "m2", "ReceiptHandle": "rh2", "MD5OfBody": "x", "Body": ""},
    ]
}


# ------------------------------------------------------------------ requests, both protocols


@pytest.fixture(params=["json", "query"])
def make_request(request, query_model):
    if request.param == "json":
        return json_request
    return lambda op, params, **kw: query_request(query_model, op, params, **kw)


def test_send_message_with_attributes(make_request):
    proto, (op, params) = roundtrip(make_request("SendMessage", SEND_PARAMS))
    assert op == "SendMessage"
    assert params == SEND_PARAMS
    assert isinstance(params["MessageAttributes"]["b"]["BinaryValue"], bytes)


def test_send_message_batch_entries(make_request):
    entries = [
        {"Id": "a", "MessageBody": "one", "MessageAttributes": {"k": {"DataType": "Binary", "BinaryValue": b"\xff"}}},
        {"Id": "b", "MessageBody": "two", "DelaySeconds": 3, "MessageGroupId": "g", "MessageDeduplicationId": "d"},
    ]
    _, (op, params) = roundtrip(make_request("SendMessageBatch", {"QueueUrl": QURL, "Entries": entries}))
    assert op == "SendMessageBatch"
    assert params == {"QueueUrl": QURL, "Entries": entries}


def test_create_queue_attributes_and_tags(make_request):
    sent = {
        "QueueName": "q1.fifo",
        "Attributes": {"FifoQueue": "true", "VisibilityTimeout": "60"},
        "tags": {"team": "a", "env": "dev"},
    }
    _, (op, params) = roundtrip(make_request("CreateQueue", sent))
    assert (op, params) == ("CreateQueue", sent)


@pytest.mark.parametrize(
    "operation,params",
    [
        ("ReceiveMessage", {"QueueUrl": QURL, "AttributeNames": ["All"], "MessageAttributeNames": ["a", "b"],
                            "MessageSystemAttributeNames": ["SenderId"], "MaxNumberOfMessages": 10,
                            "WaitTimeSeconds": 0, "VisibilityTimeout": 30}),
        ("GetQueueAttributes", {"QueueUrl": QURL, "AttributeNames": ["VisibilityTimeout", "Policy"]}),
        ("TagQueue", {"QueueUrl": QURL, "Tags": {"a": "1", "b": ""}}),
        ("UntagQueue", {"QueueUrl": QURL, "TagKeys": ["a", "b"]}),
        ("SetQueueAttributes", {"QueueUrl": QURL, "Attributes": {"DelaySeconds": "1"}}),
        ("DeleteMessageBatch", {"QueueUrl": QURL, "Entries": [{"Id": "1", "ReceiptHandle": "r"}]}),
        ("ChangeMessageVisibilityBatch", {"QueueUrl": QURL, "Entries": [
            {"Id": "1", "ReceiptHandle": "r", "VisibilityTimeout": 0}]}),
        ("AddPermission", {"QueueUrl": QURL, "Label": "l", "AWSAccountIds": ["111122223333"],
                           "Actions": ["SendMessage", "ReceiveMessage"]}),
        ("ListQueues", {"QueueNamePrefix": "q", "MaxResults": 5}),
        ("ListQueues", {}),
        ("DeleteMessage", {"QueueUrl": QURL, "ReceiptHandle": "r+/="}),
    ],
)
def test_request_roundtrip(make_request, operation, params):
    if operation == "ReceiveMessage" and make_request is not json_request:
        # MessageSystemAttributeNames is newer than the query protocol model.
        params = {k: v for k, v in params.items() if k != "MessageSystemAttributeNames"}
    assert roundtrip(make_request(operation, params))[1] == (operation, params)


def test_query_queue_url_from_path(query_model):
    req = query_request(query_model, "DeleteMessage", {"ReceiptHandle": "r"}, path="/000000000000/q1")
    assert roundtrip(req) == ("query", ("DeleteMessage", {"ReceiptHandle": "r", "QueueUrl": QURL}))


def test_query_empty_list_and_variants():
    # botocore sends an empty list as a bare key.
    req = raw_request(data={"Action": "GetQueueAttributes", "QueueUrl": QURL, "AttributeNames": ""})
    assert roundtrip(req)[1][1]["AttributeNames"] == []
    for style in ("AttributeNames.member.{}", "AttributeNames.{}", "AttributeName.{}"):
        data = {"Action": "GetQueueAttributes", "QueueUrl": QURL,
                style.format(2): "Policy", style.format(1): "All"}
        assert roundtrip(raw_request(data=data))[1][1]["AttributeNames"] == ["All", "Policy"]


def test_query_get_with_query_string_and_auth_keys_ignored():
    req = raw_request(
        path="/000000000000/q1",
        method="GET",
        query_string={"Action": "ReceiveMessage", "Version": "2012-11-05", "MaxNumberOfMessages": "3",
                      "X-Amz-Signature": "x", "AWSAccessKeyId": "k", "SignatureVersion": "2"},
    )
    assert roundtrip(req) == ("query", ("ReceiveMessage", {"QueueUrl": QURL, "MaxNumberOfMessages": 3}))


def test_detect():
    assert protocol.detect(json_request("ListQueues", {})) == "json"
    assert protocol.detect(raw_request(data={"Action": "ListQueues"})) == "query"
    assert protocol.detect(raw_request(method="GET")) == "query"


def test_json_ignores_unknown_members_and_nulls():
    req = raw_request(headers={"X-Amz-Target": "AmazonSQS.ListQueues",
                               "Content-Type": "application/x-amz-json-1.0"},
                      data=json.dumps({"Bogus": 1, "QueueNamePrefix": None, "MaxResults": 2}))
    assert roundtrip(req) == ("json", ("ListQueues", {"MaxResults": 2}))


# ------------------------------------------------------------------ negative requests


def _error(req) -> SqsError:
    with pytest.raises(SqsError) as info:
        roundtrip(req)
    return info.value


def test_unknown_action():
    err = _error(raw_request(data={"Action": "DoSomething"}))
    assert (err.name, err.message) == ("InvalidAction", "The action DoSomething is not valid for this endpoint.")
    err = _error(raw_request(headers={"X-Amz-Target": "AmazonSQS.DoSomething"}, data="{}"))
    assert err.name == "InvalidAction" and "DoSomething" in err.message


def test_no_action_is_an_sqs_error():
    assert _error(raw_request(method="GET")).name == "MissingParameter"
    assert _error(raw_request(data=b"not a form \xff")).name in ("MissingParameter", "MalformedQueryString")


def test_missing_required(make_request):
    err = _error(make_request("SendMessage", {"QueueUrl": QURL}))
    assert (err.name, err.message) == ("MissingParameter", "The request must contain the parameter MessageBody.")


def test_query_bad_int_and_bool_and_blob():
    err = _error(raw_request(data={"Action": "ReceiveMessage", "QueueUrl": QURL, "MaxNumberOfMessages": "abc"}))
    assert err.name == "InvalidParameterValue"
    assert err.message.startswith("Value abc for parameter MaxNumberOfMessages is invalid. Reason: ")
    err = _error(raw_request(data={"Action": "SendMessage", "QueueUrl": QURL, "MessageBody": "x",
                                   "MessageAttribute.1.Name": "b",
                                   "MessageAttribute.1.Value.DataType": "Binary",
                                   "MessageAttribute.1.Value.BinaryValue": "!!notbase64"}))
    assert err.name == "InvalidParameterValue"
    assert "MessageAttribute.1.Value.BinaryValue" in err.message


def test_json_bad_types():
    def call(body):
        return _error(raw_request(headers={"X-Amz-Target": "AmazonSQS.ReceiveMessage",
                                           "Content-Type": "application/x-amz-json-1.0"}, data=body))

    err = call(json.dumps({"QueueUrl": QURL, "MaxNumberOfMessages": "5"}))
    assert err.name == "InvalidParameterValue"
    assert err.message.startswith('Value "5" for parameter MaxNumberOfMessages is invalid. Reason: ')
    assert call(json.dumps({"QueueUrl": QURL, "MaxNumberOfMessages": True})).name == "InvalidParameterValue"
    assert call('{"QueueUrl": ').name == "InvalidParameterValue"
    assert call("[1, 2]").name == "InvalidParameterValue"
    assert call(b"\xff\xfe").name == "InvalidParameterValue"


def test_json_bad_blob():
    req = raw_request(headers={"X-Amz-Target": "AmazonSQS.SendMessage"}, data=json.dumps({
        "QueueUrl": QURL, "MessageBody": "x",
        "MessageAttributes": {"b": {"DataType": "Binary", "BinaryValue": "***"}}}))
    err = _error(req)
    assert err.name == "InvalidParameterValue" and "MessageAttributes.b.BinaryValue" in err.message


# ------------------------------------------------------------------ responses


@pytest.fixture(params=["json", "query"])
def proto_model(request, query_model):
    return request.param, JSON_MODEL if request.param == "json" else query_model


def test_receive_message_output(proto_model):
    proto, model = proto_model
    response = protocol.serialize_result(proto, "ReceiveMessage", RECEIVE_OUTPUT, RID)
    assert response.status_code == 200
    parsed = parse_response(model, proto, "ReceiveMessage", response)
    assert parsed.pop("ResponseMetadata")["RequestId"] == RID
    assert parsed == RECEIVE_EXPECTED


def test_single_message_list_and_empty_receive(proto_model):
    proto, model = proto_model
    one = {"Messages": [{"MessageId": "m", "Body": "b", "Attributes": {"SenderId": "s"}}]}
    parsed = parse_response(model, proto, "ReceiveMessage", protocol.serialize_result(proto, "ReceiveMessage", one, RID))
    assert parsed["Messages"] == one["Messages"]
    parsed = parse_response(model, proto, "ReceiveMessage", protocol.serialize_result(proto, "ReceiveMessage", {}, RID))
    assert "Messages" not in parsed


@pytest.mark.parametrize(
    "operation,output",
    [
        ("SendMessage", {"MessageId": "id", "MD5OfMessageBody": "md5", "SequenceNumber": "1"}),
        ("SendMessageBatch", {
            "Successful": [{"Id": "a", "MessageId": "m", "MD5OfMessageBody": "x"},
                           {"Id": "b", "MessageId": "n", "MD5OfMessageBody": "y"}],
            "Failed": [{"Id": "c", "SenderFault": True, "Code": "InvalidParameterValue", "Message": "bad"}]}),
        ("CreateQueue", {"QueueUrl": QURL}),
        ("GetQueueAttributes", {"Attributes": {"VisibilityTimeout": "30", "DelaySeconds": "0"}}),
        ("ListQueues", {"QueueUrls": [QURL, QURL + "2"], "NextToken": "t"}),
        ("ListQueueTags", {"Tags": {"a": "1"}}),
        ("ListDeadLetterSourceQueues", {"queueUrls": [QURL]}),
        ("ListMessageMoveTasks", {"Results": [{"Status": "RUNNING", "ApproximateNumberOfMessagesMoved": 3,
                                               "StartedTimestamp": 1700000000000}]}),
        ("DeleteMessageBatch", {"Successful": [], "Failed": [{"Id": "a", "SenderFault": False, "Code": "X"}]}),
    ],
)
def test_result_roundtrip(proto_model, operation, output):
    proto, model = proto_model
    response = protocol.serialize_result(proto, operation, output, RID)
    parsed = parse_response(model, proto, operation, response)
    parsed.pop("ResponseMetadata")
    expected = {k: v for k, v in output.items() if v != []}
    if proto == "json":
        expected = output  # JSON keeps an empty list as []
    assert parsed == expected


def test_empty_output_operations():
    response = protocol.serialize_result("query", "DeleteMessage", {}, RID)
    assert response.content_type == "text/xml"
    text = response.get_data(as_text=True)
    assert "<DeleteMessageResponse" in text and "Result" not in text and f"<RequestId>{RID}</RequestId>" in text
    response = protocol.serialize_result("json", "DeleteMessage", None, RID)
    assert response.content_type == "application/x-amz-json-1.0"
    assert json.loads(response.get_data()) == {}


def test_query_xml_layout():
    out = {"Messages": [{"MessageId": "m", "MessageAttributes": {"x": {"DataType": "String", "StringValue": "v"}}}]}
    text = protocol.serialize_result("query", "ReceiveMessage", out, RID).get_data(as_text=True)
    assert '<ReceiveMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">' in text
    assert ("<ReceiveMessageResult><Message><MessageId>m</MessageId><MessageAttribute><Name>x</Name>"
            "<Value><StringValue>v</StringValue><DataType>String</DataType></Value></MessageAttribute>") in text


# ------------------------------------------------------------------ errors


def test_query_errors(query_model):
    response = protocol.serialize_error("query", queue_does_not_exist(), RID)
    assert response.status_code == 400 and response.content_type == "text/xml"
    assert "<Detail/>" in response.get_data(as_text=True)
    parsed = parse_response(query_model, "query", "GetQueueUrl", response)
    assert parsed["Error"] == {
        "Type": "Sender",
        "Code": "AWS.SimpleQueueService.NonExistentQueue",
        "Message": "The specified queue does not exist for this wsdl version.",
        "Detail": None,
    }
    assert parsed["ResponseMetadata"]["RequestId"] == RID

    response = protocol.serialize_error("query", SqsError("InternalFailure", "boom"), RID)
    parsed = parse_response(query_model, "query", "GetQueueUrl", response)
    assert response.status_code == 500
    assert (parsed["Error"]["Type"], parsed["Error"]["Code"]) == ("Receiver", "InternalFailure")


def test_json_errors():
    response = protocol.serialize_error("json", queue_does_not_exist(), RID)
    assert response.status_code == 400
    assert response.headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"
    assert json.loads(response.get_data()) == {"__type": "com.amazonaws.sqs#QueueDoesNotExist",
                                   "message": "The specified queue does not exist."}
    parsed = parse_response(JSON_MODEL, "json", "GetQueueUrl", response)
    assert parsed["Error"] == {
        "Code": "AWS.SimpleQueueService.NonExistentQueue",
        "Message": "The specified queue does not exist.",
        "Type": "Sender",
        "QueryErrorCode": "QueueDoesNotExist",
    }

    response = protocol.serialize_error("json", SqsError("PurgeQueueInProgress", "wait"), RID)
    parsed = parse_response(JSON_MODEL, "json", "PurgeQueue", response)
    assert response.status_code == 403
    assert parsed["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert parsed["Error"]["QueryErrorCode"] == "PurgeQueueInProgress"


def test_boto3_client_error_class():
    """botocore's SQS hook turns our JSON error into the modelled exception class."""
    import boto3

    client = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test", endpoint_url=HOST)
    response = protocol.serialize_error("json", queue_does_not_exist(), RID)
    raw = {"status_code": 400, "headers": HeadersDict(dict(response.headers)), "body": response.get_data()}
    parsed = create_parser("json").parse(raw, JSON_MODEL.operation_model("GetQueueUrl").output_shape)
    error_class = client.exceptions.from_code(parsed["Error"]["QueryErrorCode"])
    assert error_class is client.exceptions.QueueDoesNotExist


def test_every_operation_serializes_empty_output():
    for name in JSON_MODEL.operation_names:
        for proto in ("json", "query"):
            assert protocol.serialize_result(proto, name, {}, RID).status_code == 200


def test_query_body_after_server_read_form_and_large_body():
    req = raw_request(path="/000000000000/q1", data={"Action": "SendMessage", "MessageBody": "a+b c"})
    assert req.form["Action"] == "SendMessage"  # the server layer looked first
    assert roundtrip(req)[1] == ("SendMessage", {"MessageBody": "a+b c", "QueueUrl": QURL})
    # Over werkzeug's 500 kB form limit, under SQS's 1 MiB message limit.
    big = "x" * 1_048_576
    req = raw_request(data={"Action": "SendMessage", "QueueUrl": QURL, "MessageBody": big})
    assert roundtrip(req)[1][1]["MessageBody"] == big


def test_json_content_type_without_target():
    req = raw_request(headers={"Content-Type": "application/x-amz-json-1.0"}, data="{}")
    assert protocol.detect(req) == "json"
    assert _error(req).name == "InvalidAction"
