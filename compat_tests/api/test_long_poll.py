"""Long polling: a send wakes a waiting receive at once; an empty poll ends on the (server) clock.

Real-time sleeps here are short pauses that let a receive reach the server
before the test acts; nothing waits for a visibility timeout or a delay.
"""

import threading
import time

import boto3
import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import receive, unique_name
from compat_tests.servers import start_emulator

SETTLE = 0.75  # real seconds for a receive thread to reach the server
# Real seconds a woken poll may take to come back: only a hang takes this long, and it is
# still well inside the 20 s waits, so a poll that nothing woke cannot pass for a woken one.
WAKE = 15


class Poller:
    """Runs one ReceiveMessage in a thread, with its own client."""

    def __init__(self, client, url, **kwargs):
        self.result = None
        self.error = None
        self._thread = threading.Thread(target=self._run, args=(client, url, kwargs), daemon=True)

    def _run(self, client, url, kwargs):
        try:
            self.result = receive(client, url, **kwargs)
        except Exception as e:  # surfaced by the test
            self.error = e

    def start(self):
        self._thread.start()
        time.sleep(SETTLE)
        return self

    def alive(self):
        return self._thread.is_alive()

    def join(self):
        self._thread.join(WAKE)
        assert not self._thread.is_alive(), f"receive still blocked after {WAKE}s"
        if self.error:
            raise self.error
        return self.result


def test_send_wakes_long_poll(make_client, sqs, queue):
    poller = Poller(make_client(), queue, WaitTimeSeconds=20).start()
    assert poller.alive(), f"returned before any message was sent: {poller.result}"
    sqs.send_message(QueueUrl=queue, MessageBody="wake up")
    assert [m["Body"] for m in poller.join()] == ["wake up"]


def test_queue_default_wait_time_applies(make_client, sqs, queue_factory):
    url = queue_factory(attributes={"ReceiveMessageWaitTimeSeconds": 20})
    poller = Poller(make_client(), url).start()
    assert poller.alive(), "a queue with ReceiveMessageWaitTimeSeconds=20 must long-poll by default"
    sqs.send_message(QueueUrl=url, MessageBody="m")
    assert [m["Body"] for m in poller.join()] == ["m"]


def test_explicit_zero_wait_overrides_queue_default(sqs, queue_factory):
    url = queue_factory(attributes={"ReceiveMessageWaitTimeSeconds": 20})
    start = time.monotonic()
    assert receive(sqs, url, WaitTimeSeconds=0) == []
    assert time.monotonic() - start < WAKE


def test_empty_long_poll_ends_when_clock_reaches_wait_time(make_client, queue, advance):
    poller = Poller(make_client(), queue, WaitTimeSeconds=20).start()
    advance(10)
    time.sleep(SETTLE)
    assert poller.alive(), "long poll ended before its wait time had passed on the server clock"
    advance(10)
    assert poller.join() == []


def test_delay_expiry_wakes_long_poll(make_client, sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="delayed", DelaySeconds=5)
    poller = Poller(make_client(), queue, WaitTimeSeconds=20).start()
    assert poller.alive()
    advance(6)
    assert [m["Body"] for m in poller.join()] == ["delayed"]


def test_visibility_expiry_wakes_long_poll(make_client, sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="again")
    first = receive(sqs, queue, VisibilityTimeout=10)
    assert len(first) == 1
    poller = Poller(make_client(), queue, WaitTimeSeconds=20, AttributeNames=["ApproximateReceiveCount"]).start()
    assert poller.alive()
    advance(11)
    msgs = poller.join()
    assert [m["Body"] for m in msgs] == ["again"]
    assert msgs[0]["Attributes"]["ApproximateReceiveCount"] == "2"


def test_change_visibility_zero_wakes_long_poll(make_client, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="released")
    handle = receive(sqs, queue)[0]["ReceiptHandle"]
    poller = Poller(make_client(), queue, WaitTimeSeconds=20).start()
    assert poller.alive()
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=handle, VisibilityTimeout=0)
    assert [m["Body"] for m in poller.join()] == ["released"]


def test_one_send_wakes_exactly_one_of_two_pollers(make_client, sqs, queue):
    a = Poller(make_client(), queue, WaitTimeSeconds=20)
    b = Poller(make_client(), queue, WaitTimeSeconds=20)
    a._thread.start()
    b.start()
    sqs.send_message(QueueUrl=queue, MessageBody="only one")
    deadline = time.monotonic() + WAKE
    while time.monotonic() < deadline and a.alive() and b.alive():
        time.sleep(0.02)
    done = [p for p in (a, b) if not p.alive()]
    assert len(done) == 1, "one message must wake exactly one poller"
    assert [m["Body"] for m in done[0].result] == ["only one"]
    # Release the other poller with a second message.
    sqs.send_message(QueueUrl=queue, MessageBody="second")
    other = b if done[0] is a else a
    assert [m["Body"] for m in other.join()] == ["second"]


# On the manual clock a poll also ends after its WaitTimeSeconds of real time, as
# on AWS, so a consumer's empty poll never runs into the SDK's read timeout (issue 19).


def default_client(endpoint):
    """boto3 as an application makes it: botocore's default timeouts and retries."""
    return boto3.session.Session().client(
        "sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


def test_an_empty_long_poll_ends_after_its_wait_time_in_real_time(endpoint, queue):
    sqs = default_client(endpoint)
    started = time.monotonic()
    assert receive(sqs, queue, WaitTimeSeconds=1) == []
    assert 0.9 <= time.monotonic() - started < 3


@pytest.fixture(scope="module")
def capped():
    """An emulator whose empty long polls end after 0.1 real seconds (--long-poll-cap)."""
    if TARGET != "emulator":
        pytest.skip("--long-poll-cap is the emulator's own option")
    server = start_emulator("manual", "capped", "--long-poll-cap", "0.1")
    try:
        yield server.url
    finally:
        server.stop()


def test_a_long_poll_cap_ends_an_empty_20_second_poll_at_once(capped):
    sqs = default_client(capped)
    url = sqs.create_queue(QueueName=unique_name("cap"))["QueueUrl"]
    started = time.monotonic()
    assert receive(sqs, url, WaitTimeSeconds=20) == []
    assert time.monotonic() - started < 1
    sqs.send_message(QueueUrl=url, MessageBody="there")
    assert [m["Body"] for m in receive(sqs, url, WaitTimeSeconds=20)] == ["there"]
