"""The inspector: `sqs-emulator queues|peek|advance|reset` as a subprocess
against a running emulator; tables, and one line with exit code 1 for errors."""

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import sqs_client, unique_name
from compat_tests.servers import REPO_ROOT, free_port, start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own command line")
PYTHON = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)


def inspector(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SQS_EMULATOR_", "AWS_ENDPOINT_URL"))}
    environ.update(env or {})
    return subprocess.run(
        [PYTHON, "-m", "emulator", *args],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


def rows(output: str, first: str) -> list[list[str]]:
    """The table lines whose first column is `first`, split on runs of two or more spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in output.splitlines() if line.split()[:1] == [first]]


def test_queues_lists_counts_and_totals(endpoint, sqs, queue_factory):
    name = unique_name("insp")
    url = queue_factory(name, attributes={"VisibilityTimeout": "30"})
    for body in ("a", "b", "c"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received[0]["ReceiptHandle"])
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    fifo = queue_factory(name + ".fifo", attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})
    sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g1")

    result = inspector("queues", "--endpoint", endpoint)
    assert result.returncode == 0, result.stderr
    heading = result.stdout.splitlines()[0].split()
    assert heading == [
        "NAME",
        "TYPE",
        "ACCOUNT",
        "REGION",
        "VISIBLE",
        "IN",
        "FLIGHT",
        "DELAYED",
        "SENT",
        "RECEIVED",
        "DELETED",
        "DEAD-LETTERED",
    ]
    assert rows(result.stdout, name) == [
        [name, "standard", "000000000000", "us-east-1", "1", "1", "1", "4", "2", "1", "0"]
    ]
    assert rows(result.stdout, name + ".fifo")[0][:8] == [
        name + ".fifo",
        "fifo",
        "000000000000",
        "us-east-1",
        "1",
        "0",
        "0",
        "1",
    ]
    # Fixed-width columns: every row's TYPE starts where its heading does.
    lines = result.stdout.splitlines()
    column = lines[0].index("TYPE")
    assert all(line[column - 2 : column] == "  " and line[column] in "sf" for line in lines[1:])


def test_endpoint_defaults_to_the_sdk_variable(endpoint, queue_factory):
    name = unique_name("insp")
    queue_factory(name)
    result = inspector("queues", env={"AWS_ENDPOINT_URL_SQS": endpoint})
    assert result.returncode == 0, result.stderr
    assert rows(result.stdout, name)


def test_peek_shows_messages_without_receiving_them(endpoint, sqs, queue_factory):
    name = unique_name("insp")
    url = queue_factory(name, attributes={"VisibilityTimeout": "30"})
    long_body = "x" * 500
    sqs.send_message(QueueUrl=url, MessageBody="first\nline")
    sqs.send_message(QueueUrl=url, MessageBody=long_body)
    sqs.send_message(QueueUrl=url, MessageBody="third")
    taken = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]

    result = inspector("peek", name, "--endpoint", endpoint)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CURSOR", "ID", "STATE", "RECEIVES", "GROUP", "BODY"]
    assert len(lines) == 4
    by_id = {line.split()[1]: line.split(None, 5) for line in lines[1:]}
    assert by_id[taken["MessageId"]][2:] == ["inflight", "1", "-", taken["Body"].replace("\n", "\\n")]
    long_row = next(row for row in by_id.values() if row[5].startswith("xxx"))
    assert long_row[2:5] == ["visible", "0", "-"] and long_row[5].endswith("...") and len(long_row[5]) < 100

    visible = inspector("peek", url, "--state", "visible", "--limit", "1", "--endpoint", endpoint)
    assert visible.returncode == 0, visible.stderr
    assert len(visible.stdout.splitlines()) == 2 and " visible " in visible.stdout

    # Peeking received nothing: the two visible messages are still there, never received.
    left = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"])
    assert sorted(m["Attributes"]["ApproximateReceiveCount"] for m in left["Messages"]) == ["1", "1"]


def test_peek_shows_fifo_groups(endpoint, sqs, queue_factory):
    name = unique_name("insp") + ".fifo"
    url = queue_factory(name, attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})
    sqs.send_message(QueueUrl=url, MessageBody="in a group", MessageGroupId="customer-7")
    result = inspector("peek", name, "--endpoint", endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split(None, 5)[2:] == ["visible", "0", "customer-7", "in a group"]


def test_peek_of_an_empty_or_missing_queue(endpoint, queue_factory):
    name = unique_name("insp")
    queue_factory(name)
    empty = inspector("peek", name, "--endpoint", endpoint)
    assert (empty.returncode, empty.stdout.strip()) == (0, "no messages")
    missing = inspector("peek", name + "-missing", "--endpoint", endpoint)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.strip() == f"sqs-emulator peek: no queue {name}-missing (HTTP 404)"


def test_advance_moves_the_manual_clock(endpoint, sqs, queue_factory):
    url = queue_factory(attributes={"VisibilityTimeout": "30"})
    sqs.send_message(QueueUrl=url, MessageBody="m")
    sqs.receive_message(QueueUrl=url)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    result = inspector("advance", "31", "--endpoint", endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("clock advanced 31 s; now ")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "m"


@pytest.mark.parametrize("command", [["queues"], ["peek", "q"], ["advance", "1"], ["reset"]])
def test_an_unreachable_server_is_one_line_and_exit_code_1(command):
    endpoint = f"http://127.0.0.1:{free_port()}"
    result = inspector(*command, "--endpoint", endpoint)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"sqs-emulator {command[0]}: cannot reach the emulator at {endpoint}"
    )
    assert "Traceback" not in result.stderr


def test_a_server_that_is_not_the_emulator_is_one_line_too(tmp_path):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=tmp_path)
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        result = inspector("queues", "--endpoint", f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "sqs-emulator queues: the answer is not the admin API's JSON; is this an SQS emulator's endpoint? (HTTP 404)"
    )


def test_bad_arguments_are_refused_with_usage():
    result = inspector("advance", "soon")
    assert result.returncode == 2 and "not a number of seconds" in result.stderr


@pytest.fixture
def own_server():
    """A server of the test's own: reset deletes every queue, the shared one's too."""
    server = start_emulator("manual", "inspector")
    yield server
    server.stop()


def test_reset_deletes_every_queue(own_server):
    sqs = sqs_client(own_server.url)
    sqs.create_queue(QueueName="a")
    sqs_client(own_server.url, region="eu-west-1", access_key="111122223333").create_queue(QueueName="b")
    before = inspector("queues", "--endpoint", own_server.url)
    assert [row[:4] for row in rows(before.stdout, "a") + rows(before.stdout, "b")] == [
        ["a", "standard", "000000000000", "us-east-1"],
        ["b", "standard", "111122223333", "eu-west-1"],
    ]

    result = inspector("reset", "--endpoint", own_server.url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("reset: ")
    after = inspector("queues", "--endpoint", own_server.url)
    assert (after.returncode, after.stdout.strip()) == (0, "no queues")


def test_advance_on_a_real_clock_is_refused():
    server = start_emulator("real", "inspector-real")
    try:
        result = inspector("advance", "5", "--endpoint", server.url)
    finally:
        server.stop()
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "sqs-emulator advance: the server runs on the real clock; start it with --clock manual (HTTP 409)"
    )


def test_the_endpoint_is_the_flag_else_the_sdk_variable_else_the_servers_port(endpoint, queue_factory):
    name = unique_name("insp")
    queue_factory(name)
    port = endpoint.rsplit(":", 1)[1]
    unreachable = f"http://127.0.0.1:{free_port()}"
    # SQS_EMULATOR_PORT, the variable the server itself reads, when nothing else names the endpoint.
    assert rows(inspector("queues", env={"SQS_EMULATOR_PORT": port}).stdout, name)
    # AWS_ENDPOINT_URL_SQS over SQS_EMULATOR_PORT; --endpoint over both.
    both = {"AWS_ENDPOINT_URL_SQS": endpoint, "SQS_EMULATOR_PORT": unreachable.rsplit(":", 1)[1]}
    assert rows(inspector("queues", env=both).stdout, name)
    flag = inspector("queues", "--endpoint", unreachable, env={"AWS_ENDPOINT_URL_SQS": endpoint})
    assert flag.returncode == 1 and f"cannot reach the emulator at {unreachable}" in flag.stderr
    bad = inspector("queues", env={"SQS_EMULATOR_PORT": "70000"})
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[-1].endswith("SQS_EMULATOR_PORT must be a port from 1 to 65535, not '70000'")


def test_json_for_every_command(own_server):
    sqs = sqs_client(own_server.url)
    url = sqs.create_queue(QueueName="j")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="b")
    at = own_server.url
    queues = json.loads(inspector("queues", "--json", "--endpoint", at).stdout)
    assert [(q["name"], q["visible"]) for q in queues] == [("j", 1)]
    messages = json.loads(inspector("peek", "j", "--json", "--endpoint", at).stdout)
    assert [(m["body"], m["state"]) for m in messages] == [("b", "visible")]
    advanced = json.loads(inspector("advance", "5", "--json", "--endpoint", at).stdout)
    assert advanced["advanced"] == 5 and isinstance(advanced["now"], float)
    assert json.loads(inspector("reset", "--json", "--endpoint", at).stdout) == {"reset": True, "endpoint": at}
    assert json.loads(inspector("queues", "--json", "--endpoint", at).stdout) == []


def test_a_pipe_closed_early_ends_quietly(own_server):
    sqs = sqs_client(own_server.url)
    url = sqs.create_queue(QueueName="many")["QueueUrl"]
    for _ in range(30):
        sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": "m" * 200} for i in range(10)])
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SQS_EMULATOR_", "AWS_ENDPOINT_URL"))}
    # As `sqs-emulator peek many --json | head -1`: the reader closes after one line.
    proc = subprocess.Popen(
        [PYTHON, "-m", "emulator", "peek", "many", "--limit", "300", "--json", "--endpoint", own_server.url],
        cwd=REPO_ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout.readline() == b"[\n"
    proc.stdout.close()
    assert proc.wait(timeout=30) == 1
    assert proc.stderr.read() == b""  # no BrokenPipeError traceback
