"""What an earlier receipt handle may still do, through a real client.

Default (AWS) mode follows responses recorded against real AWS
(docs/sqs-reference.md section 3, "Old receipt handles on a standard
queue"): every handle of a message that still exists acts on it. A second
server runs with ``--receipts strict``, the seed design, where only the latest
handle acts. Either way a consumer must be idempotent: delivery is at least once.
"""

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import INVALID_PARAMETER, counts, expect_error, receive, receive_one, sqs_client, unique_name
from compat_tests.servers import start_emulator


@pytest.fixture(scope="module")
def strict_sqs():
    if TARGET != "emulator":
        pytest.skip("--receipts strict is the emulator's own option")
    server = start_emulator("manual", "emulator-strict", "--receipts", "strict")
    try:
        yield sqs_client(server.url)
    finally:
        server.stop()


def received_twice(client, url):
    """A message received with VisibilityTimeout 0 (h1), then again with 3 (h2): (h1, h2)."""
    client.send_message(QueueUrl=url, MessageBody="m")
    first = receive_one(client, url, VisibilityTimeout=0)
    second = receive_one(client, url, VisibilityTimeout=3)
    assert first["MessageId"] == second["MessageId"]
    assert first["ReceiptHandle"] != second["ReceiptHandle"]
    return first["ReceiptHandle"], second["ReceiptHandle"]


# -- default: as AWS ------------------------------------------------------------


def test_earlier_handle_changes_the_visibility_of_the_newer_delivery(sqs, queue):
    """AWS-recorded: ChangeMessageVisibility(h1, 0) succeeds and the message is receivable at once."""
    h1, _ = received_twice(sqs, queue)
    assert counts(sqs, queue) == (0, 1, 0)
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=h1, VisibilityTimeout=0)
    assert counts(sqs, queue) == (1, 0, 0)
    again = receive_one(sqs, queue, AttributeNames=["ApproximateReceiveCount"])
    assert again["Attributes"]["ApproximateReceiveCount"] == "3"


def test_earlier_handle_deletes_the_message(sqs, queue):
    h1, _ = received_twice(sqs, queue)
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=h1)
    assert counts(sqs, queue) == (0, 0, 0)


def test_handle_whose_visibility_ended_still_deletes(sqs, queue, advance):
    """AWS-recorded: no receive since the visibility ended; ApproximateNumberOfMessages is 0 afterwards."""
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    handle = receive_one(sqs, queue, VisibilityTimeout=3)["ReceiptHandle"]
    advance(3)
    assert counts(sqs, queue) == (1, 0, 0)
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=handle)
    assert counts(sqs, queue) == (0, 0, 0)
    assert receive(sqs, queue) == []


# -- --receipts strict ----------------------------------------------------------------


def test_strict_stale_delete_succeeds_and_deletes_nothing(strict_sqs):
    url = strict_sqs.create_queue(QueueName=unique_name("strict"))["QueueUrl"]
    h1, h2 = received_twice(strict_sqs, url)
    strict_sqs.delete_message(QueueUrl=url, ReceiptHandle=h1)
    assert counts(strict_sqs, url) == (0, 1, 0)
    strict_sqs.delete_message(QueueUrl=url, ReceiptHandle=h2)
    assert counts(strict_sqs, url) == (0, 0, 0)


def test_strict_stale_visibility_change_is_the_aws_error_and_changes_nothing(strict_sqs):
    url = strict_sqs.create_queue(QueueName=unique_name("strict"))["QueueUrl"]
    h1, h2 = received_twice(strict_sqs, url)
    expect_error(
        strict_sqs,
        strict_sqs.change_message_visibility,
        QueueUrl=url,
        ReceiptHandle=h1,
        VisibilityTimeout=0,
        **INVALID_PARAMETER,
        message=f"Value {h1} for parameter ReceiptHandle is invalid. "
        "Reason: Message does not exist or is not available for visibility timeout change.",
    )
    assert counts(strict_sqs, url) == (0, 1, 0)
    strict_sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=h2, VisibilityTimeout=0)
    assert counts(strict_sqs, url) == (1, 0, 0)
