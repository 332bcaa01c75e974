"""The api layer alone: operations through api.dispatch with a Context over a
manual-clock Broker (tests/conftest.py), no HTTP and no wire format."""

import hashlib

import botocore.session
import pytest
from botocore import xform_name
from engine_support import ACCOUNT, REGION

from emulator import api
from emulator.api import HANDLERS
from emulator.errors import SqsError

BASE_URL = "http://localhost:9324"
QUEUE_URL = f"{BASE_URL}/{ACCOUNT}/jobs"


@pytest.fixture
def ctx(broker):
    return api.Context(
        broker=broker, account=ACCOUNT, region=REGION, base_url=BASE_URL, default_region=REGION, sender_id=ACCOUNT
    )


@pytest.fixture
def queue_url(ctx):
    result = api.dispatch(ctx, "CreateQueue", {"QueueName": "jobs", "Attributes": {"VisibilityTimeout": "30"}})
    assert result == {"QueueUrl": QUEUE_URL}
    return QUEUE_URL


def refused(ctx, operation: str, params: dict) -> SqsError:
    with pytest.raises(SqsError) as info:
        api.dispatch(ctx, operation, params)
    return info.value


def receive(ctx, queue_url: str, **params) -> list[dict]:
    return api.dispatch(ctx, "ReceiveMessage", {"QueueUrl": queue_url, **params}).get("Messages", [])


def test_every_model_operation_has_a_handler():
    operations = botocore.session.get_session().get_service_model("sqs").operation_names
    assert sorted(HANDLERS) == sorted(xform_name(op) for op in operations)


def test_send_receive_change_visibility_and_delete(ctx, queue_url, clock):
    sent = api.dispatch(ctx, "SendMessage", {"QueueUrl": queue_url, "MessageBody": "hello"})
    assert sent["MD5OfMessageBody"] == hashlib.md5(b"hello").hexdigest()

    [first] = receive(ctx, queue_url, MessageSystemAttributeNames=["ApproximateReceiveCount"])
    assert (first["MessageId"], first["Body"]) == (sent["MessageId"], "hello")
    assert first["Attributes"]["ApproximateReceiveCount"] == "1"
    assert receive(ctx, queue_url) == []  # in flight for the queue's 30 s

    api.dispatch(
        ctx,
        "ChangeMessageVisibility",
        {"QueueUrl": queue_url, "ReceiptHandle": first["ReceiptHandle"], "VisibilityTimeout": 0},
    )
    [second] = receive(ctx, queue_url, VisibilityTimeout=10, MessageSystemAttributeNames=["All"])
    assert second["MessageId"] == sent["MessageId"] and second["ReceiptHandle"] != first["ReceiptHandle"]
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"

    api.dispatch(ctx, "DeleteMessage", {"QueueUrl": queue_url, "ReceiptHandle": second["ReceiptHandle"]})
    clock.advance(60)
    assert receive(ctx, queue_url) == []  # gone, not just in flight
    counts = api.dispatch(ctx, "GetQueueAttributes", {"QueueUrl": queue_url, "AttributeNames": ["All"]})
    assert counts["Attributes"]["ApproximateNumberOfMessages"] == "0"
    assert counts["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"


def test_a_visibility_timeout_ends_when_the_clock_passes_it(ctx, queue_url, clock):
    api.dispatch(ctx, "SendMessage", {"QueueUrl": queue_url, "MessageBody": "later"})
    [first] = receive(ctx, queue_url)
    clock.advance(29)
    assert receive(ctx, queue_url) == []
    clock.advance(1)
    [again] = receive(ctx, queue_url)
    assert again["MessageId"] == first["MessageId"]


def test_a_batch_reports_each_entry(ctx, queue_url):
    sent = api.dispatch(
        ctx,
        "SendMessageBatch",
        {"QueueUrl": queue_url, "Entries": [{"Id": "a", "MessageBody": "one"}, {"Id": "b", "MessageBody": "two"}]},
    )
    assert sorted(entry["Id"] for entry in sent["Successful"]) == ["a", "b"] and not sent.get("Failed")
    handles = [message["ReceiptHandle"] for message in receive(ctx, queue_url, MaxNumberOfMessages=10)]
    deleted = api.dispatch(
        ctx,
        "DeleteMessageBatch",
        {
            "QueueUrl": queue_url,
            "Entries": [{"Id": "x", "ReceiptHandle": handles[0]}, {"Id": "y", "ReceiptHandle": "not-a-handle"}],
        },
    )
    assert [entry["Id"] for entry in deleted["Successful"]] == ["x"]
    [failure] = deleted["Failed"]
    assert (failure["Id"], failure["Code"], failure["SenderFault"]) == ("y", "ReceiptHandleIsInvalid", True)


def test_a_value_out_of_range_is_invalid_parameter_value(ctx, queue_url):
    error = refused(ctx, "ReceiveMessage", {"QueueUrl": queue_url, "MaxNumberOfMessages": 11})
    assert (error.name, error.code, error.status) == ("InvalidParameterValue", "InvalidParameterValue", 400)
    assert error.message == (
        "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."
    )


def test_a_visibility_timeout_beyond_twelve_hours_is_refused(ctx, queue_url):
    api.dispatch(ctx, "SendMessage", {"QueueUrl": queue_url, "MessageBody": "x"})
    [message] = receive(ctx, queue_url)
    error = refused(
        ctx,
        "ChangeMessageVisibility",
        {"QueueUrl": queue_url, "ReceiptHandle": message["ReceiptHandle"], "VisibilityTimeout": 43201},
    )
    assert error.name == "InvalidParameterValue"
    assert error.message == (
        "Value 43201 for parameter VisibilityTimeout is invalid. "
        "Reason: VisibilityTimeout must be an integer between 0 and 43200."
    )


def test_a_malformed_receipt_handle_is_receipt_handle_is_invalid(ctx, queue_url):
    error = refused(ctx, "DeleteMessage", {"QueueUrl": queue_url, "ReceiptHandle": "garbage"})
    assert (error.name, error.code, error.status) == ("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404)
    assert error.message == 'The input receipt handle "garbage" is not a valid receipt handle.'


def test_repeated_batch_ids_are_refused_as_a_whole(ctx, queue_url):
    error = refused(
        ctx,
        "SendMessageBatch",
        {
            "QueueUrl": queue_url,
            "Entries": [{"Id": "same", "MessageBody": "one"}, {"Id": "same", "MessageBody": "two"}],
        },
    )
    assert (error.name, error.code) == ("BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
    assert error.message == "Id same repeated."
    assert receive(ctx, queue_url) == []


def test_a_missing_queue_is_queue_does_not_exist(ctx):
    error = refused(ctx, "GetQueueUrl", {"QueueName": "nowhere"})
    assert (error.name, error.code) == ("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
    assert error.message == "The specified queue does not exist."
