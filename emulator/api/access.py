"""Whether a queue's Policy lets another account run an action on it (--require-auth).

A key acts on its own account's queues; another account's queue only where the queue's
Policy (AddPermission writes one) has a statement that allows that account the action
and none that denies it, as on AWS. Read here: Effect, Principal ("*", {"AWS": "*" | an
account id | an account's ARN | a list of them}), Action ("*", "sqs:*", "SQS:SendMessage",
with * and ? wildcards, any case) and Resource ("*" or the queue's ARN, wildcards too). A
statement with a Condition is not evaluated and grants nothing.
"""

import fnmatch
import json
import re

from emulator.errors import SqsError

# An IAM principal ARN names its account: arn:aws:iam::123456789012:root (or :user/x, :role/y).
_PRINCIPAL_ARN = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):.+")
# The batch actions need their single action's permission (AddPermission's ActionName docs).
_BATCH = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage"}
_BATCH["ChangeMessageVisibilityBatch"] = "ChangeMessageVisibility"


def denied(url: str) -> SqsError:
    # AWS's wording for a queue the caller may not use, as SDKs report it.
    return SqsError("AccessDenied", f"Access to the resource {url} is denied.")


def allows(policy: str | None, account: str, action: str, queue_arn: str) -> bool:
    """Whether the Policy document grants `account` the SQS `action` on the queue."""
    if not policy:
        return False
    try:
        document = json.loads(policy)
    except (ValueError, RecursionError):
        return False
    statements = document.get("Statement", []) if isinstance(document, dict) else []
    statements = [statements] if isinstance(statements, dict) else statements
    if not isinstance(statements, list):
        return False
    action = _BATCH.get(action, action)
    matching = [
        statement
        for statement in statements
        if isinstance(statement, dict)
        and "Condition" not in statement
        and _principal(statement.get("Principal"), account)
        and _any(statement.get("Action"), f"sqs:{action}".lower())
        and _any(statement.get("Resource", "*"), queue_arn.lower())
    ]
    if any(statement.get("Effect") == "Deny" for statement in matching):
        return False
    return any(statement.get("Effect") == "Allow" for statement in matching)


def _principal(principal, account: str) -> bool:
    if principal == "*":
        return True
    if not isinstance(principal, dict):
        return False
    names = principal.get("AWS")
    for name in names if isinstance(names, list) else [names]:
        if not isinstance(name, str):
            continue
        arn = _PRINCIPAL_ARN.fullmatch(name)
        if name in ("*", account) or (arn is not None and arn.group(1) == account):
            return True
    return False


def _any(patterns, value: str) -> bool:
    """Whether one of the patterns (a string or a list of them) matches value, ignoring case."""
    patterns = patterns if isinstance(patterns, list) else [patterns]
    return any(isinstance(p, str) and fnmatch.fnmatchcase(value, p.lower()) for p in patterns)
