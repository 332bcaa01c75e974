"""The AWS CLI (v1, ``pip install awscli``) against the server, through subprocess.

Each test gets empty AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE files and an
environment with no other AWS_* variable, so the machine's profile cannot leak in.
"""

from __future__ import annotations

import base64
import json
import subprocess

import pytest

from compat_tests.clients.conftest import clean_env, find_executable, missing
from compat_tests.helpers import DEFAULT_ACCOUNT, NON_EXISTENT_QUEUE, md5_hex, md5_of_attributes, unique_name

CLI_TIMEOUT = 60


class Cli:
    def __init__(self, exe: str, endpoint: str, env: dict):
        self.exe, self.endpoint, self.env = exe, endpoint, env
        self.created: list[str] = []  # queue URLs deleted after the test

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.exe, "--endpoint-url", self.endpoint, "--output", "json", "sqs", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )

    def __call__(self, *args: str) -> dict:
        """Run ``aws sqs <args>``; expect exit 0; return the JSON output ({} when empty)."""
        done = self.run(*args)
        assert done.returncode == 0, f"aws sqs {' '.join(args)} -> {done.returncode}\n{done.stderr}"
        return json.loads(done.stdout) if done.stdout.strip() else {}


@pytest.fixture
def aws(endpoint, tmp_path):
    exe = find_executable("aws")
    if exe is None:
        missing("needs the AWS CLI (`pip install awscli`): no `aws` next to the interpreter or on PATH")
    config, credentials = tmp_path / "config", tmp_path / "credentials"
    config.write_text("")
    credentials.write_text("")
    env = clean_env(
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=str(config),
        AWS_SHARED_CREDENTIALS_FILE=str(credentials),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_MAX_ATTEMPTS="1",
        AWS_PAGER="",
    )
    cli = Cli(exe, endpoint, env)
    yield cli
    for url in cli.created:
        cli.run("delete-queue", "--queue-url", url)


def create(aws: Cli, name: str, *extra: str) -> str:
    url = aws("create-queue", "--queue-name", name, *extra)["QueueUrl"]
    aws.created.append(url)
    return url


def counts(aws: Cli, url: str) -> dict:
    attrs = aws("get-queue-attributes", "--queue-url", url, "--attribute-names", "All")["Attributes"]
    return {k: attrs[k] for k in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")}


def test_send_receive_delete(aws, endpoint):
    name = unique_name("cli")
    url = create(aws, name, "--attributes", "VisibilityTimeout=45,MaximumMessageSize=2048")
    assert url == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"
    attrs = aws("get-queue-attributes", "--queue-url", url, "--attribute-names", "All")["Attributes"]
    assert attrs["VisibilityTimeout"] == "45"
    assert attrs["MaximumMessageSize"] == "2048"
    assert attrs["QueueArn"] == f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{name}"

    body = 'héllo wörld ✓ 😀 {"json": true}'
    # The v1 CLI sends a blob given as a JSON string as its raw UTF-8 bytes.
    message_attributes = {
        "Greeting": {"DataType": "String", "StringValue": "grüße ✓"},
        "Count": {"DataType": "Number", "StringValue": "42"},
        "Blob": {"DataType": "Binary", "BinaryValue": "raw-bytes"},
        "Kind": {"DataType": "String.custom", "StringValue": "x"},
    }
    expected_md5 = md5_of_attributes(
        {**message_attributes, "Blob": {"DataType": "Binary", "BinaryValue": b"raw-bytes"}}
    )
    sent = aws(
        "send-message",
        "--queue-url",
        url,
        "--message-body",
        body,
        "--message-attributes",
        json.dumps(message_attributes),
    )
    assert sent["MD5OfMessageBody"] == md5_hex(body)
    assert sent["MD5OfMessageAttributes"] == expected_md5

    got = aws(
        "receive-message",
        "--queue-url",
        url,
        "--max-number-of-messages",
        "10",
        "--message-attribute-names",
        "All",
        "--attribute-names",
        "All",
    )["Messages"]
    assert len(got) == 1
    msg = got[0]
    assert msg["MessageId"] == sent["MessageId"]
    assert msg["Body"] == body
    assert msg["MD5OfBody"] == md5_hex(body)
    assert msg["MD5OfMessageAttributes"] == expected_md5
    received = msg["MessageAttributes"]
    assert base64.b64decode(received.pop("Blob")["BinaryValue"]) == b"raw-bytes"
    assert received == {k: v for k, v in message_attributes.items() if k != "Blob"}
    assert msg["Attributes"]["ApproximateReceiveCount"] == "1"
    assert counts(aws, url) == {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "1"}

    assert aws("delete-message", "--queue-url", url, "--receipt-handle", msg["ReceiptHandle"]) == {}
    assert counts(aws, url) == {"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "0"}
    assert aws("receive-message", "--queue-url", url).get("Messages", []) == []


def test_list_purge_delete(aws):
    prefix = unique_name("cli-list")
    urls = sorted(create(aws, f"{prefix}-{i}") for i in range(3))
    create(aws, unique_name("cli-other"))
    assert sorted(aws("list-queues", "--queue-name-prefix", prefix)["QueueUrls"]) == urls

    for i in range(5):
        aws("send-message", "--queue-url", urls[0], "--message-body", f"m{i}")
    assert counts(aws, urls[0])["ApproximateNumberOfMessages"] == "5"
    assert aws("purge-queue", "--queue-url", urls[0]) == {}
    assert counts(aws, urls[0])["ApproximateNumberOfMessages"] == "0"
    assert aws("receive-message", "--queue-url", urls[0]).get("Messages", []) == []

    assert aws("delete-queue", "--queue-url", urls[1]) == {}
    left = aws("list-queues", "--queue-name-prefix", prefix).get("QueueUrls", [])
    assert sorted(left) == [urls[0], urls[2]]


def test_send_message_batch(aws):
    url = create(aws, unique_name("cli-batch"))
    entries = [{"Id": f"e{i}", "MessageBody": f"body {i} ✓"} for i in range(3)]
    out = aws("send-message-batch", "--queue-url", url, "--entries", json.dumps(entries))
    assert out.get("Failed", []) == []
    assert {e["Id"]: e["MD5OfMessageBody"] for e in out["Successful"]} == {
        e["Id"]: md5_hex(e["MessageBody"]) for e in entries
    }


def test_get_queue_url_of_missing_queue(aws):
    done = aws.run("get-queue-url", "--queue-name", unique_name("cli-missing"))
    # The v1 CLI exits 255 on a service error, v2 exits 254.
    assert done.returncode in (254, 255), (done.returncode, done.stderr)
    assert NON_EXISTENT_QUEUE in done.stderr or "QueueDoesNotExist" in done.stderr, done.stderr
    assert "GetQueueUrl" in done.stderr
    assert done.stdout.strip() == ""
