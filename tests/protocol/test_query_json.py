"""The query protocol answered in JSON (a query request whose Accept prefers JSON):
the XML document's tree as JSON, every result member present, null when absent."""

import json

from emulator import protocol
from emulator.errors import queue_does_not_exist

from .support import QURL, RID, raw_request


def _json(response) -> dict:
    assert response.content_type == "application/json" and response.headers["x-amzn-RequestId"] == RID
    return json.loads(response.get_data())


def test_detected_from_accept():
    form = {"Action": "ListQueues"}
    assert protocol.detect(raw_request(data=form, headers={"Accept": "application/json"})) == "query-json"
    assert protocol.detect(raw_request(data=form, headers={"Accept": "text/xml, application/json;q=0.5"})) == "query"
    assert protocol.detect(raw_request(data=form)) == "query"


def test_result_is_the_xml_tree_with_nulls():
    message = {
        "MessageId": "m",
        "Body": "b",
        "Attributes": {"SenderId": "s"},
        "MessageAttributes": {"bin": {"DataType": "Binary", "BinaryValue": b"\x00\xff"}},
    }
    body = _json(protocol.serialize_result("query-json", "ReceiveMessage", {"Messages": [message]}, RID).response())
    (sent,) = body["ReceiveMessageResponse"]["ReceiveMessageResult"]["messages"]
    assert sent["Attributes"] == {"SenderId": "s"}
    assert sent["MessageAttributes"]["bin"] == {
        "BinaryValue": "AP8=",
        "DataType": "Binary",
        "StringValue": None,
        "StringListValues": None,
        "BinaryListValues": None,
    }
    assert sent["ReceiptHandle"] is None and sent["MD5OfMessageAttributes"] is None
    assert body["ReceiveMessageResponse"]["ResponseMetadata"] == {"RequestId": RID}
    empty = _json(protocol.serialize_result("query-json", "ReceiveMessage", {}, RID).response())
    assert empty["ReceiveMessageResponse"]["ReceiveMessageResult"] == {"messages": None}


def test_aws_names_of_result_members():
    body = _json(protocol.serialize_result("query-json", "ListQueues", {"QueueUrls": [QURL]}, RID).response())
    assert body["ListQueuesResponse"]["ListQueuesResult"] == {"queueUrls": [QURL], "NextToken": None}


def test_error():
    response = protocol.serialize_error("query-json", queue_does_not_exist(), RID).response()
    assert response.status_code == 400
    assert _json(response) == {
        "ErrorResponse": {
            "Error": {
                "Type": "Sender",
                "Code": "AWS.SimpleQueueService.NonExistentQueue",
                "Message": "The specified queue does not exist for this wsdl version.",
            },
            "RequestId": RID,
        }
    }
