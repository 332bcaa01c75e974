"""Queue attributes: the one table of names, defaults and valid values.

Values are kept as the strings AWS shows them; the queue acts on the typed
Settings read from them when they change. Errors follow AWS's wording for
CreateQueue and SetQueueAttributes (InvalidAttributeName / InvalidAttributeValue).
"""

import re
from collections.abc import Callable
from typing import NamedTuple

from emulator import limits
from emulator.engine import redrive
from emulator.errors import SqsError

_INTEGER = re.compile(r"[+-]?\d{1,10}")


class Setting(NamedTuple):
    default: str | None  # None: absent until set
    valid: Callable[[str], bool]
    # For JSON settings: parse (raising AWS's own error) and render as AWS shows it.
    normalize: Callable[[str], str] | None = None
    fifo_only: bool = False
    # Listed by GetQueueAttributes only while this other attribute is set.
    shown_with: str | None = None


def canonical(name: str, value: str) -> str:
    """The value as the queue stores and shows it."""
    normalize = SETTINGS[name].normalize
    if normalize:
        return normalize(value)
    return value.lower() if SETTINGS[name].valid is _boolean else value


def _int_range(low: int, high: int) -> Callable[[str], bool]:
    return lambda value: bool(_INTEGER.fullmatch(value)) and low <= int(value) <= high


def _policy(value: str) -> bool:
    """An access policy: a JSON object whose Statement, if any, is an object or a list of them."""
    policy = redrive.json_object(value)
    if policy is None:
        return False
    statements = policy.get("Statement", [])
    statements = [statements] if isinstance(statements, dict) else statements
    return isinstance(statements, list) and all(isinstance(s, dict) for s in statements)


def _checked_policy(value: str) -> str:
    """A Policy whose statements each name at most 7 actions, as AWS enforces on
    SetQueueAttributes (issue 18: a live AWS report of the error's wording)."""
    policy = redrive.json_object(value) if value else None  # validated before: an object
    statements = policy.get("Statement", []) if policy else []
    for statement in statements if isinstance(statements, list) else [statements]:
        actions = statement.get("Action", []) if isinstance(statement, dict) else []
        count = len(actions) if isinstance(actions, list) else 1
        if count > limits.MAX_PERMISSION_ACTIONS:
            raise SqsError(
                "OverLimit",
                f"{count} actions were found in a statement from the submitted policy, "
                f"max allowed is {limits.MAX_PERMISSION_ACTIONS}",
            )
    return value


def _boolean(value: str) -> bool:
    return value.lower() in ("true", "false")


def _one_of(*values: str) -> Callable[[str], bool]:
    return lambda value: value in values


SETTINGS: dict[str, Setting] = {
    "DelaySeconds": Setting("0", _int_range(0, limits.MAX_DELAY_SECONDS)),
    "MaximumMessageSize": Setting(
        str(limits.MAX_MESSAGE_SIZE), _int_range(limits.MIN_MESSAGE_SIZE, limits.MAX_MESSAGE_SIZE)
    ),
    "MessageRetentionPeriod": Setting(
        str(limits.DEFAULT_RETENTION_SECONDS),
        _int_range(limits.MIN_RETENTION_SECONDS, limits.MAX_RETENTION_SECONDS),
    ),
    "ReceiveMessageWaitTimeSeconds": Setting("0", _int_range(0, limits.MAX_WAIT_SECONDS)),
    "VisibilityTimeout": Setting(str(limits.DEFAULT_VISIBILITY_TIMEOUT), _int_range(0, limits.MAX_VISIBILITY_TIMEOUT)),
    "Policy": Setting(None, lambda v: v == "" or _policy(v), _checked_policy),
    "KmsMasterKeyId": Setting(None, lambda v: len(v) <= 2048),
    # AWS lists the key reuse period only while a KMS key is set (docs/sqs-reference.md section 3).
    "KmsDataKeyReusePeriodSeconds": Setting(
        "300", _int_range(limits.MIN_KMS_REUSE_SECONDS, limits.MAX_KMS_REUSE_SECONDS), shown_with="KmsMasterKeyId"
    ),
    "SqsManagedSseEnabled": Setting("true", _boolean),
    # An empty string removes a redrive setting.
    "RedrivePolicy": Setting(
        None, lambda v: True, lambda v: v and redrive.render_redrive_policy(redrive.parse_redrive_policy(v))
    ),
    "RedriveAllowPolicy": Setting(
        None,
        lambda v: True,
        lambda v: v and redrive.render_redrive_allow_policy(redrive.parse_redrive_allow_policy(v)),
    ),
    # FIFO queues only; the defaults are what a FIFO queue lists.
    "FifoQueue": Setting("true", _boolean, fifo_only=True),
    "ContentBasedDeduplication": Setting("false", _boolean, fifo_only=True),
    "DeduplicationScope": Setting("queue", _one_of("queue", "messageGroup"), fifo_only=True),
    "FifoThroughputLimit": Setting("perQueue", _one_of("perQueue", "perMessageGroupId"), fifo_only=True),
}

# Computed on read, never set by the caller.
COMPUTED = (
    "QueueArn",
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
)


class Settings(NamedTuple):
    """The attribute values a queue acts on, typed."""

    delay_seconds: int
    visibility_timeout: int
    retention_period: int
    maximum_message_size: int
    receive_wait_seconds: int
    redrive: redrive.RedrivePolicy | None
    redrive_allow: redrive.RedriveAllowPolicy | None
    content_based_deduplication: bool  # FIFO only

    @classmethod
    def of(cls, attributes: dict[str, str]) -> "Settings":
        policy = attributes.get("RedrivePolicy")
        allow = attributes.get("RedriveAllowPolicy")
        return cls(
            delay_seconds=int(attributes["DelaySeconds"]),
            visibility_timeout=int(attributes["VisibilityTimeout"]),
            retention_period=int(attributes["MessageRetentionPeriod"]),
            maximum_message_size=int(attributes["MaximumMessageSize"]),
            receive_wait_seconds=int(attributes["ReceiveMessageWaitTimeSeconds"]),
            redrive=redrive.parse_redrive_policy(policy) if policy else None,
            redrive_allow=redrive.parse_redrive_allow_policy(allow) if allow else None,
            content_based_deduplication=attributes.get("ContentBasedDeduplication") == "true",
        )


def apply(attributes: dict[str, str], changes: dict[str, str]) -> None:
    """Set valid `changes` on a queue's stored attributes, as AWS keeps them."""
    attributes.update({name: canonical(name, value) for name, value in changes.items()})
    if "KmsMasterKeyId" in changes:
        # AWS: choosing a KMS key turns SQS-managed encryption off, for good.
        attributes["SqsManagedSseEnabled"] = "false"
    for name in [name for name, value in attributes.items() if value == ""]:
        del attributes[name]  # an empty Policy or redrive setting removes it


def readable(name: str, fifo: bool) -> bool:
    """Whether GetQueueAttributes may ask for `name`: a FIFO-only name on a standard
    queue is unknown there (AWS, confirmed in aws/aws-sdk-ruby#1350)."""
    if name in COMPUTED:
        return True
    setting = SETTINGS.get(name)
    return setting is not None and (fifo or not setting.fifo_only)


def unknown_attribute(name: str) -> SqsError:
    return SqsError("InvalidAttributeName", f"Unknown Attribute {name}.")


def validate(attributes: dict[str, str], fifo: bool, current: dict[str, str] | None = None) -> None:
    """Check settable attributes for a queue of the given type, raising AWS's error
    for the first bad one. `current` is an existing queue's attributes
    (SetQueueAttributes); None when the queue is being created."""
    for name, value in attributes.items():
        setting = SETTINGS.get(name)
        if setting is None:
            raise unknown_attribute(name)
        if setting.fifo_only and not fifo:
            if name in ("FifoQueue", "ContentBasedDeduplication"):
                raise unknown_attribute(name)
            raise SqsError("InvalidAttributeName", f"You can specify the {name} only when FifoQueue is set to true.")
        if name == "FifoQueue" and current is not None and str(value).lower() != "true":
            # FifoQueue=true on a FIFO queue is a no-op (AWS-recorded).
            raise SqsError(
                "InvalidAttributeValue",
                "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
            )
        if not isinstance(value, str) or not setting.valid(value):
            raise SqsError("InvalidAttributeValue", f"Invalid value for the parameter {name}.")
        canonical(name, value)  # a JSON setting raises its own error
    if fifo:
        merged = {**(current or defaults(fifo)), **attributes}
        if merged["FifoThroughputLimit"] == "perMessageGroupId" and merged["DeduplicationScope"] != "messageGroup":
            raise SqsError(
                "InvalidAttributeValue",
                "Invalid value for the parameter FifoThroughputLimit. Reason: The perMessageGroupId value is "
                "allowed only when the value for DeduplicationScope is messageGroup.",
            )


def shown(attributes: dict[str, str]) -> dict[str, str]:
    """The stored attributes GetQueueAttributes lists."""
    return {
        name: value
        for name, value in attributes.items()
        if name not in SETTINGS or (shown_with := SETTINGS[name].shown_with) is None or attributes.get(shown_with)
    }


def defaults(fifo: bool) -> dict[str, str]:
    return {name: s.default for name, s in SETTINGS.items() if s.default is not None and (fifo or not s.fifo_only)}
