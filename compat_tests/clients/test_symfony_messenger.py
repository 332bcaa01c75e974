"""Symfony Messenger's Amazon SQS transport against the server, as Debian packages it
(php-symfony-amazon-sqs-messenger 5.4, on AsyncAws SQS): the DSN an application points at a
local endpoint, the queue it creates, sends with a delay, gets with its buffer, ack and
reject, and a FIFO transport's groups and deduplication ids.

php/messenger_scenario.php runs one scenario and prints a JSON summary; each test below
checks one part of it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from compat_tests.clients.conftest import clean_env, missing
from compat_tests.helpers import DEFAULT_ACCOUNT, unique_name

SCENARIO = Path(__file__).resolve().parent / "php" / "messenger_scenario.php"
BRIDGE = Path("/usr/share/php/Symfony/Component/Messenger/Bridge/AmazonSqs/autoload.php")
SCENARIO_TIMEOUT = 120


@pytest.fixture(scope="module")
def summary(endpoint):
    php = shutil.which("php")
    if not php or not BRIDGE.is_file():
        missing(
            f"needs php and Debian's php-symfony-amazon-sqs-messenger (php={php}, {BRIDGE} present: {BRIDGE.is_file()})"
        )
    name = unique_name("messenger")
    host_port = urlsplit(endpoint).netloc
    try:
        done = subprocess.run(
            [php, str(SCENARIO), host_port, name],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the Messenger scenario ran more than {SCENARIO_TIMEOUT}s:\n{exc.stdout}\n{exc.stderr}")
    try:
        out = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"no JSON from the Messenger scenario (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    assert done.returncode == 0 and out.get("ok"), f"scenario failed:\n{json.dumps(out, indent=2)}\n{done.stderr}"
    out["queueName"] = name
    return out


def test_the_transport_creates_its_queue_on_the_endpoint(summary, endpoint):
    assert summary["queueUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{summary['queueName']}"
    assert summary["fifoUrl"] == f"{endpoint}/{DEFAULT_ACCOUNT}/{summary['queueName']}.fifo"


def test_a_delay_stamp_delays_the_message(summary):
    # DelayStamp(60 s) becomes DelaySeconds=60: the message counts as delayed, not visible
    # (getMessageCount reads ApproximateNumberOfMessages), and no get() receives it.
    assert summary["countAfterSends"] == 2
    assert summary["emptyGet"] == []
    assert summary["after"] == {"visible": "0", "inflight": "0", "delayed": "1"}


def test_get_ack_and_reject_delete_what_they_received(summary):
    # One ReceiveMessage fills the transport's buffer; the second get() is served from it.
    assert summary["first"] == {"texts": ["héllo wörld ✓ 😀 <&>"], "receivedStamp": True}
    assert summary["second"] == ["second"]


def test_a_fifo_transport_keeps_group_order_and_drops_a_duplicate(summary):
    assert summary["fifo"] == ["f1", "f3", "f2"]
