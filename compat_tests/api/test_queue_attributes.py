"""GetQueueAttributes and SetQueueAttributes."""

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    INVALID_ATTRIBUTE_NAME,
    INVALID_ATTRIBUTE_VALUE,
    QUEUE_DOES_NOT_EXIST,
    counts,
    expect_error,
    queue_attrs,
    receive,
    unique_name,
)


def test_default_attributes_all(sqs, queue_factory, server_now):
    name = unique_name()
    url = queue_factory(name)
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    expected = {
        "VisibilityTimeout": "30",
        "MaximumMessageSize": "1048576",
        "MessageRetentionPeriod": "345600",
        "DelaySeconds": "0",
        "ReceiveMessageWaitTimeSeconds": "0",
        "SqsManagedSseEnabled": "true",
        "QueueArn": f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{name}",
        "ApproximateNumberOfMessages": "0",
        "ApproximateNumberOfMessagesNotVisible": "0",
        "ApproximateNumberOfMessagesDelayed": "0",
    }
    assert {k: attrs.get(k) for k in expected} == expected
    now = server_now()
    for stamp in ("CreatedTimestamp", "LastModifiedTimestamp"):
        assert attrs[stamp].isdigit(), f"{stamp} must be epoch seconds, got {attrs[stamp]!r}"
        assert abs(int(attrs[stamp]) - now) < 60, f"{stamp}={attrs[stamp]} far from server time {now}"
    # A standard queue reports no FIFO attributes, and no policy unless one was set.
    for absent in (
        "FifoQueue",
        "ContentBasedDeduplication",
        "Policy",
        "RedrivePolicy",
        "KmsMasterKeyId",
        "KmsDataKeyReusePeriodSeconds",
    ):
        assert absent not in attrs, f"{absent} unexpectedly present: {attrs}"


def test_single_and_selected_attribute_names(sqs, queue):
    assert sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "30"
    }
    got = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["DelaySeconds", "MaximumMessageSize"])
    assert got["Attributes"] == {"DelaySeconds": "0", "MaximumMessageSize": "1048576"}


def test_no_attribute_names_returns_no_attributes(sqs, queue):
    assert sqs.get_queue_attributes(QueueUrl=queue).get("Attributes", {}) == {}


def test_unknown_attribute_name(sqs, queue):
    expect_error(
        sqs, sqs.get_queue_attributes, QueueUrl=queue, AttributeNames=["NoSuchAttribute"], **INVALID_ATTRIBUTE_NAME
    )


def test_get_attributes_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.get_queue_attributes, QueueUrl=url, AttributeNames=["All"], **QUEUE_DOES_NOT_EXIST)


def test_approximate_counters_are_exact(sqs, queue):
    for i in range(3):
        sqs.send_message(QueueUrl=queue, MessageBody=f"visible {i}")
    sqs.send_message(QueueUrl=queue, MessageBody="delayed", DelaySeconds=600)
    assert counts(sqs, queue) == (3, 0, 1)
    assert len(receive(sqs, queue, MaxNumberOfMessages=2)) == 2
    assert counts(sqs, queue) == (1, 2, 1)


def test_set_queue_attributes(sqs, queue):
    new = {
        "VisibilityTimeout": "45",
        "DelaySeconds": "5",
        "MaximumMessageSize": "2048",
        "MessageRetentionPeriod": "120",
        "ReceiveMessageWaitTimeSeconds": "3",
    }
    sqs.set_queue_attributes(QueueUrl=queue, Attributes=new)
    attrs = queue_attrs(sqs, queue)
    assert {k: attrs[k] for k in new} == new


def test_set_policy_round_trips(sqs, queue):
    import json

    arn = queue_attrs(sqs, queue, "QueueArn")["QueueArn"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "s1", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sqs:SendMessage", "Resource": arn}
        ],
    }
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"Policy": json.dumps(policy)})
    assert json.loads(queue_attrs(sqs, queue, "Policy")["Policy"]) == policy


@pytest.mark.parametrize(
    "attr,value",
    [
        ("VisibilityTimeout", "43201"),
        ("VisibilityTimeout", "-1"),
        ("DelaySeconds", "901"),
        ("MaximumMessageSize", "1023"),
        ("MaximumMessageSize", "1048577"),
        ("MessageRetentionPeriod", "59"),
        ("MessageRetentionPeriod", "1209601"),
        ("ReceiveMessageWaitTimeSeconds", "21"),
        ("VisibilityTimeout", "ten"),
    ],
)
def test_set_queue_attributes_invalid_value(sqs, queue, attr, value):
    expect_error(sqs, sqs.set_queue_attributes, QueueUrl=queue, Attributes={attr: value}, **INVALID_ATTRIBUTE_VALUE)
    # The rejected value was not applied.
    defaults = {
        "VisibilityTimeout": "30",
        "DelaySeconds": "0",
        "MaximumMessageSize": "1048576",
        "MessageRetentionPeriod": "345600",
        "ReceiveMessageWaitTimeSeconds": "0",
    }
    assert queue_attrs(sqs, queue, attr)[attr] == defaults[attr]


def test_set_queue_attributes_unknown_name(sqs, queue):
    expect_error(
        sqs, sqs.set_queue_attributes, QueueUrl=queue, Attributes={"NoSuchAttribute": "1"}, **INVALID_ATTRIBUTE_NAME
    )


def test_set_queue_attributes_cannot_make_standard_queue_fifo(sqs, queue):
    # FifoQueue is unknown to a standard queue (docs/sqs-reference.md 2); the type never changes.
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=queue,
        Attributes={"FifoQueue": "true"},
        message="Unknown Attribute FifoQueue.",
        **INVALID_ATTRIBUTE_NAME,
    )
    assert "FifoQueue" not in queue_attrs(sqs, queue)


def test_new_visibility_timeout_applies_to_next_receive(sqs, queue, advance):
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"VisibilityTimeout": "5"})
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    assert len(receive(sqs, queue)) == 1
    advance(3)
    assert receive(sqs, queue) == []
    advance(3)
    assert len(receive(sqs, queue)) == 1


def test_queue_delay_attribute_applies_to_sends(sqs, queue, advance):
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"DelaySeconds": "10"})
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    assert counts(sqs, queue) == (0, 0, 1)
    advance(11)
    assert counts(sqs, queue) == (1, 0, 0)


# ---------------------------------------------------------------- KMS (docs/sqs-reference.md section 3)


def test_kms_key_reuse_period_is_listed_only_with_a_key(sqs, queue):
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsMasterKeyId": "alias/my-key"})
    attrs = queue_attrs(sqs, queue)
    assert (attrs["KmsMasterKeyId"], attrs["KmsDataKeyReusePeriodSeconds"]) == ("alias/my-key", "300")
    assert attrs["SqsManagedSseEnabled"] == "false"
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsDataKeyReusePeriodSeconds": "6000"})
    assert queue_attrs(sqs, queue, "KmsDataKeyReusePeriodSeconds") == {"KmsDataKeyReusePeriodSeconds": "6000"}


def test_kms_attributes_reset_as_recorded_on_aws(sqs, queue):
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsMasterKeyId": "testKeyId"})
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsMasterKeyId": "", "KmsDataKeyReusePeriodSeconds": "300"})
    attrs = queue_attrs(sqs, queue)
    assert "KmsMasterKeyId" not in attrs and "KmsDataKeyReusePeriodSeconds" not in attrs
    assert attrs["SqsManagedSseEnabled"] == "false"
    assert queue_attrs(sqs, queue, "KmsDataKeyReusePeriodSeconds", "KmsMasterKeyId") == {}


def test_kms_reuse_period_alone_is_not_listed(sqs, queue_factory):
    url = queue_factory(attributes={"KmsDataKeyReusePeriodSeconds": "120"})
    assert "KmsDataKeyReusePeriodSeconds" not in queue_attrs(sqs, url)
