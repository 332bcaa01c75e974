"""The raw wire: error rendering in both protocols, request ids, garbage requests.

These tests build requests by hand, so each runs for both protocols whatever
the installed botocore speaks.
"""

import json
import uuid

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    NON_EXISTENT_QUEUE,
    QUERY_NS,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    md5_hex,
    receive_one,
    sqs_client,
    unique_name,
)

PROTOCOLS = ["json", "query"]


def _request_id(resp):
    rid = resp.header("x-amzn-RequestId")
    assert rid, f"no x-amzn-RequestId header (status {resp.status}): {dict(resp.headers)}"
    return rid


def test_json_error_rendering(raw):
    resp = raw.json_call("GetQueueUrl", {"QueueName": unique_name("missing")})
    assert resp.status == 400
    assert resp.header("Content-Type").startswith("application/x-amz-json-1.0")
    assert resp.header("x-amzn-query-error") == f"{NON_EXISTENT_QUEUE};Sender"
    body = resp.json()
    assert body["__type"] == "com.amazonaws.sqs#QueueDoesNotExist"
    assert body.get("message", body.get("Message")) == "The specified queue does not exist."
    _request_id(resp)


def test_query_error_rendering(raw):
    resp = raw.query({"Action": "GetQueueUrl", "QueueName": unique_name("missing")})
    assert resp.status == 400
    assert "xml" in (resp.header("Content-Type") or "")
    assert resp.xml_namespace() == QUERY_NS
    root = resp.xml()
    assert root.tag == "ErrorResponse"
    assert root.findtext("Error/Type") == "Sender"
    assert root.findtext("Error/Code") == NON_EXISTENT_QUEUE
    assert root.findtext("Error/Message") == "The specified queue does not exist for this wsdl version."
    assert root.find("Error/Detail") is not None, "AWS query errors carry an empty <Detail/>"
    rid = _request_id(resp)
    assert root.findtext("RequestId") == rid


def test_client_sees_protocol_specific_not_found_message(sqs, protocol):
    message = {
        "json": "The specified queue does not exist.",
        "query": "The specified queue does not exist for this wsdl version.",
    }[protocol]
    expect_error(sqs, sqs.get_queue_url, QueueName=unique_name("missing"), message=message, **QUEUE_DOES_NOT_EXIST)


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_success_has_request_id(raw, proto):
    resp = raw.call(proto, "ListQueues", {"QueueNamePrefix": unique_name("none")})
    assert resp.status == 200, resp.body
    rid = _request_id(resp)
    if proto == "json":
        assert resp.header("Content-Type").startswith("application/x-amz-json-1.0")
        assert resp.json().get("QueueUrls", []) == []
    else:
        assert resp.xml_namespace() == QUERY_NS
        root = resp.xml()
        assert root.tag == "ListQueuesResponse"
        assert root.findtext("ResponseMetadata/RequestId") == rid


def test_request_ids_are_unique(raw):
    ids = {_request_id(raw.json_call("ListQueues", {})) for _ in range(5)}
    assert len(ids) == 5


def test_client_response_metadata_has_request_id(sqs, queue):
    resp = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])
    assert resp["ResponseMetadata"]["RequestId"]
    assert resp["ResponseMetadata"]["HTTPHeaders"].get("x-amzn-requestid")


def test_query_send_receive_xml_shape(raw, sqs, queue):
    body = 'raw <query> & "body"\r\nline2'
    resp = raw.query(
        {
            "Action": "SendMessage",
            "QueueUrl": queue,
            "MessageBody": body,
            "MessageAttribute.1.Name": "n",
            "MessageAttribute.1.Value.DataType": "String",
            "MessageAttribute.1.Value.StringValue": "v",
        }
    )
    assert resp.status == 200, resp.body
    assert resp.xml_namespace() == QUERY_NS
    root = resp.xml()
    assert root.tag == "SendMessageResponse"
    message_id = root.findtext("SendMessageResult/MessageId")
    uuid.UUID(message_id)
    assert root.findtext("SendMessageResult/MD5OfMessageBody") == md5_hex(body)
    assert root.findtext("SendMessageResult/MD5OfMessageAttributes")
    assert root.findtext("ResponseMetadata/RequestId") == _request_id(resp)

    resp = raw.query(
        {"Action": "ReceiveMessage", "QueueUrl": queue, "AttributeName.1": "All", "MessageAttributeName.1": "All"}
    )
    assert resp.status == 200, resp.body
    msg = resp.xml().find("ReceiveMessageResult/Message")
    assert msg is not None, resp.body
    assert msg.findtext("MessageId") == message_id
    assert msg.findtext("Body") == body  # \r must survive the XML round trip
    assert msg.findtext("MD5OfBody") == md5_hex(body)
    attrs = {a.findtext("Name"): a.findtext("Value") for a in msg.findall("Attribute")}
    assert attrs["ApproximateReceiveCount"] == "1"
    mattr = msg.find("MessageAttribute")
    assert mattr.findtext("Name") == "n"
    assert mattr.findtext("Value/DataType") == "String"
    assert mattr.findtext("Value/StringValue") == "v"


def test_json_send_receive_shape(raw, queue):
    resp = raw.json_call("SendMessage", {"QueueUrl": queue, "MessageBody": "json body"})
    assert resp.status == 200, resp.body
    sent = resp.json()
    assert sent["MD5OfMessageBody"] == md5_hex("json body")
    assert "MD5OfMessageAttributes" not in sent
    resp = raw.json_call("ReceiveMessage", {"QueueUrl": queue, "MaxNumberOfMessages": 1})
    assert resp.status == 200, resp.body
    (msg,) = resp.json()["Messages"]
    assert msg["Body"] == "json body" and msg["MessageId"] == sent["MessageId"]
    resp = raw.json_call("ReceiveMessage", {"QueueUrl": queue})
    assert resp.status == 200
    assert "Messages" not in resp.json()


def test_query_request_addressed_to_queue_path(raw, sqs, queue):
    """Older clients POST to the queue URL's path and leave out QueueUrl."""
    path = "/" + queue.split("/", 3)[3]
    resp = raw.query({"Action": "SendMessage", "MessageBody": "via path"}, path=path)
    assert resp.status == 200, resp.body
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=queue).get("Messages", [])] == ["via path"]


def test_query_batch_error_is_rendered(raw, queue):
    params = {"Action": "SendMessageBatch", "QueueUrl": queue}
    for i in range(1, 3):
        params[f"SendMessageBatchRequestEntry.{i}.Id"] = "same"
        params[f"SendMessageBatchRequestEntry.{i}.MessageBody"] = "b"
    resp = raw.query(params)
    assert resp.status == 400
    assert resp.xml().findtext("Error/Code") == "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"


def test_query_partial_batch_sender_fault(raw, queue_factory):
    url = queue_factory(attributes={"MaximumMessageSize": 1024})
    resp = raw.query(
        {
            "Action": "SendMessageBatch",
            "QueueUrl": url,
            "SendMessageBatchRequestEntry.1.Id": "ok",
            "SendMessageBatchRequestEntry.1.MessageBody": "fine",
            "SendMessageBatchRequestEntry.2.Id": "big",
            "SendMessageBatchRequestEntry.2.MessageBody": "x" * 1025,
        }
    )
    assert resp.status == 200, resp.body
    root = resp.xml()
    assert [e.findtext("Id") for e in root.findall("SendMessageBatchResult/SendMessageBatchResultEntry")] == ["ok"]
    failed = root.findall("SendMessageBatchResult/BatchResultErrorEntry")
    assert len(failed) == 1
    assert failed[0].findtext("Id") == "big"
    assert failed[0].findtext("SenderFault") == "true"
    assert failed[0].findtext("Code") == "InvalidParameterValue"


def test_json_partial_batch_sender_fault_is_boolean(raw, queue_factory):
    url = queue_factory(attributes={"MaximumMessageSize": 1024})
    resp = raw.json_call(
        "SendMessageBatch",
        {
            "QueueUrl": url,
            "Entries": [
                {"Id": "ok", "MessageBody": "fine"},
                {"Id": "big", "MessageBody": "x" * 1025},
            ],
        },
    )
    assert resp.status == 200, resp.body
    body = resp.json()
    (failed,) = body["Failed"]
    assert failed["SenderFault"] is True
    assert failed["Code"] == "InvalidParameterValue"


# ---------------------------------------------------------------- garbage


def _assert_client_error_response(resp, proto=None):
    assert 400 <= resp.status < 500, f"expected a 4xx, got {resp.status}: {resp.body[:300]!r}"
    _request_id(resp)
    if proto == "json":
        assert "__type" in resp.json(), resp.body
    elif proto == "query":
        assert resp.xml().tag == "ErrorResponse", resp.body


def test_unknown_query_action(raw):
    resp = raw.query({"Action": "NoSuchAction"})
    _assert_client_error_response(resp, "query")
    assert resp.xml().findtext("Error/Code") == "InvalidAction"


def test_unknown_json_target(raw):
    resp = raw.json_call("NoSuchAction", {})
    _assert_client_error_response(resp, "json")


@pytest.mark.parametrize("proto", PROTOCOLS)
@pytest.mark.parametrize(
    "op,params",
    [
        ("SendMessage", {"MessageBody": "no queue url"}),
        ("ReceiveMessage", {}),
        ("DeleteMessage", {"ReceiptHandle": "x"}),
        ("GetQueueAttributes", {}),
    ],
)
def test_missing_queue_url(raw, proto, op, params):
    resp = raw.call(proto, op, params)
    _assert_client_error_response(resp, proto)
    assert resp.status == 400


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_missing_required_parameter(raw, queue, proto):
    resp = raw.call(proto, "SendMessage", {"QueueUrl": queue})
    _assert_client_error_response(resp, proto)
    assert resp.status == 400
    if proto == "query":
        assert resp.xml().findtext("Error/Code") == "MissingParameter"
    else:
        assert resp.header("x-amzn-query-error", "").startswith("MissingParameter;")


@pytest.mark.parametrize(
    "body",
    [b"this is not json", b"{", b"[1, 2]", b"\xff\xfe", b""],
    ids=["text", "truncated", "array", "binary", "empty"],
)
def test_non_json_body_with_target(raw, body):
    resp = raw.request(
        "POST",
        "/",
        body,
        {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "AmazonSQS.ListQueues",
        },
    )
    if body == b"":
        # An empty body may be read as an empty request: ListQueues then succeeds.
        assert resp.status in (200, 400), resp.body
    else:
        _assert_client_error_response(resp)
        assert resp.status == 400


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_wrong_parameter_types(raw, queue, proto):
    if proto == "json":
        resp = raw.json_call("ReceiveMessage", {"QueueUrl": queue, "MaxNumberOfMessages": "ten"})
    else:
        resp = raw.query({"Action": "ReceiveMessage", "QueueUrl": queue, "MaxNumberOfMessages": "ten"})
    _assert_client_error_response(resp)


def test_get_root_is_not_a_server_error(raw):
    resp = raw.request("GET", "/")
    assert resp.status < 500, resp.body
    _request_id(resp)


def test_empty_post_is_a_client_error(raw):
    resp = raw.request("POST", "/", b"", {"Content-Type": "application/x-www-form-urlencoded"})
    assert 400 <= resp.status < 500, resp.body
    _request_id(resp)


def test_unsigned_request_is_not_a_server_error(raw, queue):
    resp = raw.query({"Action": "ListQueues"}, sign=False)
    assert resp.status < 500, resp.body


def test_queue_url_of_unknown_host_path(raw):
    resp = raw.json_call("SendMessage", {"QueueUrl": "not a url", "MessageBody": "x"})
    _assert_client_error_response(resp, "json")


def test_nonexistent_queue_url_in_json(raw):
    url = f"{raw.endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    resp = raw.json_call("SendMessage", {"QueueUrl": url, "MessageBody": "x"})
    assert resp.status == 400
    assert json.loads(resp.body)["__type"] == "com.amazonaws.sqs#QueueDoesNotExist"


# ---------------------------------------------------------------- query protocol edges (docs/sqs-reference.md section 3)


def _queue_path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


@pytest.mark.parametrize(
    "query",
    [
        "Action=CreateQueue&QueueName=x",
        "Action=ListQueues",
    ],
)
def test_get_on_a_queue_url_with_an_action_not_for_queues(raw, queue, query):
    resp = raw.request("GET", f"{_queue_path(queue)}?{query}&Version=2012-11-05")
    assert resp.status == 400, resp.body
    action = query.split("&")[0].split("=")[1]
    assert resp.xml().findtext("Error/Code") == "InvalidAction"
    assert resp.xml().findtext("Error/Message") == f"The action {action} is not valid for this endpoint."


def test_get_on_a_queue_url_with_a_queue_action(raw, sqs, queue):
    resp = raw.request("GET", f"{_queue_path(queue)}?Action=SendMessage&MessageBody=by-get&Version=2012-11-05")
    assert resp.status == 200, resp.body
    assert receive_one(sqs, queue)["Body"] == "by-get"


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("accept", [None, "application/json"])
def test_a_queue_url_with_no_action(raw, queue, method, accept):
    """404 <UnknownOperationException/>, in XML even to a request that asks for JSON
    (docs/sqs-reference.md section 3; issue 18 item 5, AWS-recorded)."""
    resp = raw.request(method, _queue_path(queue), headers={"Accept": accept} if accept else None)
    assert resp.status == 404, resp.body
    assert resp.header("Content-Type").startswith("text/xml")
    assert resp.xml().tag == "UnknownOperationException"
    _request_id(resp)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_get_queue_url_sent_to_a_queue_url(raw, queue_factory, method):
    """GetQueueUrl sent to a queue's URL answers with the URL of the queue QueueName names,
    also another queue's (issue 18 item 5, AWS-recorded)."""
    here, other = queue_factory(), queue_factory()
    query = f"Action=GetQueueUrl&QueueName={other.rsplit('/', 1)[1]}&Version=2012-11-05"
    if method == "GET":
        resp = raw.request("GET", f"{_queue_path(here)}?{query}")
    else:
        headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
        resp = raw.request("POST", _queue_path(here), query, headers)
    assert resp.status == 200, resp.body
    assert resp.xml().findtext("GetQueueUrlResult/QueueUrl") == other


def test_a_client_whose_endpoint_is_a_queue_url(queue_factory):
    """An SDK client pointed at a queue's URL (the query protocol through old boto3, JSON through
    current boto3) gets the URL of the queue it names (issue 18 item 5)."""
    here, other = queue_factory(), queue_factory()
    client = sqs_client(here)
    assert client.get_queue_url(QueueName=other.rsplit("/", 1)[1])["QueueUrl"] == other


def test_query_answers_in_json_when_asked(raw, queue):
    params = "Action=ListQueues&Version=2012-11-05&QueueNamePrefix=" + queue.rsplit("/", 1)[1]
    resp = raw.request("GET", f"/?{params}", headers={"Accept": "application/json"})
    assert resp.status == 200, resp.body
    assert resp.header("Content-Type").startswith("application/json")
    body = resp.json()
    assert list(body) == ["ListQueuesResponse"]
    assert body["ListQueuesResponse"]["ListQueuesResult"]["queueUrls"] == [queue]
    assert body["ListQueuesResponse"]["ResponseMetadata"]["RequestId"] == _request_id(resp)
    # Without the header: XML.
    resp = raw.request("GET", f"/?{params}")
    assert resp.status == 200 and resp.xml().tag == "ListQueuesResponse"


def test_query_receive_in_json(raw, sqs, queue):
    headers = {"Accept": "application/json"}
    empty = raw.request("GET", f"{_queue_path(queue)}?Action=ReceiveMessage&Version=2012-11-05", headers=headers)
    assert empty.status == 200, empty.body
    assert empty.json()["ReceiveMessageResponse"]["ReceiveMessageResult"] == {"messages": None}
    sent = sqs.send_message(QueueUrl=queue, MessageBody="json please")
    resp = raw.query(
        {"Action": "ReceiveMessage", "QueueUrl": queue, "AttributeName.1": "ApproximateReceiveCount"}, headers=headers
    )
    assert resp.status == 200, resp.body
    (message,) = resp.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]["messages"]
    assert message["Body"] == "json please" and message["MessageId"] == sent["MessageId"]
    assert message["MD5OfBody"] == md5_hex("json please")
    assert message["Attributes"] == {"ApproximateReceiveCount": "1"}
    assert message["MessageAttributes"] is None and message["MD5OfMessageAttributes"] is None


def test_query_error_in_json(raw):
    resp = raw.request(
        "GET",
        f"/?Action=GetQueueUrl&QueueName={unique_name('missing')}&Version=2012-11-05",
        headers={"Accept": "application/json"},
    )
    assert resp.status == 400
    error = resp.json()["ErrorResponse"]
    assert error["Error"] == {
        "Type": "Sender",
        "Code": NON_EXISTENT_QUEUE,
        "Message": "The specified queue does not exist for this wsdl version.",
    }
    assert error["RequestId"] == _request_id(resp)


@pytest.mark.parametrize("method", ["HEAD", "DELETE", "PUT", "PATCH", "OPTIONS", "TRACE"])
def test_only_get_and_post_run_actions(raw, sqs, queue, method):
    """SQS takes query requests "with the HTTP verb GET or POST" (SQS Developer Guide,
    sqs-making-api-requests); any other method finds no operation, which AWS answers 404
    <UnknownOperationException/> (docs/sqs-reference.md section 3), and changes nothing
    (issue 31: HEAD /?Action=CreateQueue created the queue)."""
    name = unique_name(method.lower())
    for path in (f"/?Action=CreateQueue&QueueName={name}", f"{_queue_path(queue)}?Action=SendMessage&MessageBody=x"):
        resp = raw.request(method, path + "&Version=2012-11-05")
        assert resp.status == 404, resp.body
        if method != "HEAD":
            assert resp.xml().tag == "UnknownOperationException"
    body = json.dumps({"QueueName": name})
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue"}
    resp = raw.request(method, "/", body, headers)
    assert resp.status == 404, resp.body
    if method != "HEAD":
        assert resp.json()["__type"].endswith("UnknownOperationException")
    assert not sqs.list_queues(QueueNamePrefix=name).get("QueueUrls")
    assert sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"] == {
        "ApproximateNumberOfMessages": "0"
    }
