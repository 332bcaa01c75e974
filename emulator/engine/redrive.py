"""Dead-letter settings: the RedrivePolicy and RedriveAllowPolicy formats.

Both are JSON strings. They are checked here on their own; whether the target
exists and allows the source is the broker's question, since it sees all queues.
"""

import json
import re
from typing import NamedTuple

from emulator import limits
from emulator.errors import SqsError, invalid_parameter

ARN = re.compile(r"arn:aws:sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)")
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


def _unusable(name: str, reason: str) -> SqsError:
    return SqsError("InvalidAttributeValue", f"Invalid value for the parameter {name}. Reason: {reason}")


def json_object(value: str) -> dict | None:
    """The JSON object a policy attribute holds; None for anything else, nesting too deep included."""
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def parse_redrive_policy(value: str) -> RedrivePolicy:
    policy = json_object(value)
    if policy is None:
        raise _unusable("RedrivePolicy", "Redrive policy is not a valid JSON map.")
    for key in ("maxReceiveCount", "deadLetterTargetArn"):
        if key not in policy:
            raise _invalid("RedrivePolicy", value, f"Redrive policy does not contain mandatory attribute: {key}.")
    arn, count = policy["deadLetterTargetArn"], policy["maxReceiveCount"]
    if not isinstance(arn, str) or not ARN.fullmatch(arn):
        raise _invalid("RedrivePolicy", value, "Invalid value for deadLetterTargetArn.")
    try:
        count = int(count)  # AWS accepts the count as a number or a numeric string
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e400 reads as infinity
        count = None
    if count is None or not 1 <= count <= limits.MAX_RECEIVE_COUNT:
        raise _invalid(
            "RedrivePolicy",
            value,
            f"Invalid value for maxReceiveCount: {policy['maxReceiveCount']}, "
            f"valid values are from 1 to {limits.MAX_RECEIVE_COUNT} both inclusive.",
        )
    return RedrivePolicy(arn, count)


def render_redrive_policy(policy: RedrivePolicy) -> str:
    return json.dumps(
        {"deadLetterTargetArn": policy.target_arn, "maxReceiveCount": policy.max_receive_count},
        separators=(",", ":"),
    )


def parse_redrive_allow_policy(value: str) -> RedriveAllowPolicy:
    policy = json_object(value)
    arns = policy.get("sourceQueueArns") if policy else None
    if (
        policy is None
        or policy.get("redrivePermission") not in PERMISSIONS
        or set(policy) - {"redrivePermission", "sourceQueueArns"}
        or (arns is not None and not (isinstance(arns, list) and all(isinstance(a, str) for a in arns)))
    ):
        raise _unusable(
            "RedriveAllowPolicy",
            "Amazon SQS can't create the redrive allow policy, as it\u2019s in an unsupported format.",
        )
    permission = policy["redrivePermission"]
    if permission == "byQueue" and not arns:
        raise _invalid(
            "RedriveAllowPolicy",
            value,
            "Amazon SQS can't create the redrive allow policy. When you specify the byQueue permission type, "
            "you must also specify one or more sourceQueueArns values.",
        )
    if permission != "byQueue" and arns:
        raise _invalid(
            "RedriveAllowPolicy",
            value,
            "Amazon SQS can't create the redrive allow policy. To specify one or more source queue ARNs, "
            "you must set redrivePermission to byQueue.",
        )
    if len(arns or ()) > limits.MAX_REDRIVE_SOURCES:
        raise _invalid(
            "RedriveAllowPolicy",
            value,
            f"Amazon SQS can't create the redrive allow policy. The maximum number of source queue ARNs "
            f"you can specify is {limits.MAX_REDRIVE_SOURCES}.",
        )
    return RedriveAllowPolicy(permission, tuple(arns or ()))


def render_redrive_allow_policy(policy: RedriveAllowPolicy) -> str:
    body: dict = {"redrivePermission": policy.permission}
    if policy.permission == "byQueue":
        body["sourceQueueArns"] = list(policy.source_arns)
    return json.dumps(body, separators=(",", ":"))
