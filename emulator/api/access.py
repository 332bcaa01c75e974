"""Whether a queue's Policy lets another account run an action on it.

Wherever the caller's account is known (the signing key's under --require-auth, else the
one a 12-digit access key names: server/app.py's _caller), a key acts on its own account's
queues; another account's queue only where the queue's Policy (AddPermission writes one)
has a statement that allows that account the action and none that denies it, as on AWS
(an explicit Deny wins over any Allow; with no statement for the account, AWS's implicit
deny: the Developer Guide's "sqs-queue-access-permissions" for a different account).

Each part of a statement is read as far as the emulator knows the request:

* Principal / NotPrincipal: "*", {"AWS": "*" | an account id | an ARN of the account
  (arn:aws:iam::123456789012:root, :user/x, :role/y) | a list of them}; any other kind
  of principal (Service, Federated) is not an account's key, so not the caller;
* Action / NotAction ("*", "sqs:*", "SQS:SendMessage", * and ? wildcards, any case; a
  batch action is its single action's), Resource / NotResource ("*" or the queue's ARN,
  wildcards too; neither means any resource);
* Condition: the String*, Arn* and Null operators (with ...IfExists) on the keys the
  emulator knows: aws:PrincipalAccount (the caller's account), and aws:SourceAccount and
  aws:SourceArn, which a direct call never carries (a service acting for a resource
  sets them, and none does here). A missing key fails a condition and passes a negated
  one (StringNotEquals, ArnNotLike); a key's values are ORed, a negated operator's NORed;
  operators and keys are ANDed (IAM User Guide, reference_policies_elements_condition_operators
  and reference_policies_multi-value-conditions).

What it cannot read (any other condition key or operator, ForAnyValue / ForAllValues, a
statement without Principal or Action, a malformed part) it cannot decide, and then it
fails closed: such a Deny counts as matching, and such an Allow grants nothing. So a
policy never lets through here what AWS would refuse; it may refuse what AWS, knowing
the request's source IP or TLS, would let through (docs/security.md).
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
# Condition keys a direct call carries (by lower-case name), and those it never does.
_PRINCIPAL_ACCOUNT = "aws:principalaccount"
_NEVER_PRESENT = frozenset({"aws:sourceaccount", "aws:sourcearn"})
# Operators by their name without IfExists: (compare, negated, ignore case).
_OPERATORS = {
    "StringEquals": ("equals", False, False),
    "StringNotEquals": ("equals", True, False),
    "StringEqualsIgnoreCase": ("equals", False, True),
    "StringNotEqualsIgnoreCase": ("equals", True, True),
    "StringLike": ("like", False, False),
    "StringNotLike": ("like", True, False),
    "ArnEquals": ("like", False, False),  # ARN operators take wildcards in both forms
    "ArnLike": ("like", False, False),
    "ArnNotEquals": ("like", True, False),
    "ArnNotLike": ("like", True, False),
}

Known = bool | None  # None: the emulator cannot tell


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
    action = f"sqs:{_BATCH.get(action, action)}".lower()
    verdicts = [
        (statement.get("Effect"), _applies(statement, account, action, queue_arn.lower()))
        for statement in statements
        if isinstance(statement, dict)
    ]
    # A Deny (or a statement of no effect IAM knows) that may apply denies; an Allow must surely apply.
    if any(effect != "Allow" and applies is not False for effect, applies in verdicts):
        return False
    return any(effect == "Allow" and applies is True for effect, applies in verdicts)


def _applies(statement: dict, account: str, action: str, arn: str) -> Known:
    return _all(
        [
            _either(statement, "Principal", lambda principal: _principal(principal, account)),
            _either(statement, "Action", lambda patterns: _any(patterns, action)),
            _either(statement, "Resource", lambda patterns: _any(patterns, arn), absent=True),
            _condition(statement.get("Condition", {}), account),
        ]
    )


def _either(statement: dict, name: str, matches, absent: Known = None) -> Known:
    """A part given as `name` (it matches) or as `Not<name>` (it matches all but those)."""
    if name in statement:
        return matches(statement[name])
    if f"Not{name}" in statement:
        return not matches(statement[f"Not{name}"])
    return absent


def _all(verdicts: list[Known]) -> Known:
    if False in verdicts:
        return False
    return None if None in verdicts else True


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


def _condition(block, account: str) -> Known:
    """A Condition block: every operator's every key must hold (IAM ANDs them)."""
    if not isinstance(block, dict):
        return None
    verdicts: list[Known] = []
    for operator, keys in block.items():
        if not isinstance(operator, str) or not isinstance(keys, dict):
            return None
        verdicts += [_test(operator, key.lower(), values, account) for key, values in keys.items()]
    return _all(verdicts)


def _test(operator: str, key: str, values, account: str) -> Known:
    """One condition key under one operator; None for a key or operator the emulator cannot read."""
    if key == _PRINCIPAL_ACCOUNT:
        present: str | None = account
    elif key in _NEVER_PRESENT:
        present = None
    else:
        return None
    values = values if isinstance(values, list) else [values]
    if not all(isinstance(value, str) for value in values):
        return None
    if operator == "Null":  # {"Null": {"key": "true"}}: the key is absent
        return None if values not in (["true"], ["false"]) else (present is None) == (values == ["true"])
    if_exists = operator.endswith("IfExists")
    rule = _OPERATORS.get(operator.removesuffix("IfExists"))
    if rule is None:
        return None
    compare, negated, ignore_case = rule
    if present is None:
        return True if if_exists else negated  # a missing key fails a test and passes a negated one
    if ignore_case:
        present, values = present.lower(), [value.lower() for value in values]
    if compare == "equals":
        found = present in values
    else:
        found = any(fnmatch.fnmatchcase(present, value) for value in values)
    return found != negated
