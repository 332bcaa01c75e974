"""Standard queues as loose as AWS's (issue 39 item 2): two consumers with a classic mistake
each pass against the default emulator and fail against the same emulator once the queue
is loose (PUT /_emulator/faults {"loose": true}); a consumer written for AWS passes both.

What AWS documents, and what `loose` does (emulator/engine/loose.py):
- "Standard queues provide best-effort ordering which ensures that messages are generally
  delivered in the same order as they're sent", and occasionally out of order
  (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/DistributedQueues.html,
  .../standard-queues.html): a loose receive answers in a shuffled order;
- "When you consume messages from a queue using short polling, Amazon SQS samples a subset
  of its servers ... Thus, a particular ReceiveMessage request might not return all of your
  messages", while long polling "queries all of the servers"
  (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-short-and-long-polling.html):
  a loose short poll sees a sample, possibly empty; a long poll sees them all.
The seeds are fixed, so each run makes the same choices.
"""

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import admin_call, counts, sqs_client, unique_name
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="the emulator's own rule (AWS is always loose)")

SENT = [f"step-{n}" for n in range(5)]


def make_loose(endpoint, url, seed):
    status, answer = admin_call(endpoint, "PUT", "/_emulator/faults", {"queue": url, "loose": True, "seed": seed})
    assert status == 200 and answer["faults"]["loose"] is True


def send_all(sqs, url):
    for body in SENT:
        sqs.send_message(QueueUrl=url, MessageBody=body)


# -- the consumers under test ------------------------------------------------------


def drain_until_an_empty_poll(sqs, url) -> list[str]:
    """Mistake: one empty short poll taken to mean the queue is empty."""
    done = []
    while True:
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
        if not messages:
            return done
        for message in messages:
            done.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def last_applied_step(sqs, url, expected: int) -> str:
    """Mistake: each message taken as the next step in send order (the last one wins).
    It long-polls, so only the order can fool it."""
    state, seen = None, 0
    while seen < expected:
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        for message in messages:
            state, seen = message["Body"], seen + 1
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return state


def drain_with_long_polls(sqs, url, expected: int) -> list[str]:
    """Written for AWS: long polls (which see every server), and no reliance on order."""
    done: list[str] = []
    while len(done) < expected:
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        for message in messages:
            done.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return sorted(done)


# -- the pairs -------------------------------------------------------------------------


def test_one_empty_short_poll_as_the_end_passes_by_default(sqs, queue):
    send_all(sqs, queue)
    assert sorted(drain_until_an_empty_poll(sqs, queue)) == SENT


def test_one_empty_short_poll_as_the_end_fails_on_a_loose_queue(endpoint, sqs, queue):
    make_loose(endpoint, queue, seed=1)
    send_all(sqs, queue)
    done = drain_until_an_empty_poll(sqs, queue)
    assert len(done) < len(SENT)  # it stopped while messages waited: the bug is caught here
    assert counts(sqs, queue)[0] == len(SENT) - len(done)  # nothing lost: the rest is still there
    assert drain_with_long_polls(sqs, queue, len(SENT) - len(done)) == sorted(set(SENT) - set(done))


def test_relying_on_send_order_passes_by_default(sqs, queue):
    send_all(sqs, queue)
    assert last_applied_step(sqs, queue, len(SENT)) == SENT[-1]


def test_relying_on_send_order_fails_on_a_loose_queue(endpoint, sqs, queue):
    make_loose(endpoint, queue, seed=1)
    send_all(sqs, queue)
    assert last_applied_step(sqs, queue, len(SENT)) != SENT[-1]  # an older step applied last


def test_a_consumer_written_for_aws_passes_either_way(endpoint, sqs, queue_factory):
    plain, loose = queue_factory(), queue_factory()
    make_loose(endpoint, loose, seed=1)
    for url in (plain, loose):
        send_all(sqs, url)
        assert drain_with_long_polls(sqs, url, len(SENT)) == SENT


# -- where the rule is set -------------------------------------------------------------


def test_a_fifo_queue_refuses_the_rule(endpoint, queue_factory):
    url = queue_factory(name=unique_name("loose") + ".fifo", attributes={"FifoQueue": "true"})
    status, answer = admin_call(endpoint, "PUT", "/_emulator/faults", {"queue": url, "loose": True})
    assert status == 400 and "FIFO queue keeps its order" in answer["error"]


def test_the_command_lines_loose_makes_every_standard_queue_loose_and_no_fifo_queue():
    server = start_emulator("manual", "loose", "--loose", "--loose-seed", "1")
    try:
        sqs = sqs_client(server.url)
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        fifo = sqs.create_queue(QueueName="orders.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        faults = admin_call(server.url, "GET", "/_emulator/faults")[1]["faults"]
        assert [(entry["queue"], entry["faults"]["loose"], entry["faults"]["seed"]) for entry in faults] == [
            (url, True, 1)
        ]
        send_all(sqs, url)
        assert len(drain_until_an_empty_poll(sqs, url)) < len(SENT)  # the same seed, the same miss
        for n, body in enumerate(SENT):
            sqs.send_message(QueueUrl=fifo, MessageBody=body, MessageGroupId="g", MessageDeduplicationId=str(n))
        received = sqs.receive_message(QueueUrl=fifo, MaxNumberOfMessages=10)["Messages"]
        assert [message["Body"] for message in received] == SENT  # FIFO: every message, in order
    finally:
        server.stop()
