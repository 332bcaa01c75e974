"""Validation of request values as SQS does it (docs/sqs-reference.md 1.1-1.10)."""

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any, overload

from emulator import limits
from emulator.errors import SqsError, invalid_parameter

QUEUE_NAME = re.compile(r"[A-Za-z0-9_-]{1,80}")
FIFO_QUEUE_NAME = re.compile(r"[A-Za-z0-9_-]{1,75}\.fifo")
BATCH_ENTRY_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
# Letters and digits of any script (AWS accepts "attr.1øßä"), underscore, hyphen, period.
ATTRIBUTE_NAME = re.compile(r"[\w.-]{1,256}")
# Characters outside XML 1.0's set: AWS rejects a body holding any of them.
INVALID_CHARACTER = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
ALLOWED_CHARACTERS = "#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
DATA_TYPES = ("String", "Number", "Binary")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# The ASCII characters of that set: an ASCII body of only these (nearly every body) is
# checked by deleting them, about four times faster than INVALID_CHARACTER's search.
_ALLOWED_ASCII = bytes((0x09, 0x0A, 0x0D, *range(0x20, 0x80)))


@overload
def int_in_range(params: dict, name: str, low: int, high: int, default: int) -> int: ...
@overload
def int_in_range(params: dict, name: str, low: int, high: int, default: None = None) -> int | None: ...
def int_in_range(params: dict, name: str, low: int, high: int, default: int | None = None) -> int | None:
    value = params.get(name, default)
    if value is not None and not low <= value <= high:
        raise invalid_parameter(
            f"Value {value} for parameter {name} is invalid. Reason: Must be between {low} and {high}, if provided."
        )
    return value


def queue_name(name: str, fifo: bool) -> None:
    if fifo and not FIFO_QUEUE_NAME.fullmatch(name):
        raise invalid_parameter(
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, "
            "must end with .fifo suffix and be 1 to 80 in length."
        )
    if not fifo and not QUEUE_NAME.fullmatch(name):
        # A .fifo name without FifoQueue=true lands here too, as on AWS.
        raise invalid_parameter("Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")


def body(text: str | None) -> bytes:
    """The message body, checked, as its UTF-8 bytes (which its size and digest are of)."""
    if not text:
        raise SqsError("MissingParameter", "The request must contain the parameter MessageBody.")
    if text.isascii():
        encoded = text.encode("ascii")
        if not encoded.translate(None, _ALLOWED_ASCII):
            return encoded
    bad = INVALID_CHARACTER.search(text)
    if bad:
        raise SqsError(
            "InvalidMessageContents",
            f"Invalid binary character '#x{ord(bad.group()):X}' was found in the message body, "
            f"the set of allowed characters is {ALLOWED_CHARACTERS}",
        )
    return text.encode()


def message_attributes(attributes: dict[str, dict[str, Any]]) -> int:
    """Check user message attributes; return their size in bytes (counted against the message size)."""
    if len(attributes) > limits.MAX_MESSAGE_ATTRIBUTES:
        raise invalid_parameter(
            f"Number of message attributes [{len(attributes)}] exceeds the allowed maximum [{limits.MAX_MESSAGE_ATTRIBUTES}]."
        )
    size = 0
    for name, value in attributes.items():
        _attribute_name(name)
        size += len(name.encode()) + _attribute_value(name, value)
    return size


def _attribute_name(name: str) -> None:
    if not name:
        raise invalid_parameter("The request must contain non-empty message (user) attribute names.")
    if len(name.encode()) > 256:
        raise invalid_parameter("Message (user) attribute name must be shorter than 256 bytes.")
    if name.lower().startswith(("aws.", "amazon.")):
        raise invalid_parameter(
            "You can't use message attribute names beginning with 'AWS.' or 'Amazon'. "
            "These strings are reserved for internal use."
        )
    if not ATTRIBUTE_NAME.fullmatch(name) or name.startswith(".") or name.endswith(".") or ".." in name:
        # AWS's own wording, trailing space included.
        raise invalid_parameter(
            "Message (user) attributes name can only contain upper and lower score characters, "
            "digits, periods, hyphens and underscores. "
        )


def _attribute_value(name: str, value: dict[str, Any]) -> int:
    data_type = value.get("DataType")
    if value.get("StringListValues") or value.get("BinaryListValues"):
        raise invalid_parameter("Message attribute list values in SendMessage operation are not supported.")
    if not data_type:
        raise invalid_parameter(
            f"The message (user) attribute '{name}' must contain a non-empty message attribute type."
        )
    if len(data_type.encode()) > 256:
        raise invalid_parameter("Message (user) attribute type must be shorter than 256 bytes.")
    base = data_type.split(".", 1)[0]
    if base not in DATA_TYPES or INVALID_CHARACTER.search(data_type):
        raise invalid_parameter(
            f"The type of message (user) attribute '{name}' is invalid. "
            "You must use only the following supported type prefixes: Binary, Number, String."
        )
    content = value.get("BinaryValue" if base == "Binary" else "StringValue")
    if not content:
        raise invalid_parameter(f"Message (user) attribute '{name}' must contain a non-empty value of type '{base}'.")
    if base == "Number":
        _number(name, content)
    elif base == "String" and INVALID_CHARACTER.search(content):
        # InvalidMessageContents is for bodies; a bad attribute value is a bad parameter.
        raise invalid_parameter(
            f"Invalid binary character in the message attribute '{name}', "
            f"the set of allowed characters is {ALLOWED_CHARACTERS}"
        )
    encoded = content if isinstance(content, bytes) else content.encode()
    return len(data_type.encode()) + len(encoded)


def _number(name: str, text: str) -> None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or len(number.as_tuple().digits) > 38:
        raise invalid_parameter(f"Can't cast the value of message (user) attribute '{name}' to a number.")
    if number != 0 and not Decimal("1e-128") <= abs(number) <= Decimal("1e126"):
        raise invalid_parameter(f"Value of message (user) attribute '{name}' is out of range.")


def system_attributes(attributes: dict[str, dict[str, Any]]) -> None:
    for name, value in attributes.items():
        if name != "AWSTraceHeader":
            raise invalid_parameter(f"Message system attribute name '{name}' is invalid.")
        if value.get("DataType") != "String" or not value.get("StringValue"):
            raise invalid_parameter(
                f"Message system attribute '{name}' must contain a non-empty value of type 'String'."
            )


def batch_entries(entries: list[dict[str, Any]], entry_shape: str) -> None:
    """The whole-request batch rules: not empty, at most 10, ids well formed and distinct."""
    if not entries:
        raise SqsError("EmptyBatchRequest", f"There should be at least one {entry_shape} in the request.")
    if len(entries) > limits.MAX_BATCH_ENTRIES:
        raise SqsError(
            "TooManyEntriesInBatchRequest",
            f"Maximum number of entries per request are {limits.MAX_BATCH_ENTRIES}. You have sent {len(entries)}.",
        )
    seen = set()
    for entry in entries:
        entry_id = entry.get("Id", "")
        if not BATCH_ENTRY_ID.fullmatch(entry_id):
            raise SqsError(
                "InvalidBatchEntryId",
                "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
                "It can be at most 80 letters long.",
            )
        if entry_id in seen:
            raise SqsError("BatchEntryIdsNotDistinct", f"Id {entry_id} repeated.")
        seen.add(entry_id)


def tags(tags: dict[str, str]) -> None:
    if tags:
        tag_keys(tags)
    for key, value in tags.items():
        if len(value) > limits.MAX_TAG_VALUE_LENGTH or key.lower().startswith("aws:"):
            raise invalid_parameter(f"Tag key or value is invalid: {key!r}.")


def tag_keys(keys) -> None:
    """TagQueue's and UntagQueue's keys: at least one, each 1 to 128 characters (issue 18, AWS-recorded)."""
    if not keys or not all(1 <= len(key or "") <= limits.MAX_TAG_KEY_LENGTH for key in keys):
        raise invalid_parameter("Tag keys must be between 1 and 128 characters in length.")


# 1 to 128 letters, digits and ASCII punctuation: MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId.
FIFO_TOKEN = re.compile(r"""[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}""")


def group_or_dedup_id(name: str, value: str) -> None:
    if not FIFO_TOKEN.fullmatch(value):
        raise invalid_parameter(
            f"Value {value} for parameter {name} is invalid. "
            f"Reason: {name} can only include alphanumeric and punctuation characters. 1 to 128 in length."
        )


def receive_request_attempt_id(value: str) -> None:
    group_or_dedup_id("ReceiveRequestAttemptId", value)


def utf8_size(text: str) -> int:
    """The UTF-8 length of a text that may still hold a lone surrogate (its own check refuses it)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def no_lone_surrogates(params: dict) -> None:
    """Refuse a lone UTF-16 surrogate (a JSON "\\ud800" escape) anywhere in a request.

    No UTF-8 text holds one, so it could be neither stored nor answered. Bodies and
    message attribute values are left to their own checks, which give AWS's errors
    for any character outside XML's set; everything else is refused here, before
    the operation runs, in the error of its parameter.
    """
    if not _any_lone_surrogate(params):  # nearly every request: no paths built
        return
    for path, text, is_key in _strings(params, ()):
        bad = LONE_SURROGATE.search(text)
        if bad is None or (not is_key and path[-1] == "MessageBody"):
            continue
        if not is_key and path[-1] == "StringValue" and "MessageAttributes" in path:
            continue
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        if path[0] == "Attributes":
            if is_key:
                raise SqsError("InvalidAttributeName", f"Unknown Attribute {shown}.")
            raise SqsError("InvalidAttributeValue", f"Invalid value for the parameter {path[1]}.")
        where = ".".join(part.encode("utf-8", "backslashreplace").decode("utf-8") for part in path)
        raise invalid_parameter(
            f"Value {shown} for parameter {where} is invalid. Reason: Invalid binary character "
            f"'#x{ord(bad.group()):X}' was found, the set of allowed characters is {ALLOWED_CHARACTERS}"
        )


def _any_lone_surrogate(node: Any) -> bool:
    # Plain loops, strings looked at in place, and ASCII text (nearly all) not searched.
    if isinstance(node, str):
        return not node.isascii() and LONE_SURROGATE.search(node) is not None
    if isinstance(node, dict):
        for key, value in node.items():
            if not key.isascii() and LONE_SURROGATE.search(key) is not None:
                return True
            if isinstance(value, str):
                if not value.isascii() and LONE_SURROGATE.search(value) is not None:
                    return True
            elif _any_lone_surrogate(value):
                return True
        return False
    if isinstance(node, list):
        for value in node:
            if _any_lone_surrogate(value):
                return True
    return False


def _strings(node: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, bool]]:
    """(path, text, whether it is a map key) of every string in params."""
    if isinstance(node, str):
        yield path, node, False
    elif isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), key, True
            yield from _strings(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node, 1):
            yield from _strings(value, (*path, str(index)))
