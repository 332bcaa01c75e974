"""AWS's errors on demand: the policy the broker is asked whether a call is answered
with an error instead of being run (api/injected.py asks; nothing else changes).

An ErrorRule names an error of emulator/errors.py's table and the calls it matches (one
queue or every call, one operation or a few or all). A matching call counts: the first
`after` pass, then each fires with `probability` (a random.Random of the rule's `seed`)
until `count` have fired. A rule with `entries` fails a batch's entries one by one, each
entry a matching call, instead of the whole call.

A KMS key's state (KMS_STATES) answers its Kms* error to SendMessage, SendMessageBatch and
ReceiveMessage on every queue whose KmsMasterKeyId names the key, in any of its forms
(alias/aws/sqs, a key id, a key or alias ARN).

The broker holds one ErrorRules, or None while there is no rule and no key: a call pays
one attribute test. Calls come from several threads: one lock guards the counters.
"""

import random
import threading
import uuid
from dataclasses import dataclass, field

from emulator.errors import ERRORS, SqsError

# A key's state -> (the error SQS answers, KMS's error code and message, which SQS quotes). KMS's
# messages are its API Reference's descriptions of each exception; how SQS quotes them is the one
# recorded answer (opensearch-project/data-prepper#2422, an AccessDeniedException on ReceiveMessage).
KMS_STATES: dict[str, tuple[str, str, str]] = {
    "disabled": (
        "KmsDisabled",
        "DisabledException",
        "The request was rejected because the specified KMS key is not enabled.",
    ),
    "pending_deletion": (
        "KmsInvalidState",
        "KMSInvalidStateException",
        "The request was rejected because the state of the specified resource is not valid for this request.",
    ),
    "not_found": (
        "KmsNotFound",
        "NotFoundException",
        "The request was rejected because the specified entity or resource could not be found.",
    ),
    "access_denied": (
        "KmsAccessDenied",
        "AccessDeniedException",
        "The ciphertext refers to a customer master key that does not exist, does not exist in this region, "
        "or you are not allowed to access.",
    ),
    "invalid_usage": (
        "KmsInvalidKeyUsage",
        "InvalidKeyUsageException",
        "The request was rejected because the KeyUsage value of the KMS key is incompatible with the API operation.",
    ),
    "throttled": ("KmsThrottled", "ThrottlingException", "The request was denied due to request throttling."),
    "opt_in_required": (
        "KmsOptInRequired",
        "OptInRequired",
        "The AWS access key ID needs a subscription for the service.",
    ),
}
KMS_ERRORS = {error: state for state, (error, _, _) in KMS_STATES.items()}  # a Kms* error's state
# What SQS does with the key: a send makes (or reuses) a data key, a receive decrypts one.
KMS_OPERATIONS = frozenset({"SendMessage", "SendMessageBatch", "ReceiveMessage"})


@dataclass
class ErrorRule:
    error: str  # a key of emulator.errors.ERRORS
    message: str | None = None  # what the answer says; None: a Kms* error's KMS wording (kms_error)
    queue: tuple[str, str, str] | None = None  # (account, region, name); None: every call
    operations: frozenset[str] | None = None  # None: every operation
    probability: float = 1.0
    after: int = 0  # matching calls that pass before the rule may fire
    count: int | None = None  # how many times it fires; None: no end
    entries: bool = False  # a batch's entries fail, not the call
    seed: int | None = None
    id: int = 0  # given by ErrorRules.add
    matched: int = field(default=0, init=False)
    fired: int = field(default=0, init=False)
    _rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.error not in ERRORS:
            raise ValueError(f"unknown error {self.error!r}")
        if not 0.0 <= self.probability <= 1.0:
            raise ValueError("probability is from 0 to 1")
        if self.after < 0 or (self.count is not None and self.count < 1):
            raise ValueError("after is 0 or more, count 1 or more")
        self._rng = random.Random(self.seed)

    def matches(self, operation: str, queue_key: tuple[str, str, str] | None, entries: bool) -> bool:
        return (
            self.entries == entries
            and (self.queue is None or self.queue == queue_key)
            and (self.operations is None or operation in self.operations)
        )

    def fires(self) -> bool:
        """One matching call (or entry): whether the rule answers it. Under ErrorRules' lock."""
        self.matched += 1
        if self.matched <= self.after or (self.count is not None and self.fired >= self.count):
            return False
        if self.probability < 1.0 and self._rng.random() >= self.probability:
            return False
        self.fired += 1
        return True

    def answer(self) -> SqsError:
        if self.message is None and self.error in KMS_ERRORS:
            return kms_error(KMS_ERRORS[self.error])
        return SqsError(self.error, self.message or "")

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "error": self.error,
            "message": self.message,
            "queue": None if self.queue is None else dict(zip(("account", "region", "name"), self.queue, strict=True)),
            "operations": None if self.operations is None else sorted(self.operations),
            "probability": self.probability,
            "after": self.after,
            "count": self.count,
            "entries": self.entries,
            "seed": self.seed,
            "matched": self.matched,
            "fired": self.fired,
        }


class ErrorRules:
    """The rules and KMS key states in force, asked once per call (and per batch entry)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._rules: list[ErrorRule] = []
        self._keys: dict[str, str] = {}  # a key's canonical form -> its state (KMS_STATES)
        self._next_id = 1

    def __bool__(self) -> bool:
        return bool(self._rules or self._keys)

    # -- what the admin API sets ---------------------------------------------------

    def add(self, rule: ErrorRule) -> ErrorRule:
        with self._lock:
            rule.id = self._next_id
            self._next_id += 1
            self._rules.append(rule)
        return rule

    def remove(self, rule_id: int) -> bool:
        with self._lock:
            kept = [rule for rule in self._rules if rule.id != rule_id]
            removed = len(kept) < len(self._rules)
            self._rules = kept
        return removed

    def clear_rules(self) -> None:
        with self._lock:
            self._rules = []

    def rules(self) -> list[ErrorRule]:
        with self._lock:
            return list(self._rules)

    def set_key(self, key: str, state: str) -> dict[str, str]:
        """Set a KMS key's state ("enabled" forgets it); returns every key's state."""
        if state != "enabled" and state not in KMS_STATES:
            raise ValueError(f"unknown key state {state!r} (known: enabled, {', '.join(KMS_STATES)})")
        with self._lock:
            if state == "enabled":
                self._keys.pop(canonical_key(key), None)
            else:
                self._keys[canonical_key(key)] = state
            return dict(self._keys)

    def clear_keys(self) -> None:
        with self._lock:
            self._keys = {}

    def keys(self) -> dict[str, str]:
        with self._lock:
            return dict(self._keys)

    # -- what a call asks ------------------------------------------------------------

    def call_error(self, operation: str, key: tuple[str, str, str] | None, queue) -> SqsError | None:
        """The error that answers this call instead of running it, or None. `key` is the
        (account, region, name) of the queue the call names (None: it names none), `queue`
        that queue if it exists (its KMS key is asked, its count of injected errors counts)."""
        with self._lock:
            if queue is not None and self._keys and operation in KMS_OPERATIONS:
                state = self._keys.get(canonical_key(queue.attributes.get("KmsMasterKeyId") or ""))
                if state is not None:
                    return self._counted(queue, kms_error(state))
            for rule in self._rules:
                if rule.matches(operation, key, entries=False) and rule.fires():
                    return self._counted(queue, rule.answer())
        return None

    def entry_errors(self, operation: str, queue, count: int) -> list[SqsError | None]:
        """For each of the `count` entries of a batch on `queue`, the error it fails with, or None."""
        key = (queue.account, queue.region, queue.name)
        with self._lock:
            rules = [rule for rule in self._rules if rule.matches(operation, key, entries=True)]
            return [self._entry_error(queue, rules) if rules else None for _ in range(count)]

    def _entry_error(self, queue, rules: list[ErrorRule]) -> SqsError | None:
        for rule in rules:
            if rule.fires():
                return self._counted(queue, rule.answer())
        return None

    @staticmethod
    def _counted(queue, error: SqsError) -> SqsError:
        if queue is not None:
            queue.stats.injected_errors += 1
        return error


def canonical_key(key: str) -> str:
    """A KMS key as SQS may be given it: a key ARN names the key id, an alias ARN the alias."""
    if key.startswith("arn:") and ":" in key[4:]:
        resource = key.rsplit(":", 1)[1]
        return resource[len("key/") :] if resource.startswith("key/") else resource
    return key


def kms_error(state: str) -> SqsError:
    """The error SQS answers for a key in `state`, quoting KMS's error as SQS does."""
    name, kms_code, kms_message = KMS_STATES[state]
    return SqsError(
        name,
        f"{kms_message} (Service: AWSKMS; Status Code: 400; Error Code: {kms_code}; "
        f"Request ID: {uuid.uuid4()}; Proxy: null)",
    )
