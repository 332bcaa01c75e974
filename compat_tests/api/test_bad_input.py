"""Bad message bodies and attributes: rejected with AWS's codes, never accepted, never a 500."""

import json

import pytest
from botocore.exceptions import ClientError

from compat_tests.helpers import INVALID_PARAMETER, counts, expect_error, receive_one

ONE_MIB = 1048576


@pytest.mark.parametrize(
    "body",
    ["\x00", "bell \x07 char", "\x1f", "ok then \x0b", "\ufffe", "\uffff"],
    ids=["nul", "bel", "unit-separator", "vertical-tab", "U+FFFE", "U+FFFF"],
)
def test_invalid_characters_in_body(sqs, queue, body):
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=queue,
        MessageBody=body,
        code="InvalidMessageContents",
        status=400,
        shape="InvalidMessageContents",
    )
    assert counts(sqs, queue) == (0, 0, 0)


def test_allowed_edge_characters_round_trip(sqs, queue):
    body = "tab\t lf\n cr\r crlf\r\n \x20 \ud7ff \ue000 \ufffd \U00010000 \U0010ffff"
    sqs.send_message(QueueUrl=queue, MessageBody=body)
    assert receive_one(sqs, queue)["Body"] == body


def test_body_of_exactly_one_mib_is_accepted(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="x" * ONE_MIB)
    assert len(receive_one(sqs, queue)["Body"]) == ONE_MIB


def test_body_over_one_mib(sqs, queue):
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=queue,
        MessageBody="x" * (ONE_MIB + 1),
        message_contains="Message must be shorter than 1048576 bytes",
        **INVALID_PARAMETER,
    )


def test_multibyte_body_size_counts_bytes(sqs, queue):
    # 349,526 three-byte characters = 1,048,578 bytes: over the limit in bytes, not in characters.
    expect_error(sqs, sqs.send_message, QueueUrl=queue, MessageBody="\u4e2d" * 349526, **INVALID_PARAMETER)


def test_attributes_count_toward_size_limit(sqs, queue):
    attrs = {"abcdefghij": {"DataType": "String", "StringValue": "x"}}  # 10 + 6 + 1 bytes
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=queue,
        MessageBody="x" * (ONE_MIB - 10),
        MessageAttributes=attrs,
        **INVALID_PARAMETER,
    )


def test_queue_maximum_message_size_is_enforced(sqs, queue_factory):
    url = queue_factory(attributes={"MaximumMessageSize": 1024})
    sqs.send_message(QueueUrl=url, MessageBody="x" * 1024)
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=url,
        MessageBody="x" * 1025,
        message_contains="Message must be shorter than 1024 bytes",
        **INVALID_PARAMETER,
    )


def test_empty_body(sqs, queue):
    with pytest.raises(ClientError) as info:
        sqs.send_message(QueueUrl=queue, MessageBody="")
    err = info.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert err["Error"]["Code"] in ("MissingParameter", "InvalidParameterValue"), err["Error"]


def test_more_than_ten_attributes(sqs, queue):
    attrs = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(11)}
    expect_error(sqs, sqs.send_message, QueueUrl=queue, MessageBody="m", MessageAttributes=attrs, **INVALID_PARAMETER)
    ten = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(10)}
    sqs.send_message(QueueUrl=queue, MessageBody="m", MessageAttributes=ten)


@pytest.mark.parametrize(
    "name",
    [
        "AWS.reserved",
        "aws.lower",
        "aWs.mixed",
        "Amazon.reserved",
        "AMAZON.upper",
        ".leading",
        "trailing.",
        "two..dots",
        "has space",
        "star*",
        "x" * 257,
        # The characters AWS was recorded rejecting (LocalStack's AWS-validated
        # test_send_message_with_invalid_string_attributes).
        "Invalid-!-attr",
        'Invalid-"-attr',
        "Invalid-§-attr",
        "Invalid-(-attr",
        "Invalid-?-attr",
    ],
    ids=[
        "AWS.",
        "aws.",
        "aWs.",
        "Amazon.",
        "AMAZON.",
        "leading-dot",
        "trailing-dot",
        "double-dot",
        "space",
        "star",
        "257",
        "bang",
        "quote",
        "section-sign",
        "paren",
        "question-mark",
    ],
)
def test_invalid_attribute_name(sqs, queue, name):
    attrs = {name: {"DataType": "String", "StringValue": "v"}}
    expect_error(sqs, sqs.send_message, QueueUrl=queue, MessageBody="m", MessageAttributes=attrs, **INVALID_PARAMETER)


def test_valid_attribute_names(sqs, queue):
    names = ["a.b.c", "A-b_9", "x" * 256, "awsish", "AWS", "attr.1øßä", "数字.٣"]  # letters and digits of any script
    attrs = {n: {"DataType": "String", "StringValue": "v"} for n in names}
    sqs.send_message(QueueUrl=queue, MessageBody="m", MessageAttributes=attrs)
    assert receive_one(sqs, queue, MessageAttributeNames=["All"])["MessageAttributes"] == attrs


@pytest.mark.parametrize("data_type", ["Foo", "string", "", "Integer"])
def test_invalid_data_type(sqs_unchecked, queue, data_type):
    attrs = {"a": {"DataType": data_type, "StringValue": "1"}}
    expect_error(
        sqs_unchecked,
        sqs_unchecked.send_message,
        QueueUrl=queue,
        MessageBody="m",
        MessageAttributes=attrs,
        **INVALID_PARAMETER,
    )


@pytest.mark.parametrize(
    "attr",
    [
        {"DataType": "String"},
        {"DataType": "String", "StringValue": ""},
        {"DataType": "Number", "StringValue": "abc"},
        {"DataType": "Binary"},
    ],
    ids=["string-no-value", "string-empty", "number-not-a-number", "binary-no-value"],
)
def test_invalid_attribute_value(sqs, queue, attr):
    expect_error(
        sqs, sqs.send_message, QueueUrl=queue, MessageBody="m", MessageAttributes={"a": attr}, **INVALID_PARAMETER
    )
    assert counts(sqs, queue) == (0, 0, 0)


@pytest.mark.parametrize("data_type", ["String", "Number"])
@pytest.mark.parametrize("char", ["\x08", "\x0b"], ids=["U+0008", "U+000B"])
def test_attribute_value_outside_the_allowed_characters(sqs, queue, data_type, char):
    """A bad character in an attribute value is a bad parameter; InvalidMessageContents is for bodies."""
    attrs = {"a": {"DataType": data_type, "StringValue": f"1{char}2"}}
    expect_error(sqs, sqs.send_message, QueueUrl=queue, MessageBody="m", MessageAttributes=attrs, **INVALID_PARAMETER)
    assert counts(sqs, queue) == (0, 0, 0)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode("utf-8"),  # the \ud800 escape, as json.dumps writes it
        lambda text: text.encode("utf-16"),  # an escape in UTF-16: no "\u" among the bytes
        lambda text: text.encode("ascii").replace(b"\\ud800", "\ud800".encode("utf-8", "surrogatepass")),
    ],
    ids=["escape", "utf-16", "raw-utf-8-bytes"],
)
def test_a_lone_surrogate_in_a_json_body_is_refused_whatever_its_encoding(sqs, raw, queue, encode):
    """Only the standard library's decoder takes these bodies (orjson refuses them), and it
    lets a lone surrogate through: the api layer finds it in every form, answers 400 and
    changes nothing."""
    body = json.dumps({"QueueUrl": queue, "Tags": {"team": "\ud800"}})
    answer = raw.json_call("TagQueue", encode(body))
    assert answer.status == 400
    error = json.loads(answer.body)
    assert error["__type"] == "com.amazonaws.sqs#InvalidParameterValueException"
    assert "Invalid binary character '#xD800'" in error["message"]
    assert sqs.list_queue_tags(QueueUrl=queue).get("Tags", {}) == {}


def test_a_lone_surrogate_in_a_batch_entry_fails_that_entry_alone(sqs, raw, queue):
    """JSON: a batch entry's body, or its attribute's StringValue, with a lone surrogate gets the
    error its single SendMessage gets, in Failed, and the other entries are sent (issue 31: it was
    a 500). The query protocol cannot carry one: its %ED%A0%80 is not UTF-8."""
    entries = [
        {"Id": "body", "MessageBody": "a\ud800b"},
        {
            "Id": "attribute",
            "MessageBody": "m",
            "MessageAttributes": {"a": {"DataType": "String", "StringValue": "\udfff"}},
        },
        {"Id": "fine", "MessageBody": "fine"},
    ]
    answer = raw.json_call("SendMessageBatch", json.dumps({"QueueUrl": queue, "Entries": entries}))
    assert answer.status == 200, answer.body
    result = answer.json()
    assert [entry["Id"] for entry in result["Successful"]] == ["fine"]
    failed = {entry["Id"]: entry for entry in result["Failed"]}
    assert (failed["body"]["Code"], failed["body"]["SenderFault"]) == ("InvalidMessageContents", True)
    assert "Invalid binary character '#xD800'" in failed["body"]["Message"]
    assert failed["attribute"]["Code"] == "InvalidParameterValue"
    assert "Invalid binary character in the message attribute 'a'" in failed["attribute"]["Message"]
    assert counts(sqs, queue) == (1, 0, 0)
    form = "Action=SendMessageBatch&Version=2012-11-05&QueueUrl={}&Entries.1.Id=a&Entries.1.MessageBody=%ED%A0%80"
    answer = raw.request("POST", "/", form.format(queue), {"Content-Type": "application/x-www-form-urlencoded"})
    assert (answer.status, answer.xml().findtext("Error/Code")) == (400, "MalformedQueryString")
    assert counts(sqs, queue) == (1, 0, 0)


@pytest.mark.parametrize("member", ["MaxNumberOfMessages", "VisibilityTimeout", "WaitTimeSeconds"])
def test_an_integer_of_thousands_of_digits_is_a_bad_parameter_in_both_protocols(sqs, raw, queue, member):
    """Past the 4,300 digits Python's int() reads (issue 31: a 500 in the query protocol), the
    query protocol says the text is no integer and JSON's decoder refuses the body; 4,000 digits
    are read, and out of the member's range."""
    for digits, reason in ((5000, "Reason: Must be an integer."), (4000, ", if provided.")):
        answer = raw.query({"Action": "ReceiveMessage", "QueueUrl": queue, member: "9" * digits})
        assert (answer.status, answer.xml().findtext("Error/Code")) == (400, "InvalidParameterValue")
        assert answer.xml().findtext("Error/Message").endswith(reason)
        text = json.dumps({"QueueUrl": queue, member: 0}).replace(": 0}", ": " + "9" * digits + "}")
        answer = raw.json_call("ReceiveMessage", text)
        assert (answer.status, answer.json()["__type"]) == (400, "com.amazonaws.sqs#InvalidParameterValueException")


def test_a_batch_entrys_integer_of_thousands_of_digits_in_both_protocols(sqs, raw, queue):
    """A batch entry's DelaySeconds that int() cannot read refuses the request (as any unreadable
    value does); one it reads fails its entry, as an out-of-range delay does."""
    entry = {"Entries.1.Id": "a", "Entries.1.MessageBody": "m"}
    answer = raw.query({"Action": "SendMessageBatch", "QueueUrl": queue, **entry, "Entries.1.DelaySeconds": "9" * 5000})
    assert (answer.status, answer.xml().findtext("Error/Code")) == (400, "InvalidParameterValue")
    answer = raw.query({"Action": "SendMessageBatch", "QueueUrl": queue, **entry, "Entries.1.DelaySeconds": "9" * 4000})
    assert answer.status == 200
    assert answer.xml().findtext("SendMessageBatchResult/BatchResultErrorEntry/Code") == "InvalidParameterValue"
    for digits, status in ((5000, 400), (4000, 200)):
        body = json.dumps({"QueueUrl": queue, "Entries": [{"Id": "a", "MessageBody": "m", "DelaySeconds": 0}]})
        answer = raw.json_call("SendMessageBatch", body.replace(": 0}", ": " + "9" * digits + "}"))
        assert answer.status == status, answer.body[:300]
    assert answer.json()["Failed"][0]["Code"] == "InvalidParameterValue"
    assert counts(sqs, queue) == (0, 0, 0)
