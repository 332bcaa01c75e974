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
