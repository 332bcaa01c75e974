"""FIFO queues through a real client: queue type, groups, deduplication, sequence
numbers, receive attempts, expired receipt handles.

AWS's behaviour: docs/sqs-reference.md 1.5-1.12 and section 2; wordings
recorded against AWS are in docs/research/aws_facts.md and aws_fifo_facts.md.
Time moves on the server's manual clock (advance), never by sleeping.
"""

import hashlib
import itertools
import threading

import pytest

from compat_tests.helpers import (
    INVALID_ATTRIBUTE_NAME,
    INVALID_ATTRIBUTE_VALUE,
    INVALID_PARAMETER,
    counts,
    expect_error,
    queue_attrs,
    receive,
    receive_one,
    unique_name,
)

FIFO = {"FifoQueue": "true"}
MISSING_GROUP = "The request must contain the parameter MessageGroupId."
NO_DEDUP = (
    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
)


@pytest.fixture
def fifo_factory(queue_factory):
    def create(attributes=None, **kwargs):
        return queue_factory(name=unique_name("ff") + ".fifo", attributes={**FIFO, **(attributes or {})}, **kwargs)

    return create


@pytest.fixture
def fifo(fifo_factory):
    return fifo_factory()


def send(sqs, url, body, group="g", dedup=None, **kwargs):
    return sqs.send_message(
        QueueUrl=url, MessageBody=body, MessageGroupId=group, MessageDeduplicationId=dedup or body, **kwargs
    )


def bodies(messages):
    return [m["Body"] for m in messages]


# -- queue type -----------------------------------------------------------------


def test_fifo_queue_lists_its_attribute_defaults(sqs, fifo):
    attributes = queue_attrs(sqs, fifo)
    assert attributes["FifoQueue"] == "true"
    assert attributes["ContentBasedDeduplication"] == "false"
    assert attributes["DeduplicationScope"] == "queue"
    assert attributes["FifoThroughputLimit"] == "perQueue"


def test_standard_queue_lists_no_fifo_attributes_and_knows_none(sqs, queue):
    attributes = queue_attrs(sqs, queue)
    assert not {"FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit"} & set(attributes)
    # AWS: "will throw this error if you provide that attribute name to a queue that does not
    # have FIFO enabled" (AWS SDK maintainer, aws/aws-sdk-ruby#1350).
    expect_error(
        sqs,
        sqs.get_queue_attributes,
        QueueUrl=queue,
        AttributeNames=["FifoQueue"],
        **INVALID_ATTRIBUTE_NAME,
        message="Unknown Attribute FifoQueue.",
    )


def test_fifo_name_without_fifo_queue_attribute_is_an_invalid_name(sqs):
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("ff") + ".fifo",
        **INVALID_PARAMETER,
        message="Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
    )


@pytest.mark.parametrize("name_suffix, value", [("", "false"), (".fifo", "false"), ("", "yes")])
def test_fifo_queue_attribute_without_both_parts_is_unknown(sqs, name_suffix, value):
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("ff") + name_suffix,
        Attributes={"FifoQueue": value},
        **INVALID_ATTRIBUTE_NAME,
        message="Unknown Attribute FifoQueue.",
    )


@pytest.mark.parametrize("attributes", [{"FifoQueue": "true"}, {"FifoQueue": "true", "NoSuchAttribute": "1"}])
def test_fifo_queue_true_with_a_standard_name_is_an_invalid_fifo_name(sqs, attributes):
    """AWS-recorded (issue 18, item 2): the name is judged as a FIFO name, before any attribute name."""
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("ff"),
        Attributes=attributes,
        **INVALID_PARAMETER,
        message="The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, "
        "must end with .fifo suffix and be 1 to 80 in length.",
    )


def test_content_based_dedup_on_a_standard_queue_is_unknown(sqs):
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("std"),
        Attributes={"ContentBasedDeduplication": "true"},
        **INVALID_ATTRIBUTE_NAME,
        message="Unknown Attribute ContentBasedDeduplication.",
    )


@pytest.mark.parametrize("name, value", [("DeduplicationScope", "queue"), ("FifoThroughputLimit", "perQueue")])
def test_high_throughput_settings_on_a_standard_queue_need_fifo(sqs, queue, name, value):
    message = f"You can specify the {name} only when FifoQueue is set to true."
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("std"),
        Attributes={name: value},
        **INVALID_ATTRIBUTE_NAME,
        message=message,
    )
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=queue,
        Attributes={name: value},
        **INVALID_ATTRIBUTE_NAME,
        message=message,
    )


def test_queue_type_cannot_change(sqs, fifo):
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=fifo,
        Attributes={"FifoQueue": "false"},
        **INVALID_ATTRIBUTE_VALUE,
        message="Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
    )


def test_per_group_throughput_needs_message_group_scope(sqs, fifo_factory, fifo):
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=fifo,
        Attributes={"FifoThroughputLimit": "perMessageGroupId"},
        **INVALID_ATTRIBUTE_VALUE,
        message_contains="FifoThroughputLimit",
    )
    high = fifo_factory({"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"})
    attributes = queue_attrs(sqs, high, "DeduplicationScope", "FifoThroughputLimit")
    assert attributes == {"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}


@pytest.mark.parametrize(
    "name, value",
    [
        ("ContentBasedDeduplication", "yes"),
        ("DeduplicationScope", "group"),
        ("FifoThroughputLimit", "perGroup"),
    ],
)
def test_invalid_fifo_attribute_values(sqs, fifo, name, value):
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=fifo,
        Attributes={name: value},
        **INVALID_ATTRIBUTE_VALUE,
        message=f"Invalid value for the parameter {name}.",
    )


# -- send errors ----------------------------------------------------------------------


def test_send_without_group_is_missing_parameter_and_fails_a_whole_batch(sqs, fifo):
    """AWS-recorded (LocalStack's test_send_batch_missing_message_group_id_for_fifo_queue):
    MissingParameter for SendMessage; InvalidParameterValue for the whole batch."""
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=fifo,
        MessageBody="x",
        MessageDeduplicationId="d",
        code="MissingParameter",
        status=400,
        shape="MissingRequiredParameterException",
        message=MISSING_GROUP,
    )
    expect_error(
        sqs,
        sqs.send_message_batch,
        QueueUrl=fifo,
        Entries=[
            {"Id": "b", "MessageBody": "y", "MessageDeduplicationId": "e", "MessageGroupId": "g"},
            {"Id": "a", "MessageBody": "x", "MessageDeduplicationId": "d"},
        ],
        **INVALID_PARAMETER,
        message=MISSING_GROUP,
    )
    assert counts(sqs, fifo) == (0, 0, 0)  # the valid entry was not sent either


def test_send_without_dedup_id_needs_content_based_dedup(sqs, fifo):
    expect_error(
        sqs, sqs.send_message, QueueUrl=fifo, MessageBody="x", MessageGroupId="g", **INVALID_PARAMETER, message=NO_DEDUP
    )
    # AWS-recorded (test_send_batch_missing_deduplication_id_for_fifo_queue): the whole batch fails.
    expect_error(
        sqs,
        sqs.send_message_batch,
        QueueUrl=fifo,
        Entries=[
            {"Id": "a", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d"},
            {"Id": "b", "MessageBody": "y", "MessageGroupId": "g"},
        ],
        **INVALID_PARAMETER,
        message=NO_DEDUP,
    )


def test_per_message_delay_is_rejected_and_the_queue_delay_applies(sqs, fifo_factory, advance):
    url = fifo_factory({"DelaySeconds": "5"})
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=url,
        MessageBody="x",
        MessageGroupId="g",
        MessageDeduplicationId="d",
        DelaySeconds=2,
        **INVALID_PARAMETER,
        message="Value 2 for parameter DelaySeconds is invalid. "
        "Reason: The request include parameter that is not valid for this queue type.",
    )
    send(sqs, url, "late")
    send(sqs, url, "zero", DelaySeconds=0)  # AWS-recorded: 0 is allowed and means the queue's delay
    assert counts(sqs, url) == (0, 0, 2)
    advance(5)
    assert bodies(receive(sqs, url, MaxNumberOfMessages=10)) == ["late", "zero"]


@pytest.mark.parametrize("name", ["MessageGroupId", "MessageDeduplicationId"])
@pytest.mark.parametrize("value", ["x" * 129, "has space", "ünïcode", ""])
def test_group_and_dedup_ids_are_1_to_128_alphanumeric_or_punctuation(sqs_unchecked, fifo, name, value):
    params = {"MessageGroupId": "g", "MessageDeduplicationId": "d", name: value}
    expect_error(
        sqs_unchecked,
        sqs_unchecked.send_message,
        QueueUrl=fifo,
        MessageBody="x",
        **params,
        **INVALID_PARAMETER,
        message_contains=name,
    )


def test_punctuation_is_allowed_in_group_and_dedup_ids(sqs, fifo):
    token = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" + "a" * 96
    send(sqs, fifo, "x", group=token, dedup=token)
    message = receive_one(sqs, fifo, AttributeNames=["MessageGroupId", "MessageDeduplicationId"])
    assert message["Attributes"] == {"MessageGroupId": token, "MessageDeduplicationId": token}


def test_dedup_id_on_a_standard_queue_is_rejected(sqs, queue):
    expect_error(
        sqs,
        sqs.send_message,
        QueueUrl=queue,
        MessageBody="x",
        MessageDeduplicationId="d",
        **INVALID_PARAMETER,
        message="Value d for parameter MessageDeduplicationId is invalid. "
        "Reason: The request include parameter that is not valid for this queue type.",
    )


def test_invalid_group_id_message_is_awss(sqs_unchecked, queue):
    """AWS-recorded (test_send_message_to_standard_queue_with_invalid_message_group_id[spaces])."""
    expect_error(
        sqs_unchecked,
        sqs_unchecked.send_message,
        QueueUrl=queue,
        MessageBody="x",
        MessageGroupId="group 123",
        **INVALID_PARAMETER,
        message="Value group 123 for parameter MessageGroupId is invalid. Reason: MessageGroupId can only "
        "include alphanumeric and punctuation characters. 1 to 128 in length.",
    )


# -- groups and order ---------------------------------------------------------------------


def test_one_receive_takes_several_messages_of_a_group_in_order_and_several_groups(sqs, fifo):
    for body, group in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("c1", "c"), ("b2", "b")]:
        send(sqs, fifo, body, group=group)
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=10)) == ["a1", "a2", "b1", "b2", "c1"]


def test_groups_just_received_from_go_behind_the_others(sqs, fifo):
    """AWS-recorded (LocalStack's test_fifo_receive_message_with_zero_visibility_timeout)."""
    for body in ("g1-m1", "g2-m1", "g2-m2", "g3-m1", "g1-m2"):
        send(sqs, fifo, body, group=body[:2])
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=3, VisibilityTimeout=0)) == ["g1-m1", "g1-m2", "g2-m1"]
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=10)) == ["g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"]


def test_messages_before_the_first_inflight_one_are_receivable(sqs, fifo):
    """AWS-recorded (test_fifo_message_group_visibility_after_terminate_visibility_timeout):
    receive g1-m1 and g1-m2, return g1-m1: the next receive gives g2-m1 and g1-m1."""
    for body in ("g1-m1", "g1-m2", "g2-m1"):
        send(sqs, fifo, body, group=body[:2])
    first, _ = receive(sqs, fifo, MaxNumberOfMessages=2)
    sqs.change_message_visibility(QueueUrl=fifo, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=3)) == ["g2-m1", "g1-m1"]


@pytest.mark.parametrize("extended, expected", [(0, []), (1, ["foo"]), (2, ["foo", "bar"])])
def test_an_extended_message_hides_those_after_it(sqs, fifo, advance, extended, expected):
    """AWS-recorded (test_fifo_group_visibility_extends_with_change_message_visibility)."""
    for body in ("foo", "bar", "baz"):
        send(sqs, fifo, body, group="1")
    taken = receive(sqs, fifo, MaxNumberOfMessages=3, VisibilityTimeout=1)
    sqs.change_message_visibility(QueueUrl=fifo, ReceiptHandle=taken[extended]["ReceiptHandle"], VisibilityTimeout=4)
    advance(2.5)
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=10)) == expected


def test_a_group_is_locked_while_a_message_of_it_is_in_flight(sqs, make_client, fifo):
    other = make_client()  # a second consumer
    for body in ("a1", "a2", "a3"):
        send(sqs, fifo, body, group="a")
    send(sqs, fifo, "b1", group="b")
    first = receive(sqs, fifo, MaxNumberOfMessages=1)
    assert bodies(first) == ["a1"]
    assert bodies(receive(other, fifo, MaxNumberOfMessages=10)) == ["b1"]  # never a2 while a1 is in flight
    assert receive(other, fifo, MaxNumberOfMessages=10) == []
    sqs.delete_message(QueueUrl=fifo, ReceiptHandle=first[0]["ReceiptHandle"])
    assert bodies(receive(other, fifo, MaxNumberOfMessages=10)) == ["a2", "a3"]


def test_order_within_a_group_holds_after_a_redelivery(sqs, fifo, advance):
    for body in ("m1", "m2", "m3"):
        send(sqs, fifo, body)
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=2, VisibilityTimeout=10)) == ["m1", "m2"]
    advance(10)
    again = receive(sqs, fifo, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"])
    assert bodies(again) == ["m1", "m2", "m3"]
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in again] == ["2", "2", "1"]


def test_long_poll_wakes_when_the_group_is_released(sqs, make_client, fifo):
    send(sqs, fifo, "m1")
    send(sqs, fifo, "m2")
    held = receive_one(sqs, fifo)
    result = {}
    poller = threading.Thread(
        target=lambda: result.update(messages=receive(make_client(), fifo, MaxNumberOfMessages=10, WaitTimeSeconds=20))
    )
    poller.start()
    threading.Event().wait(0.75)  # let the poll reach the server (a real pause, as the other long-poll tests)
    sqs.delete_message(QueueUrl=fifo, ReceiptHandle=held["ReceiptHandle"])
    poller.join(10)
    assert bodies(result["messages"]) == ["m2"]


# -- deduplication ------------------------------------------------------------------------


def test_duplicate_returns_the_original_id_and_sequence_number_and_is_not_delivered(sqs, fifo, advance):
    first = send(sqs, fifo, "one", dedup="d")
    advance(299)
    duplicate = send(sqs, fifo, "other body", dedup="d")
    assert duplicate["MessageId"] == first["MessageId"]
    assert duplicate["SequenceNumber"] == first["SequenceNumber"]
    assert duplicate["MD5OfMessageBody"] == hashlib.md5(b"other body").hexdigest()  # of what was sent
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=10)) == ["one"]


def test_dedup_id_outlives_the_message_and_ends_after_five_minutes(sqs, fifo, advance):
    send(sqs, fifo, "one", dedup="d")
    sqs.delete_message(QueueUrl=fifo, ReceiptHandle=receive_one(sqs, fifo)["ReceiptHandle"])
    send(sqs, fifo, "again", dedup="d")
    assert receive(sqs, fifo) == []
    advance(300)
    send(sqs, fifo, "after the window", dedup="d")
    assert bodies(receive(sqs, fifo)) == ["after the window"]


def test_content_based_dedup_hashes_the_body_and_an_explicit_id_overrides(sqs, fifo_factory):
    url = fifo_factory({"ContentBasedDeduplication": "true"})
    first = sqs.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    again = sqs.send_message(
        QueueUrl=url,
        MessageBody="same",
        MessageGroupId="g",
        MessageAttributes={"a": {"DataType": "String", "StringValue": "attributes do not count"}},
    )
    explicit = sqs.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g", MessageDeduplicationId="x")
    assert again["MessageId"] == first["MessageId"] != explicit["MessageId"]
    messages = receive(sqs, url, MaxNumberOfMessages=10, AttributeNames=["MessageDeduplicationId"])
    assert [m["Attributes"]["MessageDeduplicationId"] for m in messages] == [hashlib.sha256(b"same").hexdigest(), "x"]


def test_message_group_scope_dedups_per_group(sqs, fifo_factory):
    per_queue = fifo_factory()
    per_group = fifo_factory({"DeduplicationScope": "messageGroup"})
    for url in (per_queue, per_group):
        send(sqs, url, "in a", group="a", dedup="same")
        send(sqs, url, "in b", group="b", dedup="same")
    assert bodies(receive(sqs, per_queue, MaxNumberOfMessages=10)) == ["in a"]
    assert bodies(receive(sqs, per_group, MaxNumberOfMessages=10)) == ["in a", "in b"]


def test_a_scope_changed_to_message_group_still_dedups_per_queue(sqs, fifo_factory):
    """Recorded on AWS (issue 18 item 4): SetQueueAttributes changes the DeduplicationScope that
    GetQueueAttributes returns, not how deduplication acts: a queue created with scope queue still
    treats an id seen in another group as a duplicate, for ids sent before and after the change."""
    url = fifo_factory()
    before = send(sqs, url, "before, in a", group="a", dedup="old")
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"DeduplicationScope": "messageGroup"})
    assert queue_attrs(sqs, url, "DeduplicationScope") == {"DeduplicationScope": "messageGroup"}
    assert send(sqs, url, "old id, in b", group="b", dedup="old")["MessageId"] == before["MessageId"]
    after = send(sqs, url, "after, in a", group="a", dedup="new")
    assert send(sqs, url, "new id, in b", group="b", dedup="new")["MessageId"] == after["MessageId"]
    assert bodies(receive(sqs, url, MaxNumberOfMessages=10)) == ["before, in a", "after, in a"]


def test_a_scope_changed_to_queue_still_dedups_per_group(sqs, fifo_factory):
    """Recorded on AWS (issue 18 item 4), the other way: created with messageGroup and then set to
    queue, the same id in another group is still delivered."""
    url = fifo_factory({"DeduplicationScope": "messageGroup"})
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"DeduplicationScope": "queue"})
    assert queue_attrs(sqs, url, "DeduplicationScope") == {"DeduplicationScope": "queue"}
    send(sqs, url, "in a", group="a", dedup="same")
    send(sqs, url, "in b", group="b", dedup="same")
    send(sqs, url, "again in b", group="b", dedup="same")
    assert bodies(receive(sqs, url, MaxNumberOfMessages=10)) == ["in a", "in b"]


def test_duplicates_inside_one_batch(sqs, fifo):
    result = sqs.send_message_batch(
        QueueUrl=fifo,
        Entries=[
            {"Id": "a", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d"},
            {"Id": "b", "MessageBody": "y", "MessageGroupId": "g", "MessageDeduplicationId": "d"},
        ],
    )
    a, b = result["Successful"]
    assert a["MessageId"] == b["MessageId"] and a["SequenceNumber"] == b["SequenceNumber"]
    assert bodies(receive(sqs, fifo, MaxNumberOfMessages=10)) == ["x"]


# -- sequence numbers ---------------------------------------------------------------------


def test_sequence_numbers_are_20_digits_strictly_increasing_and_received(sqs, fifo):
    numbers = [send(sqs, fifo, f"m{i}", group=f"g{i % 2}")["SequenceNumber"] for i in range(4)]
    batch = sqs.send_message_batch(
        QueueUrl=fifo,
        Entries=[{"Id": "x", "MessageBody": "m4", "MessageGroupId": "g0", "MessageDeduplicationId": "m4"}],
    )
    numbers.append(batch["Successful"][0]["SequenceNumber"])
    assert all(len(n) == 20 and n.isdigit() for n in numbers)
    assert [int(n) for n in numbers] == sorted({int(n) for n in numbers})
    # 'Large, non-consecutive' (docs/sqs-reference.md 1.8; AWS's e.g. 18849496460467696128, issue 18).
    assert all(int(b) - int(a) > 1 for a, b in itertools.pairwise(numbers))
    received = receive(sqs, fifo, MaxNumberOfMessages=10, AttributeNames=["SequenceNumber"])
    assert sorted(m["Attributes"]["SequenceNumber"] for m in received) == sorted(numbers)


def test_standard_queue_drops_sequence_number_and_has_none_on_send(sqs, queue):
    assert "SequenceNumber" not in sqs.send_message(QueueUrl=queue, MessageBody="x")
    message = receive_one(sqs, queue, AttributeNames=["SequenceNumber", "SentTimestamp"])
    assert set(message["Attributes"]) == {"SentTimestamp"}


# -- receive request attempt ids -------------------------------------------------------------


def test_retry_with_the_same_attempt_id_gets_the_same_messages_and_handles(sqs, fifo, advance):
    for body in ("m1", "m2"):
        send(sqs, fifo, body)
    first = receive(sqs, fifo, MaxNumberOfMessages=10, VisibilityTimeout=30, ReceiveRequestAttemptId="attempt-1")
    advance(20)
    retry = receive(sqs, fifo, MaxNumberOfMessages=10, VisibilityTimeout=30, ReceiveRequestAttemptId="attempt-1")
    assert [m["ReceiptHandle"] for m in retry] == [m["ReceiptHandle"] for m in first]
    advance(29)  # the retry restarted the visibility timeout
    assert counts(sqs, fifo) == (0, 2, 0)


def test_attempt_id_after_a_delete_is_not_retryable(sqs, fifo, advance):
    """Real AWS output (aws/aws-sdk-java#2613): a reused id whose messages changed."""
    send(sqs, fifo, "a1", group="a")
    first = receive(sqs, fifo, MaxNumberOfMessages=1, ReceiveRequestAttemptId="attempt-2")
    sqs.delete_message(QueueUrl=fifo, ReceiptHandle=first[0]["ReceiptHandle"])
    expect_error(
        sqs,
        sqs.receive_message,
        QueueUrl=fifo,
        ReceiveRequestAttemptId="attempt-2",
        **INVALID_PARAMETER,
        message="Value attempt-2 for parameter ReceiveRequestAttemptId is invalid. Reason: The "
        "receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
    )
    advance(300)  # the id is forgotten after 5 minutes
    assert receive(sqs, fifo, ReceiveRequestAttemptId="attempt-2") == []


def test_attempt_id_on_a_standard_queue_is_ignored(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="x")
    assert len(receive(sqs, queue, ReceiveRequestAttemptId="a")) == 1
    assert receive(sqs, queue, ReceiveRequestAttemptId="a") == []


def test_attempt_id_is_validated(sqs_unchecked, fifo):
    expect_error(
        sqs_unchecked,
        sqs_unchecked.receive_message,
        QueueUrl=fifo,
        ReceiveRequestAttemptId="x" * 129,
        **INVALID_PARAMETER,
        message_contains="ReceiveRequestAttemptId",
    )


# -- expired receipt handles -----------------------------------------------------------------


def test_expired_handle_is_an_error_for_delete_and_visibility_change(sqs, fifo, advance):
    send(sqs, fifo, "m")
    handle = receive_one(sqs, fifo, VisibilityTimeout=5)["ReceiptHandle"]
    advance(5)
    expired = f"Value {handle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
    expect_error(sqs, sqs.delete_message, QueueUrl=fifo, ReceiptHandle=handle, **INVALID_PARAMETER, message=expired)
    expect_error(
        sqs,
        sqs.change_message_visibility,
        QueueUrl=fifo,
        ReceiptHandle=handle,
        VisibilityTimeout=10,
        **INVALID_PARAMETER,
        message=expired,
    )
    assert counts(sqs, fifo) == (1, 0, 0)
    # A batch entry says it otherwise (real AWS output, smaskalik/sqsmover#54).
    failed = sqs.delete_message_batch(QueueUrl=fifo, Entries=[{"Id": "a", "ReceiptHandle": handle}])["Failed"]
    assert failed == [
        {"Id": "a", "SenderFault": True, "Code": "ReceiptHandleIsInvalid", "Message": "The receipt handle has expired"}
    ]


# -- fair queues: MessageGroupId on a standard queue ------------------------------------------


def test_group_id_on_a_standard_queue_is_a_tenant_returned_as_a_system_attribute(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="x", MessageGroupId="tenant-1")
    message = receive_one(sqs, queue, AttributeNames=["MessageGroupId"])
    assert message["Attributes"] == {"MessageGroupId": "tenant-1"}


def test_group_id_on_a_standard_queue_is_validated(sqs_unchecked, queue):
    expect_error(
        sqs_unchecked,
        sqs_unchecked.send_message,
        QueueUrl=queue,
        MessageBody="x",
        MessageGroupId="x" * 129,
        **INVALID_PARAMETER,
        message_contains="MessageGroupId",
    )


def test_fair_queue_serves_a_quiet_tenant_before_a_noisy_backlog(sqs, queue):
    for start in range(0, 60, 10):
        sqs.send_message_batch(
            QueueUrl=queue,
            Entries=[
                {"Id": f"e{i}", "MessageBody": f"noisy-{start + i}", "MessageGroupId": "noisy"} for i in range(10)
            ],
        )
    sqs.send_message(QueueUrl=queue, MessageBody="quiet-0", MessageGroupId="quiet")
    held = []
    for _ in range(3):  # the noisy tenant now holds 30 of 30 messages in flight
        held += receive(sqs, queue, MaxNumberOfMessages=10)
    assert {m["Body"].split("-")[0] for m in held} == {"noisy"}
    assert bodies(receive(sqs, queue, MaxNumberOfMessages=2)) == ["quiet-0", "noisy-30"]
