"""What a handler's result means for its batch, with ReportBatchItemFailures.

Lambda Developer Guide, "Handling errors for an SQS event source in Lambda",
implementing partial batch responses: the function returns
{"batchItemFailures": [{"itemIdentifier": "<messageId>"}]}. The batch is a
complete success for an empty or null batchItemFailures list, an empty or a null
response; a complete failure for an invalid JSON response, an empty or null
itemIdentifier, an itemIdentifier under a wrong key name, or one naming a message
that is not in the batch. Without ReportBatchItemFailures any result is success.
"""

from typing import Any


class BatchFailed(Exception):
    """The response fails the whole batch; the message says why."""


def failed_items(result: Any, message_ids: set[str], report_batch_item_failures: bool) -> set[str]:
    """The ids of the messages that stay in the queue; raises BatchFailed when all do."""
    if not report_batch_item_failures or result is None:
        return set()
    if not isinstance(result, dict):
        raise BatchFailed(f"the response is not a JSON object: {str(result)[:200]}")
    failures = result.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        raise BatchFailed("batchItemFailures is not a list")
    failed = set()
    for item in failures:
        identifier = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not isinstance(identifier, str) or not identifier:
            raise BatchFailed(f"a batchItemFailures entry has no itemIdentifier: {str(item)[:200]}")
        if identifier not in message_ids:
            raise BatchFailed(f"itemIdentifier {identifier!r} is not a message of the batch")
        failed.add(identifier)
    return failed
