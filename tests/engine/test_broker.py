"""The broker: CreateQueue's idempotence, names, and attributes applied to a queue."""

import pytest
from engine_support import (
    ACCOUNT,
    REGION,
)

from emulator.errors import SqsError


def test_create_queue_is_idempotent(broker):
    queue, created = broker.create_queue(ACCOUNT, REGION, "idem", {"VisibilityTimeout": "45"})
    assert created
    again, created = broker.create_queue(ACCOUNT, REGION, "idem", {"VisibilityTimeout": "45"})
    assert again is queue and not created
    # No attributes, or attributes equal to the current values, are also the same queue.
    assert broker.create_queue(ACCOUNT, REGION, "idem", {}) == (queue, False)
    assert broker.create_queue(ACCOUNT, REGION, "idem", {"DelaySeconds": "0"}) == (queue, False)


def test_create_queue_with_default_value_spelled_out_matches_existing(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "dflt", {})
    assert broker.create_queue(ACCOUNT, REGION, "dflt", {"VisibilityTimeout": "30"}) == (queue, False)


def test_create_queue_with_different_attribute_is_queue_name_exists(broker):
    broker.create_queue(ACCOUNT, REGION, "dup", {"VisibilityTimeout": "45"})
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "dup", {"VisibilityTimeout": "46"})
    assert info.value.name == "QueueNameExists"
    assert "VisibilityTimeout" in info.value.message
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "dup", {"DelaySeconds": "5"})
    assert info.value.name == "QueueNameExists"


def test_create_queue_after_set_attributes_compares_current_values(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "changed", {})
    queue.set_attributes({"VisibilityTimeout": "60"})
    assert broker.create_queue(ACCOUNT, REGION, "changed", {"VisibilityTimeout": "60"}) == (queue, False)
    with pytest.raises(SqsError) as info:
        broker.create_queue(ACCOUNT, REGION, "changed", {"VisibilityTimeout": "30"})
    assert info.value.name == "QueueNameExists"


def test_queue_names_are_scoped_by_account_and_region(broker):
    a, _ = broker.create_queue(ACCOUNT, REGION, "same", {})
    b, created_b = broker.create_queue(ACCOUNT, "eu-west-1", "same", {})
    c, created_c = broker.create_queue("111111111111", REGION, "same", {})
    assert created_b and created_c
    assert len({id(a), id(b), id(c)}) == 3
    assert a.arn == f"arn:aws:sqs:{REGION}:{ACCOUNT}:same"
    assert [q.name for q in broker.queues(ACCOUNT, REGION)] == ["same"]


def test_create_after_delete_makes_a_new_queue(broker, clock):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "again", {"VisibilityTimeout": "45"})
    broker.delete_queue(queue)
    with pytest.raises(SqsError) as info:  # AWS: wait 60 s before re-creating the name
        broker.create_queue(ACCOUNT, REGION, "again", {})
    assert info.value.name == "QueueDeletedRecently"
    clock.advance(60)
    fresh, created = broker.create_queue(ACCOUNT, REGION, "again", {"VisibilityTimeout": "46"})
    assert created and fresh is not queue
    assert broker.get_queue(ACCOUNT, REGION, "again") is fresh


def test_deleting_a_stale_queue_object_keeps_the_new_queue(broker, clock):
    old, _ = broker.create_queue(ACCOUNT, REGION, "x", {})
    broker.delete_queue(old)
    clock.advance(60)
    new, _ = broker.create_queue(ACCOUNT, REGION, "x", {})
    broker.delete_queue(old)  # already gone; must not remove its successor
    assert broker.get_queue(ACCOUNT, REGION, "x") is new


def test_get_unknown_queue_is_queue_does_not_exist(broker):
    with pytest.raises(SqsError) as info:
        broker.get_queue(ACCOUNT, REGION, "nope")
    assert info.value.name == "QueueDoesNotExist"


def test_queue_attributes_apply_to_queue(broker):
    queue, _ = broker.create_queue(
        ACCOUNT,
        REGION,
        "attrs",
        {"VisibilityTimeout": "45", "DelaySeconds": "5", "MessageRetentionPeriod": "600"},
    )
    assert (queue.visibility_timeout, queue.delay_seconds, queue.retention_period) == (45, 5, 600)
    assert queue.attributes["MaximumMessageSize"] == "1048576"  # defaults filled in
    queue.set_attributes({"VisibilityTimeout": "10"})
    assert queue.visibility_timeout == 10
    assert queue.attributes["VisibilityTimeout"] == "10"


def test_kms_key_turns_sqs_managed_sse_off_and_empty_policy_removes_policy(broker):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "kms", {"Policy": "{}"})
    assert queue.attributes["SqsManagedSseEnabled"] == "true"
    assert queue.attributes["Policy"] == "{}"
    queue.set_attributes({"KmsMasterKeyId": "alias/aws/sqs", "Policy": ""})
    assert queue.attributes["SqsManagedSseEnabled"] == "false"
    assert "Policy" not in queue.attributes
