"""The AWS SDK for Go v2 against the server: Debian's golang-github-aws-aws-sdk-go-v2-dev
(1.17.1, whose SQS client speaks the query protocol), built offline from /usr/share/gocode.

go/sqs_scenario.go runs one scenario and prints a JSON summary; each test below checks one
part of it. The SDK verifies MD5OfMessageBody on SendMessage, SendMessageBatch and
ReceiveMessage and fails the call on a mismatch; MD5OfMessageAttributes is recomputed here.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from compat_tests.clients.conftest import clean_env, missing, run_scenario
from compat_tests.helpers import DEFAULT_ACCOUNT, NON_EXISTENT_QUEUE, md5_hex, md5_of_attributes, unique_name

SCENARIO = Path(__file__).resolve().parent / "go" / "sqs_scenario.go"
GOPATH = "/usr/share/gocode"  # where Debian's Go library packages put their sources
SDK = Path(GOPATH, "src/github.com/aws/aws-sdk-go-v2/service/sqs")
BUILD_TIMEOUT = 300

BODY = "héllo wörld ✓ 😀 日本語 \t\n<&>"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    go = shutil.which("go")
    if not go or not SDK.is_dir():
        missing(f"needs go and Debian's golang-github-aws-aws-sdk-go-v2-dev (go={go}, {SDK} present: {SDK.is_dir()})")
    out = tmp_path_factory.mktemp("go")
    # GOPATH mode: the packages come from Debian's tree, nothing is fetched; no cgo, so no C compiler.
    env = clean_env(GO111MODULE="off", GOPATH=GOPATH, GOCACHE=str(out / "cache"), CGO_ENABLED="0", GOFLAGS="")
    try:
        done = subprocess.run(
            [go, "build", "-o", str(out / "sqs_scenario"), str(SCENARIO)],
            env=env,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"go build of {SCENARIO.name} took more than {BUILD_TIMEOUT}s")
    if done.returncode != 0:
        pytest.fail(f"go build of {SCENARIO.name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return out / "sqs_scenario"


@pytest.fixture(scope="module")
def summary(scenario, endpoint):
    name = unique_name("go")
    out = run_scenario([str(scenario), endpoint, name], "the Go scenario")
    out["queueName"] = name
    return out


def test_create_and_get_queue_url(summary, endpoint):
    assert summary["queueUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{summary['queueName']}"
    assert summary["getQueueUrl"] == summary["queueUrl"]
    assert summary["listed"] == [summary["queueUrl"]]


def test_send_and_batch(summary):
    assert summary["send"]["md5OfBody"] == md5_hex(BODY)
    assert summary["batch"] == {"successfulIds": ["a", "b"], "failed": 0}


def test_receive_bodies_and_attributes(summary):
    assert summary["receivedBodies"] == sorted(["batch a", "batch b ✓", BODY])
    got = summary["receive"]
    assert got["md5OfBody"] == md5_hex(BODY)
    attributes = got["attributes"]
    assert attributes["Greeting"] == {"DataType": "String", "StringValue": "grüße ✓"}
    assert attributes["Count"] == {"DataType": "Number", "StringValue": "-12.5e3"}
    assert attributes["Blob"]["DataType"] == "Binary"
    blob = base64.b64decode(attributes["Blob"]["BinaryValue"])  # Go's JSON writes []byte as base64
    assert list(blob) == [0, 1, 2, 127, 128, 254, 255]
    attributes["Blob"]["BinaryValue"] = blob
    assert got["md5OfAttributes"] == md5_of_attributes(attributes) == summary["send"]["md5OfAttributes"]


def test_receive_system_attributes(summary):
    system = summary["receive"]["systemAttributes"]
    assert system["ApproximateReceiveCount"] == "1"
    assert system["SenderId"] == DEFAULT_ACCOUNT
    for name in ("SentTimestamp", "ApproximateFirstReceiveTimestamp"):
        assert system[name].isdigit() and len(system[name]) == 13, (name, system[name])


def test_change_visibility_redelivers_and_deletes_empty_the_queue(summary):
    assert summary["redelivery"] == {"count": 1, "receiveCount": "2", "newHandle": True}
    # The batch's three handles: the first one is stale after the redelivery, and on a
    # standard queue any handle of a message that is gone still deletes successfully (AWS).
    assert summary["deleteBatch"] == {"successful": 3, "failed": 0}
    attributes = summary["attributes"]
    assert attributes["VisibilityTimeout"] == "30"
    assert attributes["QueueArn"] == f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{summary['queueName']}"
    for name in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"):
        assert attributes[name] == "0", (name, attributes)


def test_tags(summary):
    assert summary["tags"] == {"team": "go ✓"}


@pytest.mark.parametrize("case", ["getQueueUrlMissing", "afterDelete"])
def test_queue_does_not_exist(summary, case):
    err = summary["errors"][case]
    assert (err["code"], err["status"]) == (NON_EXISTENT_QUEUE, 400), err
    if case == "getQueueUrlMissing":  # the 2022 model lists the typed error for GetQueueUrl, not SendMessage
        assert err["typed"] == "QueueDoesNotExist", err


def test_invalid_receipt_handle_and_missing_parameters(summary):
    # 404 per the Smithy model's awsQueryError trait (docs/sqs-reference.md 1.14).
    errors = summary["errors"]
    assert errors["badReceiptHandle"] == {
        "code": "ReceiptHandleIsInvalid",
        "status": 404,
        "typed": "ReceiptHandleIsInvalid",
    }
    assert (errors["emptyBody"]["code"], errors["emptyBody"]["status"]) == ("MissingParameter", 400)
    assert (errors["fifoMissingGroup"]["code"], errors["fifoMissingGroup"]["status"]) == ("MissingParameter", 400)


def test_fifo_order_sequence_numbers_and_dedup(summary):
    fifo = summary["fifo"]
    numbers = fifo["sequenceNumbers"]
    assert all(len(n) == 20 and n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted({int(n) for n in numbers})
    assert fifo["duplicateSequenceNumber"] == numbers[0]  # content-based dedup answers with the original
    assert fifo["received"] == [["f1", "a", numbers[0]], ["f3", "a", numbers[2]], ["f2", "b", numbers[1]]]
