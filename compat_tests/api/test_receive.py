"""ReceiveMessage: counts, per-receive visibility, attribute selection."""

import time

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    INVALID_PARAMETER,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    md5_of_attributes,
    receive,
    receive_one,
    unique_name,
)


def test_empty_receive_has_no_messages_key(sqs, queue):
    resp = sqs.receive_message(QueueUrl=queue)
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "Messages" not in resp


def test_default_receives_one_message(sqs, queue):
    for i in range(3):
        sqs.send_message(QueueUrl=queue, MessageBody=f"m{i}")
    assert len(receive(sqs, queue)) == 1


def test_max_number_of_messages(sqs, queue):
    sent = {sqs.send_message(QueueUrl=queue, MessageBody=f"m{i}")["MessageId"] for i in range(15)}
    first = receive(sqs, queue, MaxNumberOfMessages=10)
    assert len(first) == 10
    second = receive(sqs, queue, MaxNumberOfMessages=10)
    assert len(second) == 5
    assert {m["MessageId"] for m in first + second} == sent
    assert len({m["ReceiptHandle"] for m in first + second}) == 15


@pytest.mark.parametrize("value", [0, 11, -1])
def test_max_number_of_messages_out_of_range(sqs_unchecked, queue, value):
    sqs_unchecked.send_message(QueueUrl=queue, MessageBody="m")
    expect_error(
        sqs_unchecked, sqs_unchecked.receive_message, QueueUrl=queue, MaxNumberOfMessages=value, **INVALID_PARAMETER
    )


@pytest.mark.parametrize("value", [21, -1])
def test_wait_time_seconds_out_of_range(sqs_unchecked, queue, value):
    expect_error(
        sqs_unchecked, sqs_unchecked.receive_message, QueueUrl=queue, WaitTimeSeconds=value, **INVALID_PARAMETER
    )


@pytest.mark.parametrize("value", [43201, -1])
def test_receive_visibility_timeout_out_of_range(sqs_unchecked, queue, value):
    expect_error(
        sqs_unchecked, sqs_unchecked.receive_message, QueueUrl=queue, VisibilityTimeout=value, **INVALID_PARAMETER
    )


def test_receive_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.receive_message, QueueUrl=url, **QUEUE_DOES_NOT_EXIST)


def test_visibility_timeout_override(sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    receive_one(sqs, queue, VisibilityTimeout=5)
    advance(4)
    assert receive(sqs, queue) == []
    advance(2)
    msg = receive_one(sqs, queue, AttributeNames=["ApproximateReceiveCount"])
    assert msg["Attributes"]["ApproximateReceiveCount"] == "2"
    # The override is not remembered: the queue default (30 s) applies again.
    advance(6)
    assert receive(sqs, queue) == []
    advance(25)
    assert len(receive(sqs, queue)) == 1


def test_visibility_timeout_zero_keeps_message_visible(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    a = receive_one(sqs, queue, VisibilityTimeout=0)
    b = receive_one(sqs, queue, VisibilityTimeout=0)
    assert a["MessageId"] == b["MessageId"]
    assert a["ReceiptHandle"] != b["ReceiptHandle"]


def test_wait_time_with_message_available_returns_at_once(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    start = time.monotonic()
    assert len(receive(sqs, queue, WaitTimeSeconds=20)) == 1
    assert time.monotonic() - start < 15  # only a hang, or a wait for the 20 s, takes this long


SYSTEM_ALL = {"SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"}


def test_attribute_names_all(sqs, queue, server_now):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue, AttributeNames=["All"])
    attrs = msg["Attributes"]
    assert set(attrs) >= SYSTEM_ALL, attrs
    assert attrs["ApproximateReceiveCount"] == "1"
    assert attrs["SenderId"]
    # Standard queues have no FIFO system attributes.
    for absent in ("SequenceNumber", "MessageGroupId", "MessageDeduplicationId"):
        assert absent not in attrs


def test_specific_attribute_names(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue, AttributeNames=["SentTimestamp"], VisibilityTimeout=0)
    assert set(msg["Attributes"]) == {"SentTimestamp"}
    msg = receive_one(sqs, queue, AttributeNames=["ApproximateReceiveCount", "SenderId"], VisibilityTimeout=0)
    assert set(msg["Attributes"]) == {"ApproximateReceiveCount", "SenderId"}
    assert msg["Attributes"]["ApproximateReceiveCount"] == "2"
    msg = receive_one(sqs, queue)
    assert "Attributes" not in msg


def test_sequence_number_dropped_on_standard_queue(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    msg = receive_one(sqs, queue, AttributeNames=["SequenceNumber", "SentTimestamp"])
    assert set(msg["Attributes"]) == {"SentTimestamp"}


@pytest.fixture(params=["client", "raw-query"])
def via(request, protocol):
    """How to send MessageSystemAttributeNames: with the client's protocol, or as a raw query request."""
    return protocol if request.param == "client" else "query"


def _receive_system_names(sqs, raw, protocol, queue, system_names, attribute_names=()):
    """ReceiveMessage with MessageSystemAttributeNames, which old botocore models lack.

    JSON clients send it with boto3; the query protocol is driven by hand
    (``MessageSystemAttributeName.N``). Returns {name: value} of the one message.
    """
    if protocol == "json":
        kwargs = {"MessageSystemAttributeNames": list(system_names)}
        if attribute_names:
            kwargs["AttributeNames"] = list(attribute_names)
        return receive_one(sqs, queue, **kwargs).get("Attributes", {})
    params = {"Action": "ReceiveMessage", "QueueUrl": queue}
    for i, name in enumerate(system_names, 1):
        params[f"MessageSystemAttributeName.{i}"] = name
    for i, name in enumerate(attribute_names, 1):
        params[f"AttributeName.{i}"] = name
    resp = raw.query(params)
    assert resp.status == 200, resp.body
    messages = resp.xml().findall("ReceiveMessageResult/Message")
    assert len(messages) == 1, resp.body
    return {a.findtext("Name"): a.findtext("Value") for a in messages[0].findall("Attribute")}


def test_message_system_attribute_names(sqs, raw, via, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    attrs = _receive_system_names(sqs, raw, via, queue, ["ApproximateReceiveCount", "SentTimestamp"])
    assert set(attrs) == {"ApproximateReceiveCount", "SentTimestamp"}
    assert attrs["ApproximateReceiveCount"] == "1"


def test_message_system_attribute_names_all(sqs, raw, via, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    attrs = _receive_system_names(sqs, raw, via, queue, ["All"])
    assert set(attrs) >= SYSTEM_ALL, attrs


def test_message_system_attribute_names_override_attribute_names(sqs, raw, via, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    attrs = _receive_system_names(sqs, raw, via, queue, ["ApproximateReceiveCount"], ["SentTimestamp"])
    assert set(attrs) == {"ApproximateReceiveCount"}


ATTRS = {
    "foo.a": {"DataType": "String", "StringValue": "A"},
    "foo.b": {"DataType": "Number", "StringValue": "1"},
    "foobar": {"DataType": "String", "StringValue": "FB"},
    "bar": {"DataType": "Binary", "BinaryValue": b"\x01\x02"},
}


@pytest.mark.parametrize(
    "names,expected",
    [
        (["All"], set(ATTRS)),
        ([".*"], set(ATTRS)),
        # The part before ".*" is a plain prefix (docs/sqs-reference.md section 3: "Hel.*" selects Hello and Help.Me).
        (["foo.*"], {"foo.a", "foo.b", "foobar"}),
        (["bar"], {"bar"}),
        (["bar", "foo.a"], {"bar", "foo.a"}),
        (["nomatch"], set()),
        (None, set()),
    ],
    ids=["All", "dot-star", "prefix", "exact", "two-exact", "no-match", "not-requested"],
)
def test_message_attribute_names_selection(sqs, queue, names, expected):
    resp = sqs.send_message(QueueUrl=queue, MessageBody="m", MessageAttributes=ATTRS)
    assert resp["MD5OfMessageAttributes"] == md5_of_attributes(ATTRS)
    kwargs = {"MessageAttributeNames": names} if names is not None else {}
    msg = receive_one(sqs, queue, **kwargs)
    if expected:
        subset = {k: ATTRS[k] for k in expected}
        assert msg["MessageAttributes"] == subset
        # The digest covers the attributes returned, not all that were sent.
        assert msg["MD5OfMessageAttributes"] == md5_of_attributes(subset)
    else:
        assert "MessageAttributes" not in msg
        assert "MD5OfMessageAttributes" not in msg


def test_redelivered_message_comes_before_newer_messages(sqs, queue, advance):
    """AWS-recorded (docs/sqs-reference.md section 3, "Redelivery order"): send m1, receive it with
    VisibilityTimeout 3, send m2 1.5 s later, receive 3 s later: m1 comes first."""
    sqs.send_message(QueueUrl=queue, MessageBody="m1")
    assert receive_one(sqs, queue, VisibilityTimeout=3)["Body"] == "m1"
    advance(1.5)
    sqs.send_message(QueueUrl=queue, MessageBody="m2")
    advance(3)
    assert [m["Body"] for m in receive(sqs, queue, MaxNumberOfMessages=10)] == ["m1", "m2"]


# The table AWS was recorded with (docs/sqs-reference.md section 3; LocalStack's
# test_receive_message_message_attribute_names_filters snapshot, recorded against AWS).
RECORDED = {
    "Help.Me": {"DataType": "String", "StringValue": "Me"},
    "Hello": {"DataType": "String", "StringValue": "There"},
    "General": {"DataType": "String", "StringValue": "Kenobi"},
}


@pytest.mark.parametrize(
    "names,expected",
    [
        ([], set()),
        (["All"], set(RECORDED)),
        (["*"], set(RECORDED)),
        ([".*"], set(RECORDED)),
        (["Foo", "Help"], set()),
        (["Hello", "General"], {"Hello", "General"}),
        (["Foo", "Hello"], {"Hello"}),
        (["Hel.*"], {"Hello", "Help.Me"}),
        (["AWS."], set()),
        (["..foo"], set()),
    ],
    ids=["empty", "All", "star", "dot-star", "no-such-names", "two-names", "one-of-two", "prefix", "AWS.", "dot-dot"],
)
def test_message_attribute_names_as_recorded_on_aws(sqs, queue, names, expected):
    sent = sqs.send_message(QueueUrl=queue, MessageBody="msg", MessageAttributes=RECORDED)
    assert sent["MD5OfMessageAttributes"] == "4c360f3fdafd970e05fae2f149d997f5"  # AWS's digest of the three
    msg = receive_one(sqs, queue, MessageAttributeNames=names)
    if expected:
        assert msg["MessageAttributes"] == {name: RECORDED[name] for name in expected}
        assert msg["MD5OfMessageAttributes"] == md5_of_attributes(msg["MessageAttributes"])
    else:
        assert "MessageAttributes" not in msg and "MD5OfMessageAttributes" not in msg


def test_recorded_digests_of_the_subsets(sqs, queue):
    """AWS's own digests of the subsets it returned: the MD5 covers only what is returned."""
    sqs.send_message(QueueUrl=queue, MessageBody="msg", MessageAttributes=RECORDED)
    digests = {}
    for names in (["Hello", "General"], ["Foo", "Hello"], ["Hel.*"]):
        msg = receive_one(sqs, queue, MessageAttributeNames=names, VisibilityTimeout=0)
        digests[names[-1]] = msg["MD5OfMessageAttributes"]
    assert digests == {
        "General": "fca026605781cb4126a1e9044df24232",
        "Hello": "a311262e065454b75da111d535b8dacd",
        "Hel.*": "83fee93c1bcd8b9a5a923ffacdc636c7",
    }
