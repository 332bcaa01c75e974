"""The query protocol: the tree of dotted keys in (in every form clients send), XML out."""

from urllib.parse import parse_qsl

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import protocol
from emulator.errors import SqsError, queue_does_not_exist
from emulator.protocol import awsquery

from .support import (
    QURL,
    RID,
    parse_error,
    parse_response,
    query_request,
    raw_request,
    roundtrip,
)


def test_query_queue_url_from_path(query_model):
    req = query_request(query_model, "DeleteMessage", {"ReceiptHandle": "r"}, path="/000000000000/q1")
    assert roundtrip(req) == ("query", ("DeleteMessage", {"ReceiptHandle": "r", "QueueUrl": QURL}))


def test_query_empty_list_and_variants():
    # botocore sends an empty list as a bare key.
    req = raw_request(data={"Action": "GetQueueAttributes", "QueueUrl": QURL, "AttributeNames": ""})
    assert roundtrip(req)[1][1]["AttributeNames"] == []
    for style in ("AttributeNames.member.{}", "AttributeNames.{}", "AttributeName.{}"):
        data = {"Action": "GetQueueAttributes", "QueueUrl": QURL, style.format(2): "Policy", style.format(1): "All"}
        assert roundtrip(raw_request(data=data))[1][1]["AttributeNames"] == ["All", "Policy"]


def test_query_get_with_query_string_and_auth_keys_ignored():
    req = raw_request(
        path="/000000000000/q1",
        method="GET",
        query_string={
            "Action": "ReceiveMessage",
            "Version": "2012-11-05",
            "MaxNumberOfMessages": "3",
            "X-Amz-Signature": "x",
            "AWSAccessKeyId": "k",
            "SignatureVersion": "2",
        },
    )
    assert roundtrip(req) == ("query", ("ReceiveMessage", {"QueueUrl": QURL, "MaxNumberOfMessages": 3}))


def test_no_action_is_an_sqsparse_error():
    assert parse_error(raw_request(method="GET")).name == "MissingParameter"
    assert parse_error(raw_request(data=b"not a form \xff")).name in ("MissingParameter", "MalformedQueryString")


def test_query_bad_int_and_bool_and_blob():
    err = parse_error(raw_request(data={"Action": "ReceiveMessage", "QueueUrl": QURL, "MaxNumberOfMessages": "abc"}))
    assert err.name == "InvalidParameterValue"
    assert err.message.startswith("Value abc for parameter MaxNumberOfMessages is invalid. Reason: ")
    err = parse_error(
        raw_request(
            data={
                "Action": "SendMessage",
                "QueueUrl": QURL,
                "MessageBody": "x",
                "MessageAttribute.1.Name": "b",
                "MessageAttribute.1.Value.DataType": "Binary",
                "MessageAttribute.1.Value.BinaryValue": "!!notbase64",
            }
        )
    )
    assert err.name == "InvalidParameterValue"
    assert "MessageAttribute.1.Value.BinaryValue" in err.message


def test_query_xml_layout():
    out = {"Messages": [{"MessageId": "m", "MessageAttributes": {"x": {"DataType": "String", "StringValue": "v"}}}]}
    text = protocol.serialize_result("query", "ReceiveMessage", out, RID).response().get_data(as_text=True)
    assert '<ReceiveMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">' in text
    assert (
        "<ReceiveMessageResult><Message><MessageId>m</MessageId><MessageAttribute><Name>x</Name>"
        "<Value><StringValue>v</StringValue><DataType>String</DataType></Value></MessageAttribute>"
    ) in text


def test_query_errors(query_model):
    response = protocol.serialize_error("query", queue_does_not_exist(), RID).response()
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

    response = protocol.serialize_error("query", SqsError("InternalFailure", "boom"), RID).response()
    parsed = parse_response(query_model, "query", "GetQueueUrl", response)
    assert response.status_code == 500
    assert (parsed["Error"]["Type"], parsed["Error"]["Code"]) == ("Receiver", "InternalFailure")


def test_query_body_on_a_queue_path_and_large_body():
    req = raw_request(path="/000000000000/q1", data={"Action": "SendMessage", "MessageBody": "a+b c"})
    assert roundtrip(req)[1] == ("SendMessage", {"MessageBody": "a+b c", "QueueUrl": QURL})
    # Over werkzeug's 500 kB form limit, under SQS's 1 MiB message limit.
    big = "x" * 1_048_576
    req = raw_request(data={"Action": "SendMessage", "QueueUrl": QURL, "MessageBody": big})
    assert roundtrip(req)[1][1]["MessageBody"] == big


def test_query_index_int_refuses_is_the_clients():
    # "²" is a digit to str.isdigit() but not to int().
    err = parse_error(raw_request(data={"Action": "CreateQueue", "QueueName": "q", "Attribute.².Name": "x"}))
    assert (err.name, err.message) == (
        "InvalidParameterValue",
        "The request could not be parsed: invalid literal for int() with base 10: '²'",
    )


def test_query_integers_of_any_length_are_read_or_refused_never_raised():
    # Python's int() refuses more than 4,300 digits (sys.get_int_max_str_digits); leading zeros never count.
    def read(text):
        return raw_request(data={"Action": "ReceiveMessage", "QueueUrl": QURL, "MaxNumberOfMessages": text})

    assert roundtrip(read("0" * 5000 + "7"))[1][1]["MaxNumberOfMessages"] == 7
    assert roundtrip(read("-" + "9" * 4000))[1][1]["MaxNumberOfMessages"] == -int("9" * 4000)
    for text in ("9" * 5000, "+" + "1" * 4301):
        err = parse_error(read(text))
        assert (err.name, err.message[-27:]) == ("InvalidParameterValue", "Reason: Must be an integer.")


# Names, values, separators and escapes, valid and not (a lone %C3 is not UTF-8).
_FORM_TEXT = st.lists(
    st.sampled_from(["a", "B", "=", "&", "+", "%", " ", "%2F", "%2B", "%C3%A9", "%e9", "%C3", "%ZZ", "\u00e9", "%"]),
    max_size=20,
).map("".join)


@given(_FORM_TEXT)
@settings(max_examples=500)
def test_a_form_reads_as_parse_qsl_reads_it(text):
    """awsquery.form_pairs decodes only the pieces that need it; what it answers, or the
    error it raises, is parse_qsl's (keep_blank_values, errors="strict")."""

    def outcome(read):
        try:
            return read(text)
        except UnicodeDecodeError as error:
            return ("UnicodeDecodeError", str(error))

    assert outcome(awsquery.form_pairs) == outcome(lambda t: parse_qsl(t, keep_blank_values=True, errors="strict"))
