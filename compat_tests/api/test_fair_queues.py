"""Fair queues, AWS's whole rule (issue 18 item 8), through a real client on the manual clock:
a tenant noisy by its share of processing time, quiet again after 5 minutes without
sends, and the fair-queue metrics AWS publishes, in the admin queue view and the
Prometheus metrics.

AWS: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html
(noisy by concurrency share or by processing-time share, over 10%; no longer noisy once
its backlog is drained or after 5 minutes without sends; quiet tenants first). The
metric names are AWS's CloudWatch ones, as issue 18 lists them.
"""

import json
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from compat_tests.conftest import TARGET
from compat_tests.helpers import receive, unique_name

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="moves the emulator's manual clock, reads its admin API")

GAUGES = {
    "ApproximateNumberOfNoisyGroups": "sqs_queue_noisy_groups",
    "ApproximateNumberOfMessagesVisibleInQuietGroups": "sqs_queue_quiet_group_messages_visible",
    "ApproximateNumberOfMessagesNotVisibleInQuietGroups": "sqs_queue_quiet_group_messages_inflight",
    "ApproximateNumberOfMessagesDelayedInQuietGroups": "sqs_queue_quiet_group_messages_delayed",
    "ApproximateAgeOfOldestMessageInQuietGroups": "sqs_queue_quiet_group_oldest_message_age_seconds",
}


def admin_view(endpoint, url) -> dict:
    with urllib.request.urlopen(endpoint + "/_emulator/queues", timeout=10) as response:
        queues = json.loads(response.read())["queues"]
    return next(q for q in queues if q["url"] == url)["fair"]


def prometheus(endpoint, url) -> dict:
    with urllib.request.urlopen(endpoint + "/_emulator/metrics", timeout=10) as response:
        families = {f.name: f for f in text_string_to_metric_families(response.read().decode())}
    name = url.rsplit("/", 1)[1]
    return {
        metric: next(s.value for s in families[gauge].samples if s.labels["queue"] == name)
        for metric, gauge in GAUGES.items()
    }


def send(sqs, url, tenant, count, delay=0):
    for i in range(count):
        sqs.send_message(QueueUrl=url, MessageBody=f"{tenant}-{i}", MessageGroupId=tenant, DelaySeconds=delay)


def test_a_slow_tenant_is_noisy_by_processing_time_then_quiet_after_5_minutes(sqs, queue, advance, endpoint):
    send(sqs, queue, "slow", 3)
    send(sqs, queue, "fast", 3)
    send(sqs, queue, "fast", 1, delay=600)
    (slow,) = receive(sqs, queue, VisibilityTimeout=120)
    assert slow["Body"] == "slow-0"
    advance(50)  # a consumer spends 50 s on slow's message
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=slow["ReceiptHandle"])

    # slow holds all of the recent processing time and has a backlog: noisy. Its messages are
    # older, yet the quiet tenant's come first.
    expected = {
        "ApproximateNumberOfNoisyGroups": 1,
        "ApproximateNumberOfMessagesVisibleInQuietGroups": 3,
        "ApproximateNumberOfMessagesNotVisibleInQuietGroups": 0,
        "ApproximateNumberOfMessagesDelayedInQuietGroups": 1,
        "ApproximateAgeOfOldestMessageInQuietGroups": 50,
    }
    assert admin_view(endpoint, queue) == expected
    assert prometheus(endpoint, queue) == expected
    fast = receive(sqs, queue, MaxNumberOfMessages=2)
    assert [m["Body"] for m in fast] == ["fast-0", "fast-1"]
    for message in fast:
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])

    # 5 minutes without a send from slow (its processing is still recent): quiet, oldest first again.
    advance(249)
    assert admin_view(endpoint, queue)["ApproximateNumberOfNoisyGroups"] == 1
    advance(1)
    view = admin_view(endpoint, queue)
    assert view["ApproximateNumberOfNoisyGroups"] == 0
    assert view["ApproximateNumberOfMessagesVisibleInQuietGroups"] == 3  # slow-1, slow-2, fast-2
    assert [m["Body"] for m in receive(sqs, queue, MaxNumberOfMessages=2)] == ["slow-1", "slow-2"]


def test_a_fifo_queue_has_no_fair_metrics(sqs, queue_factory, endpoint):
    url = queue_factory(name=unique_name("fair") + ".fifo", attributes={"FifoQueue": "true"})
    assert admin_view(endpoint, url) is None
