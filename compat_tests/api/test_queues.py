"""CreateQueue, GetQueueUrl, ListQueues, DeleteQueue."""

import uuid

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    INVALID_ATTRIBUTE_VALUE,
    INVALID_PARAMETER,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    unique_name,
)


def test_create_queue_url_shape(sqs, endpoint, queue_factory):
    name = unique_name()
    url = queue_factory(name)
    assert url == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"


def test_create_queue_is_idempotent_with_equal_attributes(sqs, queue_factory):
    name = unique_name()
    url = queue_factory(name, {"VisibilityTimeout": 45, "DelaySeconds": 3})
    again = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "45", "DelaySeconds": "3"})
    assert again["QueueUrl"] == url
    plain = unique_name()
    url2 = queue_factory(plain)
    assert sqs.create_queue(QueueName=plain)["QueueUrl"] == url2


def test_create_queue_with_different_attributes_is_queue_already_exists(sqs, queue_factory):
    name = unique_name()
    queue_factory(name, {"DelaySeconds": 3})
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        Attributes={"DelaySeconds": "4"},
        code="QueueAlreadyExists",
        status=400,
        shape="QueueNameExists",
        message_contains="DelaySeconds",
    )


@pytest.mark.parametrize(
    "name",
    ["has space", "dot.name", "x" * 81, "sl/ash", "ünïcode", "plain.fifo", "star*"],
    ids=["space", "dot", "81-chars", "slash", "non-ascii", "fifo-suffix-on-standard", "star"],
)
def test_create_queue_invalid_name(sqs, name):
    expect_error(sqs, sqs.create_queue, QueueName=name, **INVALID_PARAMETER)


@pytest.mark.parametrize(
    "make_name",
    [lambda u: (u + "A" * 80)[:80], lambda u: "Mixed_Case-09-" + u],
    ids=["80-chars", "mixed-case-hyphen-underscore"],
)
def test_create_queue_valid_names(sqs, queue_factory, make_name):
    name = make_name(uuid.uuid4().hex)
    url = queue_factory(name)
    assert url.endswith("/" + name)
    assert sqs.get_queue_url(QueueName=name)["QueueUrl"] == url


RANGES = [
    ("DelaySeconds", 0, 900),
    ("MaximumMessageSize", 1024, 1048576),
    ("MessageRetentionPeriod", 60, 1209600),
    ("ReceiveMessageWaitTimeSeconds", 0, 20),
    ("VisibilityTimeout", 0, 43200),
]


@pytest.mark.parametrize("attr,low,high", RANGES, ids=[r[0] for r in RANGES])
def test_create_queue_attribute_bounds_accepted(sqs, queue_factory, attr, low, high):
    for value in (low, high):
        url = queue_factory(attributes={attr: value})
        got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[attr])["Attributes"]
        assert got == {attr: str(value)}


@pytest.mark.parametrize("attr,low,high", RANGES, ids=[r[0] for r in RANGES])
def test_create_queue_attribute_out_of_range(sqs, attr, low, high):
    for value in (low - 1, high + 1, "abc"):
        expect_error(
            sqs, sqs.create_queue, QueueName=unique_name(), Attributes={attr: str(value)}, **INVALID_ATTRIBUTE_VALUE
        )


def test_create_queue_unknown_attribute(sqs):
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name(),
        Attributes={"NoSuchAttribute": "1"},
        code="InvalidAttributeName",
        status=400,
        shape="InvalidAttributeName",
    )


@pytest.mark.parametrize("attr,value", [("FifoQueue", "false"), ("ContentBasedDeduplication", "false")])
def test_create_standard_queue_with_fifo_attribute(sqs, attr, value):
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name(),
        Attributes={attr: value},
        message=f"Unknown Attribute {attr}.",
        code="InvalidAttributeName",
        status=400,
        shape="InvalidAttributeName",
    )


def test_get_queue_url(sqs, queue_factory):
    name = unique_name()
    url = queue_factory(name)
    assert sqs.get_queue_url(QueueName=name)["QueueUrl"] == url
    assert sqs.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=DEFAULT_ACCOUNT)["QueueUrl"] == url


def test_get_queue_url_missing_queue(sqs):
    expect_error(sqs, sqs.get_queue_url, QueueName=unique_name("missing"), **QUEUE_DOES_NOT_EXIST)


def test_get_queue_url_names_are_case_sensitive(sqs, queue_factory):
    name = "Case" + unique_name()
    queue_factory(name)
    expect_error(sqs, sqs.get_queue_url, QueueName=name.lower(), **QUEUE_DOES_NOT_EXIST)


def test_list_queues_prefix(sqs, queue_factory):
    prefix = unique_name("lq")
    urls = {queue_factory(f"{prefix}-{i}") for i in range(3)}
    other = queue_factory(unique_name("other"))
    listed = sqs.list_queues(QueueNamePrefix=prefix)
    assert set(listed["QueueUrls"]) == urls
    assert "NextToken" not in listed
    assert other not in listed["QueueUrls"]


def test_list_queues_no_match_has_no_urls(sqs):
    listed = sqs.list_queues(QueueNamePrefix=unique_name("nomatch"))
    assert listed.get("QueueUrls", []) == []
    assert "NextToken" not in listed


def test_list_queues_pagination(sqs, queue_factory):
    prefix = unique_name("pg")
    urls = {queue_factory(f"{prefix}-{i}") for i in range(5)}
    seen = []
    page = sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2)
    pages = 0
    while True:
        pages += 1
        got = page.get("QueueUrls", [])
        assert 1 <= len(got) <= 2
        seen.extend(got)
        token = page.get("NextToken")
        if not token:
            break
        assert pages < 10, "pagination does not terminate"
        page = sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2, NextToken=token)
    assert pages == 3
    assert sorted(seen) == sorted(urls)


def test_list_queues_paginator(sqs, queue_factory):
    prefix = unique_name("pgr")
    urls = {queue_factory(f"{prefix}-{i}") for i in range(3)}
    paginator = sqs.get_paginator("list_queues")
    seen = []
    for page in paginator.paginate(QueueNamePrefix=prefix, PaginationConfig={"PageSize": 1}):
        seen.extend(page.get("QueueUrls", []))
    assert sorted(seen) == sorted(urls)


def test_delete_queue(sqs, queue_factory):
    name = unique_name()
    url = queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
    expect_error(sqs, sqs.send_message, QueueUrl=url, MessageBody="x", **QUEUE_DOES_NOT_EXIST)
    assert url not in sqs.list_queues(QueueNamePrefix=name).get("QueueUrls", [])


def test_recreate_within_60s_is_queue_deleted_recently(sqs, queue_factory, advance):
    name = unique_name()
    url = queue_factory(name)
    sqs.delete_queue(QueueUrl=url)
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        code="AWS.SimpleQueueService.QueueDeletedRecently",
        status=400,
        shape="QueueDeletedRecently",
    )
    advance(61)
    assert queue_factory(name) == url
