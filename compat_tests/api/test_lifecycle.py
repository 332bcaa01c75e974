"""AWS's 60-second lifecycle rules: one PurgeQueue per 60 s, no re-creating a deleted name for 60 s.

Wordings (real AWS): docs/research/aws_facts.md (PurgeQueueInProgress, LocalStack
snapshot) and docs/research/aws_dlq_facts.md (QueueDeletedRecently, terraform
acceptance logs).
"""

from compat_tests.helpers import (
    QUEUE_DOES_NOT_EXIST,
    counts,
    expect_error,
    queue_attrs,
    receive,
    unique_name,
)

PURGE_IN_PROGRESS = {
    "code": "AWS.SimpleQueueService.PurgeQueueInProgress",
    "status": 403,
    "shape": "PurgeQueueInProgress",
}
DELETED_RECENTLY = {
    "code": "AWS.SimpleQueueService.QueueDeletedRecently",
    "status": 400,
    "shape": "QueueDeletedRecently",
    "message": "You must wait 60 seconds after deleting a queue before you can create another with the same name.",
}


def purge_refused(name):
    return f"Only one PurgeQueue operation on {name} is allowed every 60 seconds."


# ---------------------------------------------------------------- PurgeQueue


def test_second_purge_refused_until_60s_have_passed(sqs, queue_factory, advance):
    name = unique_name("purge")
    url = queue_factory(name)
    sqs.purge_queue(QueueUrl=url)
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)
    advance(30)
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)
    advance(29)
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)
    advance(1)
    sqs.purge_queue(QueueUrl=url)
    # ...and that purge starts a new 60 s window.
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)


def test_refused_purge_does_not_extend_the_window(sqs, queue_factory, advance):
    name = unique_name("purge")
    url = queue_factory(name)
    sqs.purge_queue(QueueUrl=url)
    advance(50)
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)
    advance(10)  # 60 s after the successful purge, 10 s after the refused one
    sqs.purge_queue(QueueUrl=url)


def test_purge_after_window_removes_new_messages(sqs, queue, advance):
    sqs.send_message(QueueUrl=queue, MessageBody="first")
    sqs.purge_queue(QueueUrl=queue)
    assert counts(sqs, queue) == (0, 0, 0)
    advance(60)
    sqs.send_message(QueueUrl=queue, MessageBody="visible")
    sqs.send_message(QueueUrl=queue, MessageBody="delayed", DelaySeconds=30)
    sqs.send_message(QueueUrl=queue, MessageBody="in flight")
    assert len(receive(sqs, queue, VisibilityTimeout=600)) == 1
    assert counts(sqs, queue) == (1, 1, 1)
    sqs.purge_queue(QueueUrl=queue)
    assert counts(sqs, queue) == (0, 0, 0)
    advance(601)
    assert receive(sqs, queue, MaxNumberOfMessages=10) == []


def test_purge_window_is_per_queue(sqs, queue_factory, make_client):
    name = unique_name("purge")
    a, b = queue_factory(name), queue_factory()
    sqs.purge_queue(QueueUrl=a)
    sqs.purge_queue(QueueUrl=b)
    expect_error(sqs, sqs.purge_queue, QueueUrl=a, message=purge_refused(name), **PURGE_IN_PROGRESS)
    # The same name in another region or account is another queue.
    for other in (make_client(region="eu-west-1"), make_client(access_key="111111111111")):
        url = queue_factory(name, client=other)
        other.purge_queue(QueueUrl=url)
        expect_error(other, other.purge_queue, QueueUrl=url, message=purge_refused(name), **PURGE_IN_PROGRESS)


# ---------------------------------------------------------------- DeleteQueue, then CreateQueue


def test_recreate_refused_until_60s_have_passed(sqs, queue_factory, advance):
    name = unique_name("del")
    url = queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    expect_error(sqs, sqs.create_queue, QueueName=name, **DELETED_RECENTLY)
    advance(30)
    expect_error(sqs, sqs.create_queue, QueueName=name, **DELETED_RECENTLY)
    # The name stays gone meanwhile: the refused creates made nothing.
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
    advance(29)
    expect_error(sqs, sqs.create_queue, QueueName=name, Attributes={"DelaySeconds": "5"}, **DELETED_RECENTLY)
    advance(1)
    assert queue_factory(name) == url
    assert sqs.get_queue_url(QueueName=name)["QueueUrl"] == url


def test_recreated_queue_is_new(sqs, queue_factory, advance):
    name = unique_name("del")
    url = queue_factory(name, attributes={"DelaySeconds": 5, "VisibilityTimeout": 100})
    sqs.send_message(QueueUrl=url, MessageBody="old")
    sqs.send_message(QueueUrl=url, MessageBody="old in flight", DelaySeconds=0)
    receive(sqs, url)
    sqs.delete_queue(QueueUrl=url)
    advance(60)
    # Different attributes are fine: the old queue is gone, this is no QueueAlreadyExists.
    assert queue_factory(name, attributes={"VisibilityTimeout": 40}) == url
    attrs = queue_attrs(sqs, url)
    assert attrs["DelaySeconds"] == "0"
    assert attrs["VisibilityTimeout"] == "40"
    assert counts(sqs, url) == (0, 0, 0)
    advance(200)
    assert receive(sqs, url, MaxNumberOfMessages=10) == []


def test_delete_cooldown_restarts_on_each_delete(sqs, queue_factory, advance):
    name = unique_name("del")
    url = queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    advance(60)
    queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    expect_error(sqs, sqs.create_queue, QueueName=name, **DELETED_RECENTLY)
    advance(60)
    queue_factory(name)


def test_delete_cooldown_is_per_name_region_and_account(sqs, queue_factory, make_client):
    name = unique_name("del")
    sqs.delete_queue(QueueUrl=queue_factory(name))
    expect_error(sqs, sqs.create_queue, QueueName=name, **DELETED_RECENTLY)
    # Other names, and the same name in another region or account, are unaffected.
    queue_factory(name + "-2")
    for other in (make_client(region="eu-west-1"), make_client(access_key="111111111111")):
        url = queue_factory(name, client=other)
        assert url.endswith(f"/{name}")
    expect_error(sqs, sqs.create_queue, QueueName=name, **DELETED_RECENTLY)


def test_deleted_queue_url_is_gone_during_cooldown(sqs, queue_factory):
    name = unique_name("del")
    url = queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    expect_error(sqs, sqs.send_message, QueueUrl=url, MessageBody="m", **QUEUE_DOES_NOT_EXIST)
    expect_error(sqs, sqs.purge_queue, QueueUrl=url, **QUEUE_DOES_NOT_EXIST)
    assert url not in sqs.list_queues(QueueNamePrefix=name).get("QueueUrls", [])
