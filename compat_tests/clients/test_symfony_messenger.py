"""Symfony Messenger's Amazon SQS transport against the server, as Debian packages it
(php-symfony-amazon-sqs-messenger 5.4, on AsyncAws SQS): the DSN an application points at a
local endpoint, the queue it creates, sends with a delay, gets with its buffer, ack and
reject, and a FIFO transport's groups and deduplication ids.

php/messenger_scenario.php runs one scenario and prints a JSON summary; each test below
checks one part of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from compat_tests.clients.conftest import missing, run_scenario
from compat_tests.helpers import DEFAULT_ACCOUNT, unique_name

SCENARIO = Path(__file__).resolve().parent / "php" / "messenger_scenario.php"
BRIDGE = Path("/usr/share/php/Symfony/Component/Messenger/Bridge/AmazonSqs/autoload.php")


@pytest.fixture(scope="module")
def summary(endpoint):
    php = shutil.which("php")
    if not php or not BRIDGE.is_file():
        missing(
            f"needs php and Debian's php-symfony-amazon-sqs-messenger (php={php}, {BRIDGE} present: {BRIDGE.is_file()})"
        )
    name = unique_name("messenger")
    host_port = urlsplit(endpoint).netloc
    out = run_scenario([php, str(SCENARIO), host_port, name], "the Messenger scenario")
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
