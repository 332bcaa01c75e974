"""Dead-letter queues: RedrivePolicy, RedriveAllowPolicy, the move on receive, ListDeadLetterSourceQueues.

AWS's wordings come from docs/research/aws_dlq_facts.md (real-AWS recordings
where available, otherwise texts that several AWS-compatible servers agree on).
"""

import json

import pytest
from botocore.exceptions import ClientError

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    DEFAULT_REGION,
    INVALID_PARAMETER,
    QUEUE_DOES_NOT_EXIST,
    arn_of,
    counts,
    expect_error,
    queue_attrs,
    receive,
    receive_one,
    unique_name,
)


def redrive_policy(target_arn, max_receive_count):
    return json.dumps({"deadLetterTargetArn": target_arn, "maxReceiveCount": max_receive_count})


def compact_policy(target_arn, max_receive_count):
    return f'{{"deadLetterTargetArn":"{target_arn}","maxReceiveCount":{max_receive_count:d}}}'


def source_and_dlq(sqs, queue_factory, max_receive_count, source_attributes=None, dlq_attributes=None):
    """(source url, dlq url, source arn, dlq arn) with the source dead-lettering into the DLQ."""
    dlq = queue_factory(prefix="dlq", attributes=dlq_attributes)
    dlq_arn = arn_of(sqs, dlq)
    attributes = {"RedrivePolicy": redrive_policy(dlq_arn, max_receive_count), **(source_attributes or {})}
    source = queue_factory(prefix="src", attributes=attributes)
    return source, dlq, arn_of(sqs, source), dlq_arn


def policy_error(value, reason):
    return f"Value {value} for parameter RedrivePolicy is invalid. Reason: {reason}"


# Malformed JSON: AWS's text follows its InvalidAttributeValue pattern ("Invalid value for the
# parameter X. Reason: ..."), the research notes file it under InvalidParameterValue; accept either code.
MALFORMED_CODES = ("InvalidParameterValue", "InvalidAttributeValue")


def expect_malformed(sqs, call, message, **kwargs):
    with pytest.raises(ClientError) as info:
        call(**kwargs)
    err = info.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 400, err
    assert err["Error"]["Code"] in MALFORMED_CODES, err["Error"]
    assert err["Error"]["Type"] == "Sender", err["Error"]
    assert err["Error"]["Message"] == message, err["Error"]


# ---------------------------------------------------------------- the move on receive


@pytest.mark.parametrize("max_receive_count", [1, 3])
def test_poison_message_reaches_dlq_after_exactly_n_receives(sqs, queue_factory, advance, max_receive_count):
    source, dlq, source_arn, _ = source_and_dlq(sqs, queue_factory, max_receive_count)
    attributes = {
        "colour": {"DataType": "String", "StringValue": "red"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\x02"},
    }
    sent = sqs.send_message(QueueUrl=source, MessageBody="poison", MessageAttributes=attributes)
    sent_at = None
    for attempt in range(1, max_receive_count + 1):
        msg = receive_one(sqs, source, AttributeNames=["All"], VisibilityTimeout=5)
        assert msg["MessageId"] == sent["MessageId"]
        assert msg["Attributes"]["ApproximateReceiveCount"] == str(attempt)
        assert "DeadLetterQueueSourceArn" not in msg["Attributes"]
        sent_at = msg["Attributes"]["SentTimestamp"]
        assert counts(sqs, source) == (0, 1, 0)
        assert counts(sqs, dlq) == (0, 0, 0)
        advance(6)
        assert counts(sqs, source) == (1, 0, 0)
        assert counts(sqs, dlq) == (0, 0, 0)
    # The receive that would deliver it a (maxReceiveCount+1)-th time moves it instead.
    assert receive(sqs, source, MaxNumberOfMessages=10) == []
    assert counts(sqs, source) == (0, 0, 0)
    assert counts(sqs, dlq) == (1, 0, 0)

    dead = receive_one(sqs, dlq, AttributeNames=["All"], MessageAttributeNames=["All"])
    assert dead["MessageId"] == sent["MessageId"]
    assert dead["Body"] == "poison"
    assert dead["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert dead["MessageAttributes"] == attributes
    assert dead["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert dead["Attributes"]["DeadLetterQueueSourceArn"] == source_arn
    assert dead["Attributes"]["ApproximateReceiveCount"] == str(max_receive_count + 1)
    assert dead["Attributes"]["SentTimestamp"] == sent_at
    assert counts(sqs, source) == (0, 0, 0)
    assert counts(sqs, dlq) == (0, 1, 0)


def test_dlq_receive_count_continues(sqs, queue_factory, advance):
    source, dlq, source_arn, _ = source_and_dlq(sqs, queue_factory, 2)
    sqs.send_message(QueueUrl=source, MessageBody="m")
    for _ in range(2):
        receive_one(sqs, source, VisibilityTimeout=0)
    assert receive(sqs, source) == []
    seen = []
    for _ in range(3):
        msg = receive_one(sqs, dlq, AttributeNames=["ApproximateReceiveCount", "DeadLetterQueueSourceArn"])
        seen.append(msg["Attributes"]["ApproximateReceiveCount"])
        assert msg["Attributes"]["DeadLetterQueueSourceArn"] == source_arn
        advance(31)
    # The DLQ has no RedrivePolicy of its own: the message stays there however often it is received.
    assert seen == ["3", "4", "5"]
    assert counts(sqs, dlq) == (1, 0, 0)
    assert counts(sqs, source) == (0, 0, 0)


def test_poison_message_moved_while_healthy_ones_are_delivered(sqs, queue_factory):
    source, dlq, _, _ = source_and_dlq(sqs, queue_factory, 1)
    poison = sqs.send_message(QueueUrl=source, MessageBody="poison")["MessageId"]
    assert receive_one(sqs, source, VisibilityTimeout=0)["MessageId"] == poison
    fresh = {sqs.send_message(QueueUrl=source, MessageBody=f"ok{i}")["MessageId"] for i in range(3)}
    got = receive(sqs, source, MaxNumberOfMessages=10, VisibilityTimeout=60)
    assert {m["MessageId"] for m in got} == fresh
    assert counts(sqs, source) == (0, 3, 0)
    assert counts(sqs, dlq) == (1, 0, 0)
    assert receive_one(sqs, dlq)["MessageId"] == poison


def test_deleted_message_is_never_dead_lettered(sqs, queue_factory, advance):
    source, dlq, _, _ = source_and_dlq(sqs, queue_factory, 1)
    sqs.send_message(QueueUrl=source, MessageBody="handled")
    msg = receive_one(sqs, source)
    sqs.delete_message(QueueUrl=source, ReceiptHandle=msg["ReceiptHandle"])
    advance(31)
    assert receive(sqs, source) == []
    assert counts(sqs, source) == (0, 0, 0)
    assert counts(sqs, dlq) == (0, 0, 0)


def test_message_sent_directly_to_dlq_has_no_source_arn(sqs, queue_factory):
    _, dlq, _, _ = source_and_dlq(sqs, queue_factory, 1)
    sqs.send_message(QueueUrl=dlq, MessageBody="direct")
    msg = receive_one(sqs, dlq, AttributeNames=["All"])
    assert "DeadLetterQueueSourceArn" not in msg["Attributes"]
    assert msg["Attributes"]["ApproximateReceiveCount"] == "1"


def test_redrive_policy_set_later_applies_to_existing_messages(sqs, queue_factory):
    source = queue_factory(prefix="src")
    dlq = queue_factory(prefix="dlq")
    sqs.send_message(QueueUrl=source, MessageBody="m")
    for _ in range(2):
        receive_one(sqs, source, VisibilityTimeout=0)
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": redrive_policy(arn_of(sqs, dlq), 2)})
    assert receive(sqs, source) == []
    assert counts(sqs, dlq) == (1, 0, 0)


def test_removing_redrive_policy_stops_dead_lettering(sqs, queue_factory):
    source, dlq, _source_arn, _dlq_arn = source_and_dlq(sqs, queue_factory, 1)
    sqs.send_message(QueueUrl=source, MessageBody="m")
    receive_one(sqs, source, VisibilityTimeout=0)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [source]

    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": ""})
    assert "RedrivePolicy" not in queue_attrs(sqs, source)
    assert "RedrivePolicy" not in queue_attrs(sqs, source, "RedrivePolicy")
    for attempt in (2, 3, 4):
        msg = receive_one(sqs, source, VisibilityTimeout=0, AttributeNames=["ApproximateReceiveCount"])
        assert msg["Attributes"]["ApproximateReceiveCount"] == str(attempt)
    assert counts(sqs, source) == (1, 0, 0)
    assert counts(sqs, dlq) == (0, 0, 0)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq).get("queueUrls", []) == []


def test_empty_redrive_policy_removes_it_by_queue_name(sqs, queue_factory):
    """SetQueueAttributes(RedrivePolicy="") with the bare queue name as QueueUrl, as AWS was recorded."""
    source, dlq, _source_arn, _dlq_arn = source_and_dlq(sqs, queue_factory, 3)
    name = source.rsplit("/", 1)[1]
    sqs.set_queue_attributes(QueueUrl=name, Attributes={"RedrivePolicy": ""})
    assert "RedrivePolicy" not in queue_attrs(sqs, name)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq).get("queueUrls", []) == []


def test_raising_max_receive_count_delays_the_move(sqs, queue_factory):
    source, dlq, _, dlq_arn = source_and_dlq(sqs, queue_factory, 1)
    sqs.send_message(QueueUrl=source, MessageBody="m")
    receive_one(sqs, source, VisibilityTimeout=0)
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 3)})
    receive_one(sqs, source, VisibilityTimeout=0)
    receive_one(sqs, source, VisibilityTimeout=0)
    assert receive(sqs, source) == []
    assert counts(sqs, source) == (0, 0, 0)
    assert counts(sqs, dlq) == (1, 0, 0)


# ---------------------------------------------------------------- RedrivePolicy rendering


def test_redrive_policy_rendered_compact_with_numeric_count(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq")
    dlq_arn = arn_of(sqs, dlq)
    # Sent with spaces, keys reversed and the count as a string (as AWS's CLI examples do).
    sent = json.dumps({"maxReceiveCount": "5", "deadLetterTargetArn": dlq_arn})
    source = queue_factory(prefix="src", attributes={"RedrivePolicy": sent})
    assert queue_attrs(sqs, source, "RedrivePolicy") == {"RedrivePolicy": compact_policy(dlq_arn, 5)}
    assert queue_attrs(sqs, source)["RedrivePolicy"] == compact_policy(dlq_arn, 5)

    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 1000)})
    rendered = queue_attrs(sqs, source, "RedrivePolicy")["RedrivePolicy"]
    assert rendered == compact_policy(dlq_arn, 1000)
    assert json.loads(rendered)["maxReceiveCount"] == 1000


def test_redrive_allow_policy_rendered(sqs, queue_factory):
    src_arn = f"arn:aws:sqs:{DEFAULT_REGION}:{DEFAULT_ACCOUNT}:{unique_name('src')}"
    compact = f'{{"redrivePermission":"byQueue","sourceQueueArns":["{src_arn}"]}}'
    dlq = queue_factory(prefix="dlq", attributes={"RedriveAllowPolicy": compact})
    assert queue_attrs(sqs, dlq, "RedriveAllowPolicy") == {"RedriveAllowPolicy": compact}
    for permission in ("denyAll", "allowAll"):
        value = f'{{"redrivePermission":"{permission}"}}'
        sqs.set_queue_attributes(QueueUrl=dlq, Attributes={"RedriveAllowPolicy": value})
        assert queue_attrs(sqs, dlq)["RedriveAllowPolicy"] == value


def test_no_redrive_attributes_by_default(sqs, queue):
    attrs = queue_attrs(sqs, queue)
    assert "RedrivePolicy" not in attrs
    assert "RedriveAllowPolicy" not in attrs


# ---------------------------------------------------------------- RedrivePolicy validation


def _bad_policies(dlq_arn):
    missing = f"arn:aws:sqs:{DEFAULT_REGION}:{DEFAULT_ACCOUNT}:{unique_name('missing')}"
    return {
        "bad-arn": (
            json.dumps({"deadLetterTargetArn": "dummy", "maxReceiveCount": 42}),
            "Invalid value for deadLetterTargetArn.",
        ),
        "missing-count": (
            json.dumps({"deadLetterTargetArn": dlq_arn}),
            "Redrive policy does not contain mandatory attribute: maxReceiveCount.",
        ),
        "missing-arn": (
            json.dumps({"maxReceiveCount": 5}),
            "Redrive policy does not contain mandatory attribute: deadLetterTargetArn.",
        ),
        "empty-map": ("{}", "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
        "count-0": (
            redrive_policy(dlq_arn, 0),
            "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive.",
        ),
        "count-1001": (
            redrive_policy(dlq_arn, 1001),
            "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive.",
        ),
        "no-target": (redrive_policy(missing, 3), "Dead letter target does not exist."),
    }


BAD_POLICY_CASES = ["bad-arn", "missing-count", "missing-arn", "empty-map", "count-0", "count-1001", "no-target"]


@pytest.mark.parametrize("case", BAD_POLICY_CASES)
def test_redrive_policy_validation_on_create(sqs, queue_factory, case):
    dlq_arn = arn_of(sqs, queue_factory(prefix="dlq"))
    value, reason = _bad_policies(dlq_arn)[case]
    name = unique_name("src")
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        Attributes={"RedrivePolicy": value},
        message=policy_error(value, reason),
        **INVALID_PARAMETER,
    )
    # Nothing was created.
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)


@pytest.mark.parametrize("case", BAD_POLICY_CASES)
def test_redrive_policy_validation_on_set(sqs, queue_factory, case):
    dlq_arn = arn_of(sqs, queue_factory(prefix="dlq"))
    source = queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn, 4)})
    value, reason = _bad_policies(dlq_arn)[case]
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=source,
        Attributes={"RedrivePolicy": value},
        message=policy_error(value, reason),
        **INVALID_PARAMETER,
    )
    # The previous policy is untouched.
    assert queue_attrs(sqs, source, "RedrivePolicy")["RedrivePolicy"] == compact_policy(dlq_arn, 4)


@pytest.mark.parametrize("value", ["not json", "[]", "4", '"text"'], ids=["text", "list", "number", "string"])
def test_redrive_policy_not_json(sqs, queue_factory, value):
    name = unique_name("src")
    message = "Invalid value for the parameter RedrivePolicy. Reason: Redrive policy is not a valid JSON map."
    expect_malformed(sqs, sqs.create_queue, message, QueueName=name, Attributes={"RedrivePolicy": value})
    source = queue_factory(prefix="src")
    expect_malformed(sqs, sqs.set_queue_attributes, message, QueueUrl=source, Attributes={"RedrivePolicy": value})
    assert "RedrivePolicy" not in queue_attrs(sqs, source)


@pytest.mark.parametrize(
    "where, reason",
    [
        ("region", "Dead-letter target must be in same region as the source."),
        ("account", "Dead-letter target owner should be same as the source."),
    ],
    ids=["region", "account"],
)
def test_redrive_policy_target_in_other_region_or_account(sqs, queue_factory, make_client, where, reason):
    name = unique_name("dlq")
    if where == "region":
        other = make_client(region="eu-west-1")
        expected_arn = f"arn:aws:sqs:eu-west-1:{DEFAULT_ACCOUNT}:{name}"
    else:
        other = make_client(access_key="111111111111")
        expected_arn = f"arn:aws:sqs:{DEFAULT_REGION}:111111111111:{name}"
    arn = arn_of(other, queue_factory(name, client=other))
    assert arn == expected_arn
    value = redrive_policy(arn, 3)
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("src"),
        Attributes={"RedrivePolicy": value},
        message=policy_error(value, reason),
        **INVALID_PARAMETER,
    )


def test_deleted_target_cannot_be_named(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq")
    dlq_arn = arn_of(sqs, dlq)
    sqs.delete_queue(QueueUrl=dlq)
    value = redrive_policy(dlq_arn, 2)
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=unique_name("src"),
        Attributes={"RedrivePolicy": value},
        message=policy_error(value, "Dead letter target does not exist."),
        **INVALID_PARAMETER,
    )


# ---------------------------------------------------------------- RedriveAllowPolicy


def test_redrive_allow_policy_deny_all(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq", attributes={"RedriveAllowPolicy": '{"redrivePermission":"denyAll"}'})
    dlq_arn = arn_of(sqs, dlq)
    name = unique_name("src")
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 2)},
        **INVALID_PARAMETER,
    )
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
    source = queue_factory(prefix="src")
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=source,
        Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 2)},
        **INVALID_PARAMETER,
    )
    assert "RedrivePolicy" not in queue_attrs(sqs, source)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq).get("queueUrls", []) == []


def test_redrive_allow_policy_by_queue(sqs, queue_factory):
    allowed_name, denied_name = unique_name("ok"), unique_name("no")
    allowed_arn = f"arn:aws:sqs:{DEFAULT_REGION}:{DEFAULT_ACCOUNT}:{allowed_name}"
    allow = json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": [allowed_arn]})
    dlq = queue_factory(prefix="dlq", attributes={"RedriveAllowPolicy": allow})
    dlq_arn = arn_of(sqs, dlq)

    allowed = queue_factory(allowed_name, attributes={"RedrivePolicy": redrive_policy(dlq_arn, 1)})
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=denied_name,
        Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 1)},
        **INVALID_PARAMETER,
    )
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [allowed]

    # The allowed source really dead-letters into the DLQ.
    sqs.send_message(QueueUrl=allowed, MessageBody="m")
    receive_one(sqs, allowed, VisibilityTimeout=0)
    assert receive(sqs, allowed) == []
    assert counts(sqs, dlq) == (1, 0, 0)


def test_redrive_allow_policy_allow_all_and_change(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq", attributes={"RedriveAllowPolicy": '{"redrivePermission":"denyAll"}'})
    dlq_arn = arn_of(sqs, dlq)
    source = queue_factory(prefix="src")
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=source,
        Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 2)},
        **INVALID_PARAMETER,
    )
    sqs.set_queue_attributes(QueueUrl=dlq, Attributes={"RedriveAllowPolicy": '{"redrivePermission":"allowAll"}'})
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": redrive_policy(dlq_arn, 2)})
    assert queue_attrs(sqs, source, "RedrivePolicy")["RedrivePolicy"] == compact_policy(dlq_arn, 2)


def test_redrive_allow_policy_removed_with_empty_string(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq", attributes={"RedriveAllowPolicy": '{"redrivePermission":"denyAll"}'})
    sqs.set_queue_attributes(QueueUrl=dlq, Attributes={"RedriveAllowPolicy": ""})
    assert "RedriveAllowPolicy" not in queue_attrs(sqs, dlq)
    # Back to the default, allowAll.
    queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(arn_of(sqs, dlq), 2)})


def test_redrive_allow_policy_validation(sqs, queue_factory):
    prefix = "Amazon SQS can't create the redrive allow policy"
    arns = [f"arn:aws:sqs:{DEFAULT_REGION}:{DEFAULT_ACCOUNT}:q{i}" for i in range(11)]
    unsupported = (
        f"Invalid value for the parameter RedriveAllowPolicy. Reason: {prefix}, as it\u2019s in an unsupported format."
    )
    for value in ("not json", "{}", '{"redrivePermission":"dummy"}'):
        expect_malformed(
            sqs, sqs.create_queue, unsupported, QueueName=unique_name("dlq"), Attributes={"RedriveAllowPolicy": value}
        )
    cases = [
        (
            '{"redrivePermission":"byQueue"}',
            f"{prefix}. When you specify the byQueue permission type, you must also specify one or more "
            "sourceQueueArns values.",
        ),
        (
            json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": arns}),
            f"{prefix}. The maximum number of source queue ARNs you can specify is 10.",
        ),
        (
            json.dumps({"redrivePermission": "allowAll", "sourceQueueArns": arns[:1]}),
            f"{prefix}. To specify one or more source queue ARNs, you must set redrivePermission to byQueue.",
        ),
    ]
    dlq = queue_factory(prefix="dlq")
    for value, reason in cases:
        message = f"Value {value} for parameter RedriveAllowPolicy is invalid. Reason: {reason}"
        expect_error(
            sqs,
            sqs.create_queue,
            QueueName=unique_name("dlq"),
            Attributes={"RedriveAllowPolicy": value},
            message=message,
            **INVALID_PARAMETER,
        )
        expect_error(
            sqs,
            sqs.set_queue_attributes,
            QueueUrl=dlq,
            Attributes={"RedriveAllowPolicy": value},
            message=message,
            **INVALID_PARAMETER,
        )
    assert "RedriveAllowPolicy" not in queue_attrs(sqs, dlq)
    # Exactly 10 ARNs is fine.
    ten = json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": arns[:10]})
    sqs.set_queue_attributes(QueueUrl=dlq, Attributes={"RedriveAllowPolicy": ten})


# ---------------------------------------------------------------- ListDeadLetterSourceQueues


def test_list_dead_letter_source_queues(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq")
    dlq_arn = arn_of(sqs, dlq)
    sources = [queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn, 3)}) for _ in range(3)]
    queue_factory(prefix="other")  # no policy: not listed
    other_dlq = queue_factory(prefix="dlq2")
    queue_factory(prefix="src2", attributes={"RedrivePolicy": redrive_policy(arn_of(sqs, other_dlq), 3)})

    resp = sqs.list_dead_letter_source_queues(QueueUrl=dlq)
    assert sorted(resp["queueUrls"]) == sorted(sources)
    assert "NextToken" not in resp

    # A queue nobody names as its DLQ has no sources.
    assert sqs.list_dead_letter_source_queues(QueueUrl=sources[0]).get("queueUrls", []) == []


def test_list_dead_letter_source_queues_pagination(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq")
    dlq_arn = arn_of(sqs, dlq)
    sources = [queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn, 3)}) for _ in range(5)]

    first = sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=2)
    assert len(first["queueUrls"]) == 2
    assert first.get("NextToken")
    second = sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=2, NextToken=first["NextToken"])
    assert len(second["queueUrls"]) == 2
    assert second.get("NextToken")
    third = sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=2, NextToken=second["NextToken"])
    assert len(third["queueUrls"]) == 1
    assert not third.get("NextToken")
    seen = first["queueUrls"] + second["queueUrls"] + third["queueUrls"]
    assert sorted(seen) == sorted(sources)

    # Exactly one page: no NextToken.
    whole = sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=5)
    assert sorted(whole["queueUrls"]) == sorted(sources)
    assert not whole.get("NextToken")

    paged = []
    paginator = sqs.get_paginator("list_dead_letter_source_queues")
    for page in paginator.paginate(QueueUrl=dlq, PaginationConfig={"PageSize": 2}):
        paged.extend(page.get("queueUrls", []))
    assert sorted(paged) == sorted(sources)


def test_list_dead_letter_source_queues_forgets_deleted_sources(sqs, queue_factory):
    dlq = queue_factory(prefix="dlq")
    dlq_arn = arn_of(sqs, dlq)
    keep = queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn, 3)})
    gone = queue_factory(prefix="src", attributes={"RedrivePolicy": redrive_policy(dlq_arn, 3)})
    sqs.delete_queue(QueueUrl=gone)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [keep]


def test_list_dead_letter_source_queues_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.list_dead_letter_source_queues, QueueUrl=url, **QUEUE_DOES_NOT_EXIST)


@pytest.mark.parametrize("max_results", [-1, 1001])
def test_list_dead_letter_source_queues_max_results_out_of_range(sqs_unchecked, queue_factory, max_results):
    dlq = queue_factory(prefix="dlq")
    expect_error(
        sqs_unchecked,
        sqs_unchecked.list_dead_letter_source_queues,
        QueueUrl=dlq,
        MaxResults=max_results,
        message_contains="MaxResults",
        **INVALID_PARAMETER,
    )
