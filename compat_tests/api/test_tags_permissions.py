"""TagQueue, UntagQueue, ListQueueTags, tags on CreateQueue; AddPermission, RemovePermission."""

import json

import pytest

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    INVALID_PARAMETER,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    queue_attrs,
    unique_name,
)


def test_tags_on_create(sqs, queue_factory):
    url = queue_factory(tags={"team": "core", "env": "test"})
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "core", "env": "test"}


def _tags(sqs, url):
    """ListQueueTags's answer without its metadata."""
    return {k: v for k, v in sqs.list_queue_tags(QueueUrl=url).items() if k != "ResponseMetadata"}


def test_tag_untag_list(sqs, queue):
    # No tags: no Tags member at all (docs/sqs-reference.md section 3).
    assert _tags(sqs, queue) == {}
    sqs.tag_queue(QueueUrl=queue, Tags={"a": "1", "b": "2"})
    assert sqs.list_queue_tags(QueueUrl=queue)["Tags"] == {"a": "1", "b": "2"}
    sqs.tag_queue(QueueUrl=queue, Tags={"a": "one", "c": ""})
    assert sqs.list_queue_tags(QueueUrl=queue)["Tags"] == {"a": "one", "b": "2", "c": ""}
    sqs.untag_queue(QueueUrl=queue, TagKeys=["b", "not-there"])
    assert sqs.list_queue_tags(QueueUrl=queue)["Tags"] == {"a": "one", "c": ""}
    sqs.untag_queue(QueueUrl=queue, TagKeys=["a", "c"])
    assert _tags(sqs, queue) == {}


def test_tags_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(sqs, sqs.list_queue_tags, QueueUrl=url, **QUEUE_DOES_NOT_EXIST)
    expect_error(sqs, sqs.tag_queue, QueueUrl=url, Tags={"a": "b"}, **QUEUE_DOES_NOT_EXIST)
    expect_error(sqs, sqs.untag_queue, QueueUrl=url, TagKeys=["a"], **QUEUE_DOES_NOT_EXIST)


TAG_KEY_LENGTH = "Tag keys must be between 1 and 128 characters in length."


@pytest.mark.parametrize("key", ["", "k" * 129], ids=["empty", "129-chars"])
def test_tag_keys_are_1_to_128_characters(sqs_unchecked, queue, key):
    """AWS-recorded (issue 18, item 7); a 128-character key is fine (docs/sqs-reference.md 1.5)."""
    sqs = sqs_unchecked
    expect_error(sqs, sqs.tag_queue, QueueUrl=queue, Tags={key: "v"}, **INVALID_PARAMETER, message=TAG_KEY_LENGTH)
    expect_error(sqs, sqs.untag_queue, QueueUrl=queue, TagKeys=[key], **INVALID_PARAMETER, message=TAG_KEY_LENGTH)
    sqs.tag_queue(QueueUrl=queue, Tags={"k" * 128: "v"})
    sqs.untag_queue(QueueUrl=queue, TagKeys=["k" * 128])
    assert _tags(sqs, queue) == {}


def test_untag_with_no_keys_is_refused(sqs_unchecked, queue):
    """AWS-recorded (issue 18, item 7): the same wording as a key of the wrong length."""
    sqs = sqs_unchecked
    expect_error(sqs, sqs.untag_queue, QueueUrl=queue, TagKeys=[], **INVALID_PARAMETER, message=TAG_KEY_LENGTH)


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _statements(sqs, url):
    policy = queue_attrs(sqs, url, "Policy").get("Policy")
    if policy is None:
        return {}
    doc = json.loads(policy)
    assert doc.get("Version") in ("2008-10-17", "2012-10-17")
    return {s["Sid"]: s for s in doc.get("Statement", [])}


def test_add_and_remove_permission(sqs, queue):
    arn = queue_attrs(sqs, queue, "QueueArn")["QueueArn"]
    sqs.add_permission(
        QueueUrl=queue,
        Label="grant-1",
        AWSAccountIds=["111111111111", "222222222222"],
        Actions=["SendMessage", "ReceiveMessage"],
    )
    statements = _statements(sqs, queue)
    assert set(statements) == {"grant-1"}
    stmt = statements["grant-1"]
    assert stmt["Effect"] == "Allow"
    assert stmt["Resource"] == arn
    assert sorted(_as_list(stmt["Principal"]["AWS"])) == [
        "arn:aws:iam::111111111111:root",
        "arn:aws:iam::222222222222:root",
    ]
    assert sorted(_as_list(stmt["Action"])) == ["SQS:ReceiveMessage", "SQS:SendMessage"]

    sqs.add_permission(QueueUrl=queue, Label="grant-2", AWSAccountIds=["333333333333"], Actions=["*"])
    assert set(_statements(sqs, queue)) == {"grant-1", "grant-2"}

    sqs.remove_permission(QueueUrl=queue, Label="grant-1")
    assert set(_statements(sqs, queue)) == {"grant-2"}
    sqs.remove_permission(QueueUrl=queue, Label="grant-2")
    assert _statements(sqs, queue) == {}


def test_add_permission_duplicate_label(sqs, queue):
    sqs.add_permission(QueueUrl=queue, Label="dup", AWSAccountIds=["111111111111"], Actions=["SendMessage"])
    expect_error(
        sqs,
        sqs.add_permission,
        QueueUrl=queue,
        Label="dup",
        AWSAccountIds=["111111111111"],
        Actions=["ReceiveMessage"],
        **INVALID_PARAMETER,
    )


def test_remove_unknown_permission(sqs, queue):
    expect_error(sqs, sqs.remove_permission, QueueUrl=queue, Label="never-added", **INVALID_PARAMETER)


def test_permission_missing_queue(sqs, endpoint):
    url = f"{endpoint}/{DEFAULT_ACCOUNT}/{unique_name('missing')}"
    expect_error(
        sqs,
        sqs.add_permission,
        QueueUrl=url,
        Label="x",
        AWSAccountIds=["111111111111"],
        Actions=["SendMessage"],
        **QUEUE_DOES_NOT_EXIST,
    )


OVER_LIMIT = {"code": "OverLimit", "status": 403, "shape": "OverLimit"}
SHAREABLE = [
    "ChangeMessageVisibility",
    "DeleteMessage",
    "GetQueueAttributes",
    "GetQueueUrl",
    "ListDeadLetterSourceQueues",
    "PurgeQueue",
    "ReceiveMessage",
]


def test_add_permission_allows_at_most_7_actions_counted_first(sqs, queue):
    """AWS-recorded (issue 18, item 6): the count is checked before the actions themselves,
    so 8 actions of which one is the owner's alone are still 'OverLimit'."""
    sqs.add_permission(QueueUrl=queue, Label="seven", AWSAccountIds=["111111111111"], Actions=SHAREABLE)
    assert len(_as_list(_statements(sqs, queue)["seven"]["Action"])) == 7
    expect_error(
        sqs,
        sqs.add_permission,
        QueueUrl=queue,
        Label="eight",
        AWSAccountIds=["111111111111"],
        Actions=[*SHAREABLE, "DeleteQueue"],
        **OVER_LIMIT,
        message="8 Actions were found, maximum allowed is 7.",
    )
    assert set(_statements(sqs, queue)) == {"seven"}


@pytest.mark.parametrize("action", ["RemovePermission", "AddPermission", "DeleteQueue", "SetQueueAttributes"])
def test_owner_only_actions_cannot_be_granted(sqs, queue, action):
    """AWS-recorded (issue 18, item 6): only *, the message actions, GetQueueAttributes, GetQueueUrl,
    ListDeadLetterSourceQueues and PurgeQueue may be granted to another account."""
    expect_error(
        sqs,
        sqs.add_permission,
        QueueUrl=queue,
        Label="owner-only",
        AWSAccountIds=["111111111111"],
        Actions=["SendMessage", action],
        **INVALID_PARAMETER,
        message=f"Value SQS:{action} for parameter ActionName is invalid. "
        "Reason: Only the queue owner is allowed to invoke this action.",
    )
    assert _statements(sqs, queue) == {}


def _policy(arn, actions):
    statement = {"Sid": "s", "Effect": "Allow", "Principal": {"AWS": "111111111111"}, "Action": actions}
    return json.dumps({"Version": "2012-10-17", "Statement": [{**statement, "Resource": arn}]})


def test_a_policy_statement_names_at_most_7_actions(sqs, queue):
    """A live AWS report quoted in issue 18, item 6: SetQueueAttributes with a Policy whose
    statement names 10 actions is 403 OverLimit, in this wording (no final period)."""
    arn = queue_attrs(sqs, queue, "QueueArn")["QueueArn"]
    ten = [f"SQS:{action}" for action in [*SHAREABLE, "SendMessage", "DeleteQueue", "TagQueue"]]
    expect_error(
        sqs,
        sqs.set_queue_attributes,
        QueueUrl=queue,
        Attributes={"Policy": _policy(arn, ten)},
        **OVER_LIMIT,
        message="10 actions were found in a statement from the submitted policy, max allowed is 7",
    )
    assert _statements(sqs, queue) == {}
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"Policy": _policy(arn, ten[:7])})
    assert len(_statements(sqs, queue)["s"]["Action"]) == 7


@pytest.mark.parametrize(
    "principal, reason",
    [
        ("*", "Unable to verify."),  # AWS's answer in aws/aws-sdk-js#565 (and aws-sdk-core-ruby#138)
        ("arn:aws:iam::111111111111:user/jared", "Unable to verify principal."),  # aws/aws-cli#7416
        ("AIDAJQABLZS4A3QDU576Q", "Unable to verify principal."),  # a user's id: the same issue
    ],
)
def test_add_permission_grants_accounts_only(sqs, queue, principal, reason):
    expect_error(
        sqs,
        sqs.add_permission,
        QueueUrl=queue,
        Label="not-an-account",
        AWSAccountIds=["111111111111", principal],
        Actions=["SendMessage"],
        **INVALID_PARAMETER,
        message=f"Value [{principal}] for parameter PrincipalId is invalid. Reason: {reason}",
    )
    assert _statements(sqs, queue) == {}


def test_add_permission_with_an_empty_account_list(sqs, raw, queue):
    """JSON can send an empty AWSAccountIds: "Value [] for parameter PrincipalId is invalid. Reason:
    Unable to verify.", the wording AWS gives principals it cannot verify (above); moto's suite
    expects it too. The query protocol cannot send an empty list: the parameter is missing."""
    body = {"QueueUrl": queue, "Label": "nobody", "AWSAccountIds": [], "Actions": ["SendMessage"]}
    answer = raw.json_call("AddPermission", body)
    assert (answer.status, answer.header("x-amzn-query-error")) == (400, "InvalidParameterValue;Sender")
    assert answer.json()["message"] == "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify."
    answer = raw.query({"Action": "AddPermission", "QueueUrl": queue, "Label": "nobody", "ActionName.1": "SendMessage"})
    assert (answer.status, answer.xml().findtext("Error/Code")) == (400, "MissingParameter")
    assert _statements(sqs, queue) == {}


def test_create_queue_takes_at_most_50_tags(sqs_unchecked, queue_factory):
    """Issue 38, item 5: CreateQueue refuses a 51st tag as TagQueue does. AWS's quotas page
    (SQSDeveloperGuide/quotas-queues.html, "Queue tag") names 50 a queue; the error is TagQueue's
    (InvalidParameterValue "Too many tags added for queue <name>.", docs/research/aws_facts.md);
    no answer of AWS to CreateQueue with 51 tags is recorded, so the wording is TagQueue's."""
    sqs = sqs_unchecked
    name = unique_name("tags")
    many = {f"k{i}": "v" for i in range(51)}
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        tags=many,
        **INVALID_PARAMETER,
        message=f"Too many tags added for queue {name}.",
    )
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)  # nothing was made
    url = queue_factory(name=name, tags=dict(list(many.items())[:50]))
    assert len(sqs.list_queue_tags(QueueUrl=url)["Tags"]) == 50


def test_create_queue_checks_the_other_counts_aws_limits(sqs_unchecked, queue_factory):
    """Issue 38, item 5, the same class: the counts AWS limits in a queue's attributes hold at
    creation too: 7 actions a Policy statement (issue 18, a live AWS report) and 10 source queues
    a RedriveAllowPolicy names (compat_tests/api/test_dead_letter.py)."""
    sqs = sqs_unchecked
    name = unique_name("counts")
    arn = f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{name}"
    eight = [f"SQS:{action}" for action in [*SHAREABLE, "SendMessage", "DeleteQueue", "TagQueue"]][:8]
    expect_error(
        sqs,
        sqs.create_queue,
        QueueName=name,
        Attributes={"Policy": _policy(arn, eight)},
        **OVER_LIMIT,
        message="8 actions were found in a statement from the submitted policy, max allowed is 7",
    )
    sources = [f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:q{i}" for i in range(11)]
    allow = json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": sources})
    with pytest.raises(sqs.exceptions.ClientError) as refused:
        sqs.create_queue(QueueName=name, Attributes={"RedriveAllowPolicy": allow})
    assert "maximum number of source queue ARNs you can specify is 10" in refused.value.response["Error"]["Message"]
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
