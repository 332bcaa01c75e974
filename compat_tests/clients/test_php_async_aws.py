"""AsyncAws SQS against the server: the PHP client of Symfony Messenger's SQS transport, as
Debian packages it (php-async-aws-sqs 1.7.0, query protocol, on Symfony HttpClient).

php/sqs_scenario.php runs one scenario and prints a JSON summary; each test below checks one
part of it. AsyncAws checks no digests itself: they are recomputed here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compat_tests.clients.conftest import missing, run_scenario
from compat_tests.helpers import DEFAULT_ACCOUNT, NON_EXISTENT_QUEUE, md5_hex, md5_of_attributes, unique_name

SCENARIO = Path(__file__).resolve().parent / "php" / "sqs_scenario.php"
AUTOLOAD = Path("/usr/share/php/AsyncAws/Sqs/autoload.php")  # Debian's php-async-aws-sqs

BODY = "héllo wörld ✓ 😀 日本語 \t\n<&>"


@pytest.fixture(scope="module")
def summary(endpoint):
    php = shutil.which("php")
    if not php or not AUTOLOAD.is_file():
        missing(f"needs php and Debian's php-async-aws-sqs (php={php}, {AUTOLOAD} present: {AUTOLOAD.is_file()})")
    name = unique_name("php")
    out = run_scenario([php, str(SCENARIO), endpoint, name], "the PHP scenario")
    out["queueName"] = name
    return out


def test_create_get_url_and_queue_exists(summary, endpoint):
    assert summary["queueUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{summary['queueName']}"
    assert summary["getQueueUrl"] == summary["queueUrl"]
    assert summary["queueExists"] == [True, False]  # AsyncAws's waiter, on GetQueueUrl's error code


def test_send_and_batch_digests(summary):
    assert summary["send"]["md5OfBody"] == md5_hex(BODY)
    assert summary["batch"] == {"successful": [["a", md5_hex("batch a")], ["b", md5_hex("batch b ✓")]], "failed": 0}


def test_receive_bodies_and_attributes(summary):
    assert summary["receivedBodies"] == sorted(["batch a", "batch b ✓", BODY])
    got = summary["receive"]
    assert got["md5OfBody"] == md5_hex(BODY)
    attributes = got["attributes"]
    assert attributes["Greeting"] == {"DataType": "String", "StringValue": "grüße ✓", "BinaryHex": None}
    assert attributes["Count"] == {"DataType": "Number", "StringValue": "-12.5e3", "BinaryHex": None}
    assert attributes["Blob"] == {"DataType": "Binary", "StringValue": None, "BinaryHex": "0001027f80feff"}
    as_sent = {
        "Greeting": {"DataType": "String", "StringValue": "grüße ✓"},
        "Count": {"DataType": "Number", "StringValue": "-12.5e3"},
        "Blob": {"DataType": "Binary", "BinaryValue": bytes.fromhex("0001027f80feff")},
    }
    assert got["md5OfAttributes"] == md5_of_attributes(as_sent) == summary["send"]["md5OfAttributes"]


def test_receive_system_attributes_and_deletes_empty_the_queue(summary):
    system = summary["receive"]["systemAttributes"]
    assert system["ApproximateReceiveCount"] == "1"
    assert system["SenderId"] == DEFAULT_ACCOUNT
    for name in ("SentTimestamp", "ApproximateFirstReceiveTimestamp"):
        assert system[name].isdigit() and len(system[name]) == 13, (name, system[name])
    attributes = summary["attributes"]
    assert attributes["QueueArn"] == f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{summary['queueName']}"
    assert (attributes["ApproximateNumberOfMessages"], attributes["ApproximateNumberOfMessagesNotVisible"]) == (
        "0",
        "0",
    )


def test_errors_reach_asyncaws_typed_exceptions(summary):
    errors = summary["errors"]
    assert errors["getQueueUrlMissing"] == {
        "class": "QueueDoesNotExistException",
        "code": NON_EXISTENT_QUEUE,
        "status": 400,
    }
    # 404 per the Smithy model's awsQueryError trait (docs/sqs-reference.md 1.14).
    assert errors["badReceiptHandle"] == {
        "class": "ReceiptHandleIsInvalidException",
        "code": "ReceiptHandleIsInvalid",
        "status": 404,
    }
    assert (errors["emptyBody"]["code"], errors["emptyBody"]["status"]) == ("MissingParameter", 400)
    assert (errors["afterDelete"]["code"], errors["afterDelete"]["status"]) == (NON_EXISTENT_QUEUE, 400)


def test_fifo_order_sequence_numbers_and_dedup(summary):
    fifo = summary["fifo"]
    numbers = fifo["sequenceNumbers"]
    assert all(len(n) == 20 and n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted({int(n) for n in numbers})
    assert fifo["duplicateSequenceNumber"] == numbers[0]  # content-based dedup answers with the original
    assert fifo["received"] == [["f1", "a", numbers[0]], ["f3", "a", numbers[2]], ["f2", "b", numbers[1]]]
