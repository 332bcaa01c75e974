"""Query-protocol wire names that botocore's current (JSON) SQS model lost.

One row per (structure shape, member) whose query name differs from the
member name, transcribed from the last query-protocol model (botocore
1.31.80, sqs/2012-11-05/service-2.json). Members without a row use the
member name, non-flattened, which is also botocore's default.

The same names serve both directions: request keys
(``MessageAttribute.1.Value.StringValue``) and XML response elements
(``<MessageAttribute><Name>..</Name><Value>..</Value></MessageAttribute>``).
"""

from typing import Any, NamedTuple


class Wire(NamedTuple):
    location: str | None = None  # the member's own locationName
    flattened: bool = False
    key: str | None = None  # map key element name (default "key")
    value: str | None = None  # map value element name (default "value")
    list_member: str | None = None  # list element name (default "member")


_LIST = lambda member: Wire(flattened=True, list_member=member)  # noqa: E731
_MAP = lambda location, key="Name": Wire(location, True, key, "Value")  # noqa: E731

QUERY_NAMES: dict[tuple[str, str], Wire] = {
    ("AddPermissionRequest", "AWSAccountIds"): _LIST("AWSAccountId"),
    ("AddPermissionRequest", "Actions"): _LIST("ActionName"),
    ("ChangeMessageVisibilityBatchRequest", "Entries"): _LIST("ChangeMessageVisibilityBatchRequestEntry"),
    ("ChangeMessageVisibilityBatchResult", "Successful"): _LIST("ChangeMessageVisibilityBatchResultEntry"),
    ("ChangeMessageVisibilityBatchResult", "Failed"): _LIST("BatchResultErrorEntry"),
    ("CreateQueueRequest", "Attributes"): _MAP("Attribute"),
    ("CreateQueueRequest", "tags"): _MAP("Tag", key="Key"),
    ("DeleteMessageBatchRequest", "Entries"): _LIST("DeleteMessageBatchRequestEntry"),
    ("DeleteMessageBatchResult", "Successful"): _LIST("DeleteMessageBatchResultEntry"),
    ("DeleteMessageBatchResult", "Failed"): _LIST("BatchResultErrorEntry"),
    ("GetQueueAttributesRequest", "AttributeNames"): _LIST("AttributeName"),
    ("GetQueueAttributesResult", "Attributes"): _MAP("Attribute"),
    ("ListDeadLetterSourceQueuesResult", "queueUrls"): _LIST("QueueUrl"),
    ("ListMessageMoveTasksResult", "Results"): _LIST("ListMessageMoveTasksResultEntry"),
    ("ListQueueTagsResult", "Tags"): _MAP("Tag", key="Key"),
    ("ListQueuesResult", "QueueUrls"): _LIST("QueueUrl"),
    ("Message", "Attributes"): _MAP("Attribute"),
    ("Message", "MessageAttributes"): _MAP("MessageAttribute"),
    # The old model marks these flattened at the member level (old botocore
    # sends Value.StringListValue.1); SQS reserves them for future use anyway.
    ("MessageAttributeValue", "StringListValues"): Wire("StringListValue", True, list_member="StringListValue"),
    ("MessageAttributeValue", "BinaryListValues"): Wire("BinaryListValue", True, list_member="BinaryListValue"),
    ("MessageSystemAttributeValue", "StringListValues"): Wire("StringListValue", True, list_member="StringListValue"),
    ("MessageSystemAttributeValue", "BinaryListValues"): Wire("BinaryListValue", True, list_member="BinaryListValue"),
    ("ReceiveMessageRequest", "AttributeNames"): _LIST("AttributeName"),
    ("ReceiveMessageRequest", "MessageAttributeNames"): _LIST("MessageAttributeName"),
    # Newer than the query protocol; named by analogy with AttributeNames.
    ("ReceiveMessageRequest", "MessageSystemAttributeNames"): _LIST("MessageSystemAttributeName"),
    ("ReceiveMessageResult", "Messages"): _LIST("Message"),
    ("SendMessageBatchRequest", "Entries"): _LIST("SendMessageBatchRequestEntry"),
    ("SendMessageBatchRequestEntry", "MessageAttributes"): _MAP("MessageAttribute"),
    ("SendMessageBatchRequestEntry", "MessageSystemAttributes"): _MAP("MessageSystemAttribute"),
    ("SendMessageBatchResult", "Successful"): _LIST("SendMessageBatchResultEntry"),
    ("SendMessageBatchResult", "Failed"): _LIST("BatchResultErrorEntry"),
    ("SendMessageRequest", "MessageAttributes"): _MAP("MessageAttribute"),
    ("SendMessageRequest", "MessageSystemAttributes"): _MAP("MessageSystemAttribute"),
    ("SetQueueAttributesRequest", "Attributes"): _MAP("Attribute"),
    # No member locationName, but the TagMap shape's own locationName "Tag"
    # wins: old botocore sends Tag.1.Key / Tag.1.Value.
    ("TagQueueRequest", "Tags"): _MAP("Tag", key="Key"),
    ("UntagQueueRequest", "TagKeys"): _LIST("TagKey"),
}

_DEFAULT = Wire()


def wire(shape_name: str, member: str) -> Wire:
    return QUERY_NAMES.get((shape_name, member), _DEFAULT)


def member_name(w: Wire, member: str) -> str:
    """The name of the member's own key / element (botocore: locationName or member name)."""
    return w.location or member


def element_name(w: Wire, member: str) -> str:
    """Where a list's items live, mirroring botocore's QuerySerializer._serialize_type_list.

    Flattened with a list member name: the last name is replaced by it
    (``Entries`` -> ``SendMessageBatchRequestEntry.N``); flattened without:
    ``Name.N``. Not flattened: ``Name.member.N`` (handled by the caller).
    """
    if w.flattened and w.list_member:
        return w.list_member
    return member_name(w, member)


class Member(NamedTuple):
    """One member of a structure with its query names, as the reader and the writer use them."""

    name: str
    shape: Any  # botocore's Shape
    kind: str  # its type_name
    wire: Wire
    own: str  # member_name: its own key or element
    element: str  # element_name: where a list's items live


_MEMBERS: dict[str, list[Member]] = {}


def members(structure: Any) -> list[Member]:
    """A structure shape's members with their names, made once per shape: every request
    and response walks them (a batch, ten times)."""
    found = _MEMBERS.get(structure.name)
    if found is None:
        found = _MEMBERS[structure.name] = [
            Member(name, shape, shape.type_name, w, member_name(w, name), element_name(w, name))
            for name, shape in structure.members.items()
            for w in (wire(structure.name, name),)
        ]
    return found
