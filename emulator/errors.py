"""Every error the emulator can return, in one table.

Each row gives the JSON protocol's shape name (``__type``), the query
protocol's legacy code (also sent in the JSON ``x-amzn-query-error`` header)
and the HTTP status, as AWS maps them (see docs/sqs-reference.md 1.14).
"""

from typing import NamedTuple


class ErrorSpec(NamedTuple):
    shape: str
    code: str
    status: int
    sender_fault: bool = True
    wording: str = ""  # AWS's message, where an error rule answers it without a message of its own


ERRORS: dict[str, ErrorSpec] = {
    # Generic query-protocol errors, still returned by SQS.
    "InvalidParameterValue": ErrorSpec("InvalidParameterValueException", "InvalidParameterValue", 400),
    "MissingParameter": ErrorSpec("MissingRequiredParameterException", "MissingParameter", 400),
    "InvalidAction": ErrorSpec("InvalidActionException", "InvalidAction", 400),
    "InvalidQueryParameter": ErrorSpec("InvalidQueryParameterException", "InvalidQueryParameter", 400),
    "MalformedQueryString": ErrorSpec("MalformedQueryStringException", "MalformedQueryString", 400),
    # A query request to a queue URL that names no action (LocalStack PR #5928, observed on AWS).
    "UnknownOperationException": ErrorSpec("UnknownOperationException", "UnknownOperationException", 404),
    "InternalFailure": ErrorSpec("InternalFailure", "InternalFailure", 500, sender_fault=False),
    # Who may ask (--require-auth, the Host and Origin checks): AWS's Common Errors page, and SQS's
    # AccessDenied with status 403 as SDKs report it (docs/sqs-reference.md has no recording of these).
    "AccessDenied": ErrorSpec("AccessDeniedException", "AccessDenied", 403),
    "MissingAuthenticationToken": ErrorSpec("MissingAuthenticationToken", "MissingAuthenticationToken", 403),
    "IncompleteSignature": ErrorSpec("IncompleteSignature", "IncompleteSignature", 400),
    "InvalidClientTokenId": ErrorSpec("InvalidClientTokenId", "InvalidClientTokenId", 403),
    "SignatureDoesNotMatch": ErrorSpec("SignatureDoesNotMatch", "SignatureDoesNotMatch", 403),
    "RequestExpired": ErrorSpec("RequestExpired", "RequestExpired", 400),
    # A body over --max-body-bytes: AWS answers 413 "Request Entity Too Large" (seen from SQS by
    # python-beaver issue #204); the code and the body's shape are ours, AWS's body is not recorded.
    "RequestEntityTooLarge": ErrorSpec("RequestEntityTooLarge", "RequestEntityTooLarge", 413),
    # The HTTP server's own refusals (emulator/server/http/entry.py), in the request's protocol: a
    # body that did not arrive by --request-timeout, and framing no server may run (Content-Length
    # beside chunked, a bad chunk: RFC 9112 6.1, 7.1). AWS's answers to these are not recorded.
    "RequestTimeout": ErrorSpec("RequestTimeout", "RequestTimeout", 408),
    "MalformedRequest": ErrorSpec("MalformedRequest", "MalformedRequest", 400),
    # Errors modelled in the SQS service model.
    "QueueDoesNotExist": ErrorSpec(
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        400,
        wording="The specified queue does not exist.",
    ),
    "QueueNameExists": ErrorSpec("QueueNameExists", "QueueAlreadyExists", 400),
    "QueueDeletedRecently": ErrorSpec("QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", 400),
    "PurgeQueueInProgress": ErrorSpec("PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403),
    "TooManyEntriesInBatchRequest": ErrorSpec(
        "TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400
    ),
    "EmptyBatchRequest": ErrorSpec("EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400),
    "BatchEntryIdsNotDistinct": ErrorSpec(
        "BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400
    ),
    "BatchRequestTooLong": ErrorSpec("BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400),
    "InvalidBatchEntryId": ErrorSpec("InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400),
    "MessageNotInflight": ErrorSpec("MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400),
    "UnsupportedOperation": ErrorSpec("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400),
    "ReceiptHandleIsInvalid": ErrorSpec("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404),
    "OverLimit": ErrorSpec("OverLimit", "OverLimit", 403),
    # "Request is throttled.": the message SDKs print for it (AWS Java SDK in
    # awslabs/amazon-sqs-java-temporary-queues-client#19, .NET in Particular/docs.particular.net#3438).
    "RequestThrottled": ErrorSpec("RequestThrottled", "RequestThrottled", 403, wording="Request is throttled."),
    "InvalidAddress": ErrorSpec("InvalidAddress", "InvalidAddress", 404),
    "InvalidSecurity": ErrorSpec("InvalidSecurity", "InvalidSecurity", 403),
    "ResourceNotFoundException": ErrorSpec("ResourceNotFoundException", "ResourceNotFoundException", 404),
    "InvalidAttributeName": ErrorSpec("InvalidAttributeName", "InvalidAttributeName", 400),
    "InvalidAttributeValue": ErrorSpec("InvalidAttributeValue", "InvalidAttributeValue", 400),
    "InvalidMessageContents": ErrorSpec("InvalidMessageContents", "InvalidMessageContents", 400),
    "InvalidIdFormat": ErrorSpec("InvalidIdFormat", "InvalidIdFormat", 400),
    # KMS's errors on a queue with KmsMasterKeyId: codes and statuses as the awsQueryError traits
    # of SQS's Smithy model give them (AWS SDK for JavaScript v3, @aws-sdk/client-sqs schemas).
    "KmsAccessDenied": ErrorSpec("KmsAccessDenied", "KMS.AccessDeniedException", 400),
    "KmsDisabled": ErrorSpec("KmsDisabled", "KMS.DisabledException", 400),
    "KmsInvalidKeyUsage": ErrorSpec("KmsInvalidKeyUsage", "KMS.InvalidKeyUsageException", 400),
    "KmsInvalidState": ErrorSpec("KmsInvalidState", "KMS.InvalidStateException", 400),
    "KmsNotFound": ErrorSpec("KmsNotFound", "KMS.NotFoundException", 400),
    "KmsOptInRequired": ErrorSpec("KmsOptInRequired", "KMS.OptInRequired", 403),
    "KmsThrottled": ErrorSpec("KmsThrottled", "KMS.ThrottlingException", 400),
    # Sent beside the model, by error rules only: server-side faults an SDK retries (botocore's
    # legacy and standard retry modes retry any 500 and 503). The wordings are AWS's descriptions
    # (Common Errors page; the SQS error table of 2007), no recorded answer (docs/reference/compatibility.md).
    "InternalError": ErrorSpec(
        "InternalError",
        "InternalError",
        500,
        False,
        "There is an internal problem with SQS, which you cannot resolve. Retry the request.",
    ),
    "ServiceUnavailable": ErrorSpec(
        "ServiceUnavailable",
        "ServiceUnavailable",
        503,
        False,
        "The request has failed due to a temporary failure of the server.",
    ),
}


class SqsError(Exception):
    """An SQS error: ``name`` is a key of ERRORS; the protocol layer renders it."""

    def __init__(self, name: str, message: str, batch_form: "SqsError | None" = None):
        super().__init__(message)
        self.spec = ERRORS[name]
        self.name = name
        # A message may quote the request; a lone surrogate there could not be encoded in the answer.
        self.message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        self.batch_form = batch_form  # how a batch entry reports it, where AWS words it differently

    @property
    def code(self) -> str:
        return self.spec.code

    @property
    def status(self) -> int:
        return self.spec.status


def invalid_parameter(message: str) -> SqsError:
    return SqsError("InvalidParameterValue", message)


def invalid_reason(reason: str) -> SqsError:
    """AWS's wording for a rejected value: 'One or more parameters are invalid. Reason: ...'."""
    return SqsError("InvalidParameterValue", f"One or more parameters are invalid. Reason: {reason}")


def queue_does_not_exist() -> SqsError:
    # The protocol layer appends " for this wsdl version." on the query protocol.
    return SqsError("QueueDoesNotExist", ERRORS["QueueDoesNotExist"].wording)
