"""Which Policy statements let another account act on a queue (emulator/api/access.py)."""

import json

import pytest

from emulator.api.access import allows

ARN = "arn:aws:sqs:us-east-1:111111111111:orders"
OTHER = "222222222222"


def _policy(*statements) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def _allow(principal, action="SQS:SendMessage", resource=ARN, **extra) -> dict:
    return {"Effect": "Allow", "Principal": principal, "Action": action, "Resource": resource, **extra}


@pytest.mark.parametrize(
    "statement",
    [
        _allow({"AWS": f"arn:aws:iam::{OTHER}:root"}),
        _allow({"AWS": OTHER}),
        _allow({"AWS": ["arn:aws:iam::333333333333:root", f"arn:aws:iam::{OTHER}:user/bob"]}),
        _allow("*"),
        _allow({"AWS": "*"}, action="sqs:*"),
        _allow({"AWS": OTHER}, action=["sqs:ReceiveMessage", "sqs:send*"], resource="*"),
        _allow({"AWS": OTHER}, resource="arn:aws:sqs:*:111111111111:ord*"),
    ],
)
def test_a_statement_allowing_the_account_the_action_grants(statement):
    assert allows(_policy(statement), OTHER, "SendMessage", ARN)
    assert allows(_policy(statement), OTHER, "SendMessageBatch", ARN)  # the batch needs SendMessage


@pytest.mark.parametrize(
    "policy",
    [
        None,
        "",
        "not json",
        "[" * 5000,
        _policy(_allow({"AWS": "333333333333"})),
        _policy(_allow({"AWS": OTHER}, action="sqs:ReceiveMessage")),
        _policy(_allow({"AWS": OTHER}, resource="arn:aws:sqs:us-east-1:111111111111:other")),
        _policy(_allow({"AWS": OTHER}, Condition={"Bool": {"aws:SecureTransport": "true"}})),
        _policy(_allow({"AWS": OTHER}), {**_allow({"AWS": OTHER}), "Effect": "Deny"}),
        json.dumps({"Statement": 5}),
    ],
)
def test_anything_else_grants_nothing(policy):
    assert not allows(policy, OTHER, "SendMessage", ARN)


def _deny(**parts) -> dict:
    return {"Effect": "Deny", **parts}


GRANT = _allow({"AWS": OTHER}, action="sqs:*")
SOURCE = "arn:aws:sns:us-east-1:111111111111:topic"


@pytest.mark.parametrize(
    "deny",
    [
        _deny(Principal="*", Action="sqs:SendMessage", Condition={"StringEquals": {"aws:PrincipalAccount": OTHER}}),
        _deny(Principal="*", Action="sqs:*", Condition={"StringNotEquals": {"aws:PrincipalAccount": "111111111111"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"ArnNotEquals": {"aws:SourceArn": SOURCE}}),  # absent: passes
        _deny(Principal="*", Action="sqs:*", Condition={"Null": {"aws:SourceAccount": "true"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"ArnLikeIfExists": {"aws:SourceArn": SOURCE}}),
        _deny(NotPrincipal={"AWS": "arn:aws:iam::111111111111:root"}, Action="sqs:SendMessage"),
        _deny(Principal={"AWS": OTHER}, NotAction="sqs:ReceiveMessage"),
        _deny(Principal="*", Action="sqs:*", NotResource="arn:aws:sqs:us-east-1:111111111111:other"),
        # What the emulator cannot read counts as matching (fail closed).
        _deny(Principal="*", Action="sqs:*", Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"Bool": {"aws:SecureTransport": "false"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"ForAnyValue:StringEquals": {"aws:PrincipalAccount": "x"}}),
        _deny(Principal="*", Action="sqs:*", Condition="not a block"),
        _deny(Action="sqs:*"),
        _deny(Principal="*"),
    ],
)
def test_a_deny_that_applies_or_cannot_be_read_wins_over_an_allow(deny):
    assert allows(_policy(GRANT), OTHER, "SendMessage", ARN)
    assert not allows(_policy(GRANT, deny), OTHER, "SendMessage", ARN)


@pytest.mark.parametrize(
    "deny",
    [
        _deny(Principal="*", Action="sqs:*", Condition={"StringEquals": {"aws:PrincipalAccount": "333333333333"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"ArnEquals": {"aws:SourceArn": SOURCE}}),  # absent: fails
        _deny(Principal="*", Action="sqs:*", Condition={"StringLike": {"aws:SourceAccount": "*"}}),
        _deny(Principal="*", Action="sqs:*", Condition={"Null": {"aws:PrincipalAccount": "true"}}),
        _deny(NotPrincipal={"AWS": OTHER}, Action="sqs:*"),
        _deny(Principal={"AWS": OTHER}, NotAction="sqs:Send*"),
        _deny(Principal="*", Action="sqs:*", NotResource=ARN),
        _deny(Principal={"Service": "sns.amazonaws.com"}, Action="sqs:*"),
    ],
)
def test_a_deny_that_surely_does_not_apply_leaves_the_allow(deny):
    assert allows(_policy(GRANT, deny), OTHER, "SendMessage", ARN)


def test_an_allow_it_cannot_read_grants_nothing_and_one_it_can_grants():
    def granted(**parts) -> bool:
        return allows(_policy({"Effect": "Allow", "Principal": {"AWS": OTHER}, **parts}), OTHER, "SendMessage", ARN)

    assert granted(Action="sqs:*", Condition={"StringEquals": {"aws:PrincipalAccount": OTHER}})
    assert not granted(Action="sqs:*", Condition={"ArnEquals": {"aws:SourceArn": SOURCE}})
    assert not granted(Action="sqs:*", Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}})
    assert granted(NotAction="sqs:DeleteQueue")
    assert not granted(NotAction="sqs:SendMessage")
    assert not granted()  # no Action: nothing it can tell
