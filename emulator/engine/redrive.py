"""Dead-letter settings: the RedrivePolicy and RedriveAllowPolicy formats.

Both are JSON strings. They are checked here on their own; whether the target
exists and allows the source is the broker's question, since it sees all queues.
"""

import json
import re
from typing import NamedTuple

from emulator.errors import SqsError, invalid_parameter

ARN = re.compile(r"arn:aws:sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)")
MAX_RECEIVE_COUNT = 1000
MAX_SOURCE_ARNS = 10
PERMISSIONS = ("allowAll", "denyAll", "byQueue")


class RedrivePolicy(NamedTuple):
    target_arn: str
    max_receive_count: int


class RedriveAllowPolicy(NamedTuple):
    permission: str
    source_arns: tuple[str, ...]

    def allows(self, source_arn: str) -> bool:
        return self.permission == "allowAll" or (self.permission == "byQueue" and source_arn in self.source_arns)


def _invalid(name: str, value: str, reason: str) -> SqsError:
    return invalid_parameter(f"Value {value} for parameter {name} is invalid. Reason: {reason}")


def _json_object(name: str, value: str) -> dict:
    try:
        parsed = json.loads(value)
    except ValueError:
        raise _invalid(name, value, f"{name} must be a valid JSON object.") from None
    if not isinstance(parsed, dict):
        raise _invalid(name, value, f"{name} must be a valid JSON object.")
    return parsed


def parse_redrive_policy(value: str) -> RedrivePolicy:
    policy = _json_object("RedrivePolicy", value)
    arn, count = policy.get("deadLetterTargetArn"), policy.get("maxReceiveCount")
    if arn is None or count is None:
        raise _invalid(
            "RedrivePolicy", value, "Redrive policy does not contain mandatory attribute: "
            + ("deadLetterTargetArn." if arn is None else "maxReceiveCount.")
        )
    if not isinstance(arn, str) or not ARN.fullmatch(arn):
        raise _invalid("RedrivePolicy", value, "Invalid value for deadLetterTargetArn.")
    try:
        count = int(count)  # AWS accepts the count as a number or a numeric string
    except (TypeError, ValueError):
        count = None
    if count is None or not 1 <= count <= MAX_RECEIVE_COUNT:
        raise _invalid(
            "RedrivePolicy",
            value,
            f"Invalid value for maxReceiveCount: {policy['maxReceiveCount']}, "
            f"valid values are from 1 to {MAX_RECEIVE_COUNT} both inclusive.",
        )
    return RedrivePolicy(arn, count)


def render_redrive_policy(policy: RedrivePolicy) -> str:
    return json.dumps({"deadLetterTargetArn": policy.target_arn, "maxReceiveCount": policy.max_receive_count},
                      separators=(",", ":"))


def parse_redrive_allow_policy(value: str) -> RedriveAllowPolicy:
    policy = _json_object("RedriveAllowPolicy", value)
    permission = policy.get("redrivePermission")
    if permission not in PERMISSIONS:
        raise _invalid("RedriveAllowPolicy", value, "Invalid value for redrivePermission.")
    arns = policy.get("sourceQueueArns")
    if permission == "byQueue":
        if not isinstance(arns, list) or not arns or not all(isinstance(a, str) and ARN.fullmatch(a) for a in arns):
            raise _invalid("RedriveAllowPolicy", value, "Invalid value for sourceQueueArns.")
        if len(arns) > MAX_SOURCE_ARNS:
            raise _invalid(
                "RedriveAllowPolicy", value, f"Maximum number of sourceQueueArns allowed is {MAX_SOURCE_ARNS}."
            )
    elif arns is not None:
        raise _invalid(
            "RedriveAllowPolicy",
            value,
            "Only specify sourceQueueArns with redrivePermission set to byQueue.",
        )
    return RedriveAllowPolicy(permission, tuple(arns or ()))


def render_redrive_allow_policy(policy: RedriveAllowPolicy) -> str:
    body: dict = {"redrivePermission": policy.permission}
    if policy.permission == "byQueue":
        body["sourceQueueArns"] = list(policy.source_arns)
    return json.dumps(body, separators=(",", ":"))
