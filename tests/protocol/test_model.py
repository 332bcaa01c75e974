"""What botocore's model decides for both protocols: which protocol a request speaks, which
operations exist, which members are required.
"""

from emulator import protocol

from .support import QURL, json_request, parse_error, raw_request


def test_detect():
    assert protocol.detect(json_request("ListQueues", {})) == "json"
    assert protocol.detect(raw_request(data={"Action": "ListQueues"})) == "query"
    assert protocol.detect(raw_request(method="GET")) == "query"


def test_unknown_action():
    err = parse_error(raw_request(data={"Action": "DoSomething"}))
    assert (err.name, err.message) == ("InvalidAction", "The action DoSomething is not valid for this endpoint.")
    err = parse_error(raw_request(headers={"X-Amz-Target": "AmazonSQS.DoSomething"}, data="{}"))
    assert err.name == "InvalidAction" and "DoSomething" in err.message


def test_missing_required(make_request):
    err = parse_error(make_request("SendMessage", {"QueueUrl": QURL}))
    assert (err.name, err.message) == ("MissingParameter", "The request must contain the parameter MessageBody.")
