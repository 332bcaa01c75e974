"""bench/figures/answer.py, the SQS answer's own cost (issue 37, item 4), at a tiny size: every
figure is measured on answers the app gave (a non-200 or a message not received raises), and
the messages counted are the messages stored. None judges speed."""

from __future__ import annotations

import orjson
import pytest

from bench.figures import answer
from bench.in_process import BODY


@pytest.mark.parametrize("wire", ["json", "query"])
def test_each_figure_is_measured_on_answers(wire):
    caller = answer.Caller(wire)
    assert answer.same_call(5, wire, "SendMessage", {"MessageBody": BODY}) > 0
    assert answer.same_call(3, wire, "SendMessageBatch", {"Entries": answer.BATCH}) > 0
    assert answer.receive_delete(4, wire) > 0  # raises if any of the 40 messages did not come
    url = caller.new_queue()
    caller.call("SendMessageBatch", {"QueueUrl": url, "Entries": answer.BATCH})
    asked = {"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]}
    depth = answer.Caller("json").call("GetQueueAttributes", asked)  # the same app: one per process
    assert orjson.loads(depth)["Attributes"] == {"ApproximateNumberOfMessages": "10"}


def test_requests_are_made_as_the_server_makes_them():
    request = answer.Caller("json").request("SendMessage", {"QueueUrl": "q", "MessageBody": BODY})
    assert all(name == name.lower() for name in request.headers)  # the server's form (protocol/request.py)
    assert request.headers["x-amz-target"] == "AmazonSQS.SendMessage"
    assert request.headers["content-length"] == str(len(request.body))
