"""Named deviations: where moto departs from AWS's documented behaviour.

Each entry says which outcome paths it may explain (globs over the flattened
outcome: ``status``, ``error.Code``, ``body.Messages.0.MD5OfBody``, ...), why,
the AWS document (or section of docs/sqs-reference.md, which cites
AWS) that proves the emulator right, and what the emulator must show there --
checked on every run where the deviation fires, so a deviation is never just
"they differ". The list describes moto 5.2.6 (pyproject's floor): that release
began refusing a second PurgeQueue within 60 seconds, paging ListQueues and
sending SenderFault as a JSON boolean, so the deviations that said otherwise are
gone; a run's report names any deviation a scenario allows that did not fire.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field

from compat_tests.oracle.engine import ABSENT

REF = "docs/sqs-reference.md"
RESEARCH = "docs/research/aws_facts.md"
DLQ_RESEARCH = "docs/research/aws_dlq_facts.md"
FIFO_RESEARCH = "docs/research/aws_fifo_facts.md"
API = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference"
GUIDE = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide"


@dataclass(frozen=True)
class Deviation:
    name: str
    why: str
    source: str
    paths: tuple
    emulator: object = field(default_factory=dict)  # path -> value/predicate, or callable(flat, protocol) -> [problems]
    ops: tuple = ()  # the emulator check applies to these operations only (all when empty)


def _present(v) -> bool:
    """present"""
    return v is not ABSENT


def _is_true_bool(v) -> bool:
    """boolean true"""
    return v is True


def _md5_of_trace_header(value: str) -> str:
    name, dtype = b"AWSTraceHeader", b"String"
    raw = value.encode()
    buf = (
        struct.pack(">I", len(name))
        + name
        + struct.pack(">I", len(dtype))
        + dtype
        + b"\x01"
        + struct.pack(">I", len(raw))
        + raw
    )
    return hashlib.md5(buf).hexdigest()


TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
TRACE_MD5 = _md5_of_trace_header(TRACE_HEADER)


def _error(code: str, status: int, shape: str | None = None) -> dict:
    out = {"error.Code": code, "status": status, "error.Type": "Sender"}
    if shape:
        out["error.QueryErrorCode"] = shape
    return out


_DEVIATIONS = [
    Deviation(
        "moto-kms-keeps-sse-sqs",
        'moto keeps SqsManagedSseEnabled "true" once a KMS key is set; AWS turns SQS-managed encryption off '
        '("false") and it stays off after the KMS attributes are reset.',
        f"{REF} §2 (Default attributes) and §3 (KMS attributes); LocalStack's test_sse_queue_attributes snapshot "
        'recorded on AWS (KmsMasterKeyId set: SqsManagedSseEnabled "false")',
        ("body.Attributes.SqsManagedSseEnabled",),
        {"body.Attributes.SqsManagedSseEnabled": "false"},
        ops=("GetQueueAttributes",),
    ),
    Deviation(
        "moto-star-selects-no-attributes",
        'moto reads MessageAttributeNames ["*"] as a literal name and returns no attributes; AWS selects every '
        "attribute, as with All and .*.",
        f"{REF} §3 (MessageAttributeNames filters); LocalStack's test_receive_message_message_attribute_names_filters "
        "snapshot recorded on AWS (all_wildcard_asterisk)",
        ("body.Messages.*.MessageAttributes.*", "body.Messages.*.MD5OfMessageAttributes"),
        {"body.Messages.0.MD5OfMessageAttributes": "4c360f3fdafd970e05fae2f149d997f5"},
        ops=("ReceiveMessage",),
    ),
    Deviation(
        "moto-empty-tags-listed",
        "moto answers ListQueueTags on a queue without tags with an empty Tags map; AWS answers with no Tags "
        "member at all (recorded after UntagQueue removed the last tag).",
        f"{REF} §3 (Tags)",
        ("body", "body.Tags"),
        {"body.Tags": ABSENT},
        ops=("ListQueueTags",),
    ),
    Deviation(
        "moto-no-md5-of-system-attributes",
        "moto leaves MD5OfMessageSystemAttributes out of the send response when AWSTraceHeader is set; "
        "AWS returns the MD5 of the system attributes (same algorithm as user attributes).",
        f"{API}/API_SendMessage.html (MD5OfMessageSystemAttributes); {REF} §1.13",
        ("body.MD5OfMessageSystemAttributes", "body.Successful.*.MD5OfMessageSystemAttributes"),
        {"body.MD5OfMessageSystemAttributes": lambda v: v in (TRACE_MD5, ABSENT)},
    ),
    Deviation(
        "moto-accepts-invalid-body-characters",
        "moto stores a body with characters outside the XML 1.0 set (#x7, #xFFFF); AWS rejects it with "
        "InvalidMessageContents (400).",
        f"{API}/API_SendMessage.html (MessageBody, InvalidMessageContents); {GUIDE}/quotas-messages.html; {REF} §1.2",
        ("*",),
        _error("InvalidMessageContents", 400, "InvalidMessageContents"),
        ops=("SendMessage",),
    ),
    Deviation(
        "moto-forgets-deduplication-id",
        "moto accepts a FIFO message again once the first one with the same MessageDeduplicationId was deleted; "
        "AWS keeps tracking the id for the whole 5-minute interval, even after the message is received and deleted.",
        f"{GUIDE}/using-messagededuplicationid-property.html; {API}/API_SendMessage.html "
        f"(MessageDeduplicationId); {REF} §1.8",
        ("body", "body.Messages*", "body.MessageId", "body.SequenceNumber"),
        {},
    ),
    Deviation(
        "moto-fifo-type-change-accepted",
        "moto accepts SetQueueAttributes FifoQueue=false on a FIFO queue (200) and then lists neither FifoQueue nor "
        "ContentBasedDeduplication; AWS refuses with InvalidAttributeValue 'Invalid value for the parameter "
        "FifoQueue. Reason: Modifying queue type is not supported.' and the queue stays FIFO.",
        f"{FIFO_RESEARCH} Q1 (LocalStack's test_set_unsupported_attribute_fifo, recorded against AWS); "
        f"{RESEARCH} Q4; {REF} §1.5",
        ("*",),
        {
            "error.Code": lambda v: v in ("InvalidAttributeValue", ABSENT),
            "body.Attributes.FifoQueue": lambda v: v in ("true", ABSENT),
        },
        ops=("SetQueueAttributes", "GetQueueAttributes"),
    ),
    Deviation(
        "moto-fifo-batch-missing-group-code",
        "moto answers a FIFO SendMessageBatch with an entry lacking MessageGroupId with MissingParameter; AWS fails "
        "the whole batch with InvalidParameterValue and the same text.",
        f"{REF} §2 ('MissingParameter on SendMessage, but InvalidParameterValue inside SendMessageBatch'); "
        f"{FIFO_RESEARCH} Q3 (LocalStack's AWS-validated test_send_batch_missing_message_group_id_for_fifo_queue)",
        ("error.Code", "error.QueryErrorCode"),
        {"error.Code": "InvalidParameterValue"},
        ops=("SendMessageBatch",),
    ),
    Deviation(
        "moto-no-sequence-number-on-send",
        "moto's JSON SendMessage response to a FIFO queue has no SequenceNumber; AWS returns it on every FIFO send "
        "(the same value the message later carries as its SequenceNumber attribute).",
        f"{API}/API_SendMessage.html (SequenceNumber); {FIFO_RESEARCH} Q6 (LocalStack's test_fifo_message_attributes, "
        "recorded against AWS)",
        ("body.SequenceNumber",),
        {"body.SequenceNumber": lambda v: (isinstance(v, str) and len(v) == 20 and v.isdigit()) or v == "<seq:str>"},
        ops=("SendMessage",),
    ),
    Deviation(
        "moto-duplicate-gets-a-new-message-id",
        "moto answers a duplicate FIFO send (same deduplication id within 5 minutes) with a fresh MessageId; AWS "
        "answers with the original message's MessageId and SequenceNumber and enqueues nothing. The ids of later "
        "messages in the scenario are numbered differently as a consequence.",
        f"{API}/API_SendMessage.html (MessageDeduplicationId: 'accepted successfully but aren't delivered'); "
        f"{FIFO_RESEARCH} Q5 (faiscadev/fakecloud#1569, floci-io/floci#901)",
        ("body.MessageId", "body.SequenceNumber", "body.Messages.*.MessageId"),
        {},
    ),
    Deviation(
        "moto-dlq-type-mismatch-accepted",
        "moto accepts a RedrivePolicy whose dead-letter queue is of the other type (FIFO for standard or the "
        "reverse); AWS refuses: 'Value ... for parameter RedrivePolicy is invalid. Reason: Dead-letter queue must "
        "be same type of queue as the source..' (AWS's double period).",
        f"{GUIDE}/sqs-dead-letter-queues.html ('The dead-letter queue of a FIFO queue must also be a FIFO queue'); "
        f"{FIFO_RESEARCH} Q9 (real AWS output in a terraform log); {REF} §1.11",
        ("*",),
        _error("InvalidParameterValue", 400, "InvalidParameterValueException"),
        ops=("SetQueueAttributes",),
    ),
    Deviation(
        "moto-no-message-move-tasks",
        "moto implements none of StartMessageMoveTask / ListMessageMoveTasks / CancelMessageMoveTask "
        "(and so moves nothing); AWS documents all three. The emulator's answers are checked per step "
        "against the documented shapes and errors.",
        f"{API}/API_StartMessageMoveTask.html, {API}/API_ListMessageMoveTasks.html, "
        f"{API}/API_CancelMessageMoveTask.html, {API}/API_ListMessageMoveTasksResultEntry.html; {REF} §1.12",
        ("*",),
        {},
    ),
    Deviation(
        "moto-receipt-handle-invalid-status",
        "moto answers ReceiptHandleIsInvalid with HTTP 400; AWS's model maps ReceiptHandleIsInvalid to HTTP 404.",
        f"{REF} §1.14 (awsQueryError traits of aws/api-models-aws sqs-2012-11-05.json); "
        f"{API}/API_DeleteMessage.html (ReceiptHandleIsInvalid)",
        ("status", "error.*"),
        _error("ReceiptHandleIsInvalid", 404, "ReceiptHandleIsInvalid"),
        ops=("DeleteMessage", "ChangeMessageVisibility"),
    ),
    Deviation(
        "moto-query-error-code-names",
        "moto's JSON errors name the legacy query code as __type (e.g. InvalidParameterValue, "
        "AWS.SimpleQueueService.NonExistentQueue) where AWS sends the shape name "
        "(InvalidParameterValueException, QueueDoesNotExist...), which botocore keeps as QueryErrorCode.",
        f"{GUIDE}/sqs-json-api-responses.html; {REF} §1.14 and §2",
        ("error.QueryErrorCode",),
        lambda flat, protocol: _shape_matches_code(flat),
    ),
    Deviation(
        "moto-no-recreate-cooldown",
        "moto re-creates a queue name at once after DeleteQueue; AWS requires 60 seconds and answers "
        "QueueDeletedRecently.",
        f"{API}/API_DeleteQueue.html; {API}/API_CreateQueue.html (QueueDeletedRecently); {REF} §1.9",
        ("*",),
        {},
    ),
    Deviation(
        "moto-empty-batch-lists",
        "moto's JSON answers carry an empty Failed (or Successful) list; AWS leaves empty lists out of JSON "
        "responses (confidence: medium -- real-AWS-validated emulator suites, no AWS page says it).",
        f"{RESEARCH} Q4 (SendMessageBatch/ChangeMessageVisibilityBatch 'Failed key absent') and Q5 "
        "(LocalStack PR #9828, AWS-validated: 'For empty lists, AWS often omits the field entirely')",
        ("body.Failed", "body.Successful"),
        {"body.Failed": lambda v: v is ABSENT or bool(v), "body.Successful": lambda v: v is ABSENT or bool(v)},
    ),
    Deviation(
        "moto-accepts-fifo-suffix-on-standard",
        "moto creates a STANDARD queue named 'x.fifo'; AWS allows only alphanumerics, hyphens and underscores in "
        "a standard queue's name (the .fifo suffix is for FIFO queues).",
        f"{API}/API_CreateQueue.html (QueueName); {GUIDE}/quotas-queues.html; {REF} §1.5",
        ("*",),
        {"error.Code": "InvalidParameterValue", "status": 400},
        ops=("CreateQueue",),
    ),
    Deviation(
        "moto-skips-queue-attribute-validation",
        "moto accepts out-of-range or unknown queue attributes (DelaySeconds 901, VisibilityTimeout 50000, "
        "MessageRetentionPeriod 59, 'Colour') and fails with HTTP 500 on a non-integer; AWS answers "
        "InvalidAttributeValue / InvalidAttributeName (400).",
        f"{API}/API_CreateQueue.html and {API}/API_SetQueueAttributes.html (attribute ranges, "
        f"InvalidAttributeName/InvalidAttributeValue); {REF} §1.6; {RESEARCH} Q4 (real-AWS 'Invalid value for the parameter DelaySeconds.')",
        ("*",),
        {"error.Code": lambda v: v in ("InvalidAttributeValue", "InvalidAttributeName"), "status": 400},
        ops=("CreateQueue", "SetQueueAttributes"),
    ),
    Deviation(
        "moto-accepts-fifo-false-on-standard",
        "moto creates a standard queue given FifoQueue=false; AWS treats FifoQueue on a standard queue as an unknown "
        "attribute: InvalidAttributeName 'Unknown Attribute FifoQueue.'",
        f"{REF} §2 ('Standard queue created with FIFO attributes: FifoQueue ... gives \"Unknown Attribute X.\"'); "
        "issue 18 item 2 (AWS-recorded: FifoQueue other than true on a standard name stays InvalidAttributeName)",
        ("*",),
        _error("InvalidAttributeName", 400, "InvalidAttributeName"),
        ops=("CreateQueue",),
    ),
    Deviation(
        "moto-accepts-long-tag-keys",
        "moto tags and untags with a key of 129 characters; AWS refuses a tag key that is empty or longer than 128 "
        "characters: InvalidParameterValue 'Tag keys must be between 1 and 128 characters in length.'",
        f"{GUIDE}/quotas-queues.html (tag key 1-128 characters); {REF} §1.5 (Tags); issue 18 item 7 (AWS-recorded "
        "wording)",
        ("*",),
        _error("InvalidParameterValue", 400, "InvalidParameterValueException"),
        ops=("TagQueue", "UntagQueue"),
    ),
    Deviation(
        "moto-accepts-policy-over-7-actions",
        "moto stores a Policy whose statement names more than 7 actions; AWS refuses it with 403 OverLimit "
        "'<n> actions were found in a statement from the submitted policy, max allowed is 7'.",
        "issue 18 item 6 (a live AWS report of SetQueueAttributes with 10 actions); "
        f"{API}/API_AddPermission.html (AddPermission allows at most 7 actions: OverLimit)",
        ("*",),
        _error("OverLimit", 403, "OverLimit"),
        ops=("SetQueueAttributes",),
    ),
    Deviation(
        "moto-accepts-dedup-id-on-standard-batch",
        "moto sends a standard queue's batch entry that carries a MessageDeduplicationId; AWS documents the "
        "parameter for FIFO queues only, and refuses it on a standard queue ('Value <id> for parameter "
        "MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue "
        "type.'), failing that entry alone as it does an entry over the size limit.",
        f"{API}/API_SendMessageBatchRequestEntry.html (MessageDeduplicationId 'applies only to FIFO queues'); "
        f"{REF} §2 ('Batch entry failures' of a standard queue are per entry); issue 18 item 9",
        ("body.Successful*", "body.Failed*"),
        {"body.Failed.0.Code": "InvalidParameterValue"},
        ops=("SendMessageBatch",),
    ),
    Deviation(
        "moto-ignores-max-results",
        "moto's ListDeadLetterSourceQueues returns every source queue and no NextToken when MaxResults is smaller "
        "than the result (its ListQueues pages since moto 5.2.6); AWS pages and returns NextToken.",
        f"{API}/API_ListDeadLetterSourceQueues.html (MaxResults, NextToken); {GUIDE}/list-all-queues-pagination.html",
        ("body.NextToken", "body.QueueUrls.*", "body.queueUrls.*"),
        {"body.NextToken": lambda v: v is not ABSENT},
    ),
    Deviation(
        "moto-skips-message-validation",
        "moto accepts messages AWS rejects: an empty body (AWS: MissingParameter), attribute DataType outside "
        "String/Number/Binary, empty String values, names starting with 'AWS.', more than 10 attributes.",
        f"{API}/API_SendMessage.html (MessageBody 'at least one character'); {GUIDE}/sqs-message-metadata.html "
        f"(attribute name/type/value rules, 10 attributes); {GUIDE}/quotas-messages.html; {REF} §1.3",
        ("*",),
        {"error.Code": lambda v: v in ("MissingParameter", "InvalidParameterValue"), "status": 400},
        ops=("SendMessage",),
    ),
    Deviation(
        "moto-change-visibility-deleted-message-code",
        "moto answers ChangeMessageVisibility on a deleted message with ReceiptHandleIsInvalid; AWS answers "
        "InvalidParameterValue 'Message does not exist or is not available for visibility timeout change.'",
        f"https://github.com/aws/aws-sdk-net/issues/1927 (real AWS response); {RESEARCH} Q1",
        ("error.*", "status"),
        _error("InvalidParameterValue", 400, "InvalidParameterValueException"),
        ops=("ChangeMessageVisibility",),
    ),
    Deviation(
        "moto-batch-entry-too-long-fails-request",
        "moto fails the whole SendMessageBatch when one entry exceeds MaximumMessageSize; AWS fails only that entry "
        "(HTTP 200, Failed[] with InvalidParameterValue, SenderFault true).",
        f"{API}/API_SendMessageBatch.html (results of each message are reported individually); {REF} §1.4 and §2 "
        "('Batch entry failures are HTTP 200 with Failed[] entries ... Message must be shorter than 1024 bytes.')",
        ("*",),
        {"status": 200, "body.Failed.0.Code": "InvalidParameterValue"},
        ops=("SendMessageBatch",),
    ),
    Deviation(
        "moto-skips-batch-request-checks",
        "moto handles DeleteMessageBatch / ChangeMessageVisibilityBatch entry by entry even with 11 entries or "
        "repeated Ids; AWS rejects the whole request with TooManyEntriesInBatchRequest / BatchEntryIdsNotDistinct.",
        f"{API}/API_DeleteMessageBatch.html and {API}/API_ChangeMessageVisibilityBatch.html (Errors); {REF} §1.4; "
        f"{RESEARCH} Q4 (real AWS: 'Maximum number of entries per request are 10. You have sent 20.' for all three batch APIs)",
        ("*",),
        {
            "error.Code": lambda v: (
                v
                in (
                    "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
                    "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
                )
            ),
            "status": 400,
        },
        ops=("ChangeMessageVisibilityBatch", "DeleteMessageBatch"),
    ),
    Deviation(
        "moto-policy-version-2012",
        "moto writes AddPermission statements into a policy with Version 2012-10-17; AWS's generated policy "
        "says 2008-10-17 (Id <queueArn>/SQSDefaultPolicy).",
        f"{RESEARCH} Q7 (LocalStack test_sqs_permission_lifecycle snapshot recorded against real AWS)",
        ("body.Attributes.Policy.Version",),
        {"body.Attributes.Policy.Version": "2008-10-17"},
    ),
    Deviation(
        "moto-no-dead-letter-source-arn",
        "moto does not return the DeadLetterQueueSourceArn system attribute on messages moved to a DLQ; AWS does "
        "(the ARN of the source queue).",
        f"{API}/API_ReceiveMessage.html (MessageSystemAttributeNames: DeadLetterQueueSourceArn); {DLQ_RESEARCH} Q4",
        ("body.Messages.*.Attributes.DeadLetterQueueSourceArn",),
        {
            "body.Messages.0.Attributes.DeadLetterQueueSourceArn": lambda v: (
                isinstance(v, str) and v.startswith("arn:aws:sqs:")
            )
        },
    ),
    Deviation(
        "moto-redrive-policy-not-compact",
        "moto echoes RedrivePolicy with spaces; AWS stores and returns it as compact JSON with a numeric "
        "maxReceiveCount.",
        "https://github.com/aws/aws-cli/blob/develop/awscli/examples/sqs/get-queue-attributes.rst (AWS's own "
        f"example output); {DLQ_RESEARCH} Q1",
        ("body.Attributes.RedrivePolicy",),
        {"body.Attributes.RedrivePolicy": lambda v: isinstance(v, str) and ", " not in v and '": ' not in v},
    ),
    Deviation(
        "moto-redrive-policy-validation",
        "moto does not validate RedrivePolicy like AWS: a malformed or missing deadLetterTargetArn gives "
        "NonExistentQueue, maxReceiveCount 0 or 1001 is accepted, and a non-JSON value fails with HTTP 500; AWS "
        "answers 400 InvalidParameterValue 'Value ... for parameter RedrivePolicy is invalid. Reason: ...'.",
        f"{DLQ_RESEARCH} TL;DR 1 (LocalStack test_invalid_dead_letter_arn_rejected_before_lookup, recorded against "
        f"real AWS); {API}/API_SetQueueAttributes.html (RedrivePolicy, maxReceiveCount); {REF} §1.6 and §1.11",
        ("*",),
        {"error.Code": lambda v: v in ("InvalidParameterValue", "InvalidAttributeValue"), "status": 400},
        ops=("SetQueueAttributes",),
    ),
    Deviation(
        "moto-no-redrive-allow-policy",
        "moto rejects the RedriveAllowPolicy attribute as unknown (InvalidAttributeName) and so validates none of it; "
        "AWS documents it for CreateQueue/SetQueueAttributes/GetQueueAttributes.",
        f"{API}/API_SetQueueAttributes.html (RedriveAllowPolicy); {GUIDE}/sqs-dead-letter-queues.html; {REF} §1.11",
        ("*",),
        {"error.Code": lambda v: v in (ABSENT, "InvalidParameterValue")},
    ),
]

# AWS's (legacy code -> JSON shape) pairs: docs/sqs-reference.md §1.14 table, §2, research notes Q3.
SHAPE_OF = {
    "InvalidParameterValue": "InvalidParameterValueException",
    "MissingParameter": "MissingRequiredParameterException",
    "AWS.SimpleQueueService.NonExistentQueue": "QueueDoesNotExist",
    "QueueAlreadyExists": "QueueNameExists",
    "ReceiptHandleIsInvalid": "ReceiptHandleIsInvalid",
    "InvalidAttributeName": "InvalidAttributeName",
    "InvalidAttributeValue": "InvalidAttributeValue",
    "InvalidMessageContents": "InvalidMessageContents",
    "ResourceNotFoundException": "ResourceNotFoundException",
    "OverLimit": "OverLimit",
}


def _shape_matches_code(flat: dict) -> list:
    code, shape = flat.get("error.Code"), flat.get("error.QueryErrorCode")
    if code is None or shape is None:
        return []
    want = SHAPE_OF.get(code) or (code.split(".")[-1] if code.startswith("AWS.SimpleQueueService.") else None)
    if want == "NonExistentQueue":
        want = "QueueDoesNotExist"
    if want is not None and shape != want:
        return [f"error.QueryErrorCode: AWS pairs Code {code!r} with shape {want!r}, emulator gave {shape!r}"]
    return []


# Deviations that may show up in any scenario (they concern every error or batch response).
GLOBAL = ("moto-query-error-code-names", "moto-empty-batch-lists")

CATALOGUE = {d.name: d for d in _DEVIATIONS}

for _d in _DEVIATIONS:  # a deviation without evidence is a defect
    assert _d.source and any(
        k in _d.source for k in ("aws.amazon.com", REF, RESEARCH, DLQ_RESEARCH, "github.com/aws")
    ), _d.name
