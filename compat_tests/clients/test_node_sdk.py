"""The AWS SDK for JavaScript v3 (@aws-sdk/client-sqs) against the server.

node/sqs_scenario.mjs runs one scenario and prints a JSON summary; each test
below checks one part of it. The SDK verifies MD5OfMessageBody on SendMessage,
SendMessageBatch and ReceiveMessage and throws on a mismatch; the script
recomputes MD5OfMessageAttributes itself (the SDK does not check those).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from compat_tests.clients.conftest import missing, run_scenario
from compat_tests.helpers import DEFAULT_ACCOUNT, NON_EXISTENT_QUEUE, md5_hex

NODE_DIR = Path(__file__).resolve().parent / "node"
NPM_CI_TIMEOUT = 300

BODY = "héllo wörld ✓ 😀 日本語 \t\n<&>"


@pytest.fixture(scope="module")
def node_modules():
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        missing(f"needs node and npm on PATH (node={node}, npm={npm})")
    if not (NODE_DIR / "node_modules" / "@aws-sdk" / "client-sqs").is_dir():
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=NODE_DIR,
                capture_output=True,
                text=True,
                timeout=NPM_CI_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"npm ci in {NODE_DIR} took more than {NPM_CI_TIMEOUT}s")
        if done.returncode != 0:
            pytest.fail(f"npm ci in {NODE_DIR} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return node


@pytest.fixture(scope="module")
def summary(node_modules, endpoint):
    return run_scenario([node_modules, "sqs_scenario.mjs", endpoint, "node-sdk"], "sqs_scenario.mjs", cwd=NODE_DIR)


def test_create_and_get_queue_url(summary, endpoint):
    assert summary["queueUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{summary['queueName']}"
    assert summary["getQueueUrl"] == summary["queueUrl"]
    assert summary["listed"] == [summary["queueUrl"]]


def test_send_digests(summary):
    send = summary["send"]
    assert send["md5OfBody"] == md5_hex(BODY) == send["expectedMd5OfBody"]
    assert send["md5OfAttributes"] == send["expectedMd5OfAttributes"]


def test_send_batch(summary):
    batch = summary["batch"]
    assert batch["successfulIds"] == ["a", "b", "c"]
    assert batch["failed"] == []
    assert batch["md5Ok"] is True
    assert batch["md5OfAttributesB"] == batch["expectedMd5OfAttributesB"]


def test_receive_bodies_and_attributes(summary):
    assert summary["receivedBodies"] == sorted(["batch a", "batch b ✓", "batch c", BODY])
    got = summary["receive"]
    assert got["body"] == BODY
    assert got["md5OfBody"] == md5_hex(BODY)
    assert got["md5OfAttributes"] == got["recomputedMd5OfAttributes"] == summary["send"]["md5OfAttributes"]
    assert got["attributeNames"] == ["Blob", "Count", "Greeting"]
    assert got["greeting"] == {"DataType": "String", "StringValue": "grüße ✓"}
    assert got["count"] == {"DataType": "Number", "StringValue": "-12.5e3"}
    assert got["blobType"] == "Binary"
    assert got["blobIsUint8Array"] is True
    assert got["blobBytes"] == [0, 1, 2, 127, 128, 254, 255]
    # A message sent without attributes has no MD5OfMessageAttributes (docs/sqs-reference.md 1.13).
    assert summary["receivePlainHasMd5OfAttributes"] is False


def test_receive_system_attributes(summary):
    system = summary["receive"]["systemAttributes"]
    assert system["ApproximateReceiveCount"] == "1"
    assert system["SenderId"]
    for name in ("SentTimestamp", "ApproximateFirstReceiveTimestamp"):
        assert system[name].isdigit() and len(system[name]) == 13, (name, system[name])


def test_change_visibility_redelivers(summary):
    assert summary["redelivery"] == {"count": 1, "receiveCount": "2", "newHandle": True}


def test_deletes_empty_the_queue(summary):
    assert summary["deleteBatch"] == {"successful": 3, "failed": []}
    attrs = summary["attributes"]
    assert attrs["VisibilityTimeout"] == "30"
    assert attrs["QueueArn"] == f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{summary['queueName']}"
    for name in (
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ):
        assert attrs[name] == "0", (name, attrs)


@pytest.mark.parametrize("case", ["getQueueUrlMissing", "sendToMissing", "afterDelete"])
def test_queue_does_not_exist(summary, case):
    err = summary["errors"][case] if case in summary["errors"] else summary[case]
    assert err["name"] == "QueueDoesNotExist", err
    assert err["Code"] == NON_EXISTENT_QUEUE, err
    assert err["Type"] == "Sender", err
    assert err["httpStatusCode"] == 400, err
    assert err["fault"] == "client", err


def test_invalid_receipt_handle(summary):
    # 404 per the Smithy model's awsQueryError trait (docs/sqs-reference.md 1.14); moto answers 400.
    err = summary["errors"]["badReceiptHandle"]
    assert (err["name"], err["Code"], err["httpStatusCode"]) == (
        "ReceiptHandleIsInvalid",
        "ReceiptHandleIsInvalid",
        404,
    ), err


def test_fifo_order_sequence_numbers_and_dedup(summary):
    fifo = summary["fifo"]
    assert fifo["duplicateSameId"] is True
    numbers = [fifo["first"]["sequenceNumber"], *fifo["batchSequenceNumbers"]]
    assert all(len(n) == 20 and n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted({int(n) for n in numbers})
    received = fifo["received"]
    assert [(m["body"], m["group"]) for m in received] == [("f1", "a"), ("f3", "a"), ("f2", "b")]
    assert [m["sequenceNumber"] for m in received] == [numbers[0], numbers[2], numbers[1]]
    assert received[0]["dedup"] == fifo["expectedDedupF1"]  # SHA-256 of the body
    assert fifo["groupLocked"] == 0


def test_fifo_system_attribute_digest(summary):
    first = summary["fifo"]["first"]
    # The vector of docs/sqs-reference.md section 3 (AWSTraceHeader given in MessageSystemAttributes).
    assert (
        first["md5OfSystemAttributes"] == first["expectedMd5OfSystemAttributes"] == "5ae4d5d7636402d80f4eb6d213245a88"
    )
    assert summary["fifo"]["received"][0]["trace"].startswith("Root=1-5759e988")


def test_fifo_missing_group_id(summary):
    err = summary["fifo"]["missingGroup"]
    assert (err["Code"], err["httpStatusCode"]) == ("MissingParameter", 400), err
    assert err["message"] == "The request must contain the parameter MessageGroupId.", err


def test_one_name_in_two_regions_has_the_aws_url_shape(summary, endpoint):
    """--queue-urls aws, the default (issue 18 item 1): /<account>/<name> in every region, the
    region taken from the request's signature; the SDK sends to the queue URL's host."""
    regions = summary["regions"]
    name = f"{summary['queueName']}-r"
    assert regions["eastUrl"] == regions["westUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"
    assert (regions["westBodies"], regions["eastBodies"]) == (["west"], ["east"])
    assert regions["westArn"] == f"arn:aws:sqs:eu-west-1:{DEFAULT_ACCOUNT}:{name}"
    assert regions["westListed"] == [regions["westUrl"]]


@pytest.fixture(scope="module")
def injected(node_modules, endpoint, target):
    """node/error_rules.mjs's summary: each injected error as the SDK raised it."""
    if target != "emulator":
        pytest.skip("error rules are the emulator's admin API")
    return run_scenario([node_modules, "error_rules.mjs", endpoint], "error_rules.mjs", cwd=NODE_DIR)


@pytest.mark.parametrize(
    "error, code, status, fault",
    [
        ("RequestThrottled", "RequestThrottled", 403, "client"),
        ("InternalError", "InternalError", 500, "server"),
        ("ServiceUnavailable", "ServiceUnavailable", 503, "server"),
        ("KmsDisabled", "KMS.DisabledException", 400, "client"),
    ],
)
def test_injected_errors_reach_the_sdk_with_awss_shape(injected, error, code, status, fault):
    # The emulator's error rules (POST /_emulator/error-rules); codes and statuses: SQS's Smithy model.
    err = injected[error]
    assert (err["name"], err["Code"], err["httpStatusCode"], err["fault"]) == (error, code, status, fault), err
    assert err["Type"] == ("Sender" if fault == "client" else "Receiver"), err
