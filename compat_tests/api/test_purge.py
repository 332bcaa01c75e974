"""PurgeQueue: removes visible, delayed and in-flight messages; one purge per 60 s."""

from compat_tests.helpers import DEFAULT_ACCOUNT, QUEUE_DOES_NOT_EXIST, counts, expect_error, receive, unique_name


def _fill(sqs, url):
    sqs.send_message(QueueUrl=url, MessageBody="visible")
    sqs.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=60)
    sqs.send_message(QueueUrl=url, MessageBody="in flight")
    sqs.send_message(QueueUrl=url, MessageBody="visible 2")
    got = receive(sqs, url, MaxNumberOfMessages=1)
    assert len(got) == 1
    assert counts(sqs, url) == (2, 1, 1)
    return got[0]


def test_purge_removes_visible_delayed_and_in_flight(sqs, queue):
    _fill(sqs, queue)
    sqs.purge_queue(QueueUrl=queue)
    assert counts(sqs, queue) == (0, 0, 0)
    assert receive(sqs, queue) == []


def test_purged_messages_never_come_back(sqs, queue, advance):
    in_flight = _fill(sqs, queue)
    sqs.purge_queue(QueueUrl=queue)
    advance(61)  # past the delay and the visibility timeout
    assert receive(sqs, queue, MaxNumberOfMessages=10) == []
    assert counts(sqs, queue) == (0, 0, 0)
    # The old receipt handle names a purged message: deleting with it is harmless.
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=in_flight["ReceiptHandle"])


def test_queue_usable_after_purge(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="old")
    sqs.purge_queue(QueueUrl=queue)
    # Messages sent during the purge may be deleted on AWS ("up to 60 s"); the
    # emulator purges at once, so a later send survives.
    sqs.send_message(QueueUrl=queue, MessageBody="new")
    assert [m["Body"] for m in receive(sqs, queue)] == ["new"]


def test_second_purge_within_60s(sqs, queue, advance):
    name = queue.rsplit("/", 1)[1]
    sqs.purge_queue(QueueUrl=queue)
    expect_error(
        sqs,
        sqs.purge_queue,
        QueueUrl=queue,
        code="AWS.SimpleQueueService.PurgeQueueInProgress",
        status=403,
        shape="PurgeQueueInProgress",
        message_contains=f"Only one PurgeQueue operation on {name} is allowed every 60 seconds.",
    )
    advance(61)
    sqs.purge_queue(QueueUrl=queue)


def test_purge_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, **QUEUE_DOES_NOT_EXIST)
