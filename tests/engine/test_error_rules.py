"""The error rules' decisions (emulator/engine/error_rules.py), on plain values."""

from types import SimpleNamespace

import pytest

from emulator.engine.error_rules import ErrorRule, ErrorRules, canonical_key
from emulator.engine.stats import QueueStats

KEY = ("000000000000", "us-east-1", "jobs")


def a_queue(name: str = "jobs", kms_key: str | None = None):
    attributes = {"KmsMasterKeyId": kms_key} if kms_key else {}
    return SimpleNamespace(account=KEY[0], region=KEY[1], name=name, attributes=attributes, stats=QueueStats())


def fired(rules: ErrorRules, operation: str, queue, times: int) -> list[bool]:
    key = (queue.account, queue.region, queue.name)
    return [rules.call_error(operation, key, queue) is not None for _ in range(times)]


def test_after_and_count_choose_which_matching_calls_fail():
    rules = ErrorRules()
    rules.add(
        ErrorRule("RequestThrottled", "slow down", queue=KEY, operations=frozenset({"SendMessage"}), after=2, count=2)
    )
    queue = a_queue()
    assert fired(rules, "ReceiveMessage", queue, 3) == [False] * 3  # another operation does not count
    assert fired(rules, "SendMessage", queue, 6) == [False, False, True, True, False, False]
    assert queue.stats.injected_errors == 2
    (rule,) = rules.rules()
    assert (rule.matched, rule.fired) == (6, 2)


def test_a_rule_for_one_queue_leaves_the_others_and_a_rule_for_none_takes_every_call():
    rules = ErrorRules()
    rules.add(ErrorRule("InternalError", "x", queue=KEY))
    assert fired(rules, "SendMessage", a_queue("other"), 1) == [False]
    assert rules.call_error("ListQueues", None, None) is None
    rules.add(ErrorRule("ServiceUnavailable", "y"))
    error = rules.call_error("ListQueues", None, None)
    assert error is not None and (error.name, error.status, error.spec.sender_fault) == (
        "ServiceUnavailable",
        503,
        False,
    )


def test_a_seeded_probability_repeats_and_differs_by_seed():
    def pattern(seed: int) -> list[bool]:
        rules = ErrorRules()
        rules.add(ErrorRule("RequestThrottled", "x", probability=0.5, seed=seed))
        return fired(rules, "SendMessage", a_queue(), 40)

    assert pattern(3) == pattern(3)
    assert pattern(3) != pattern(4)
    assert 0 < pattern(3).count(True) < 40


def test_entry_rules_fail_entries_not_calls():
    rules = ErrorRules()
    rules.add(ErrorRule("InternalError", "x", queue=KEY, entries=True, after=1, count=1))
    queue = a_queue()
    assert rules.call_error("SendMessageBatch", KEY, queue) is None
    errors = rules.entry_errors("SendMessageBatch", queue, 3)
    assert [error is not None for error in errors] == [False, True, False]
    assert queue.stats.injected_errors == 1


@pytest.mark.parametrize(
    "given, queue_key",
    [
        ("alias/aws/sqs", "arn:aws:kms:us-east-1:000000000000:alias/aws/sqs"),
        ("1234abcd", "arn:aws:kms:us-east-1:000000000000:key/1234abcd"),
        ("arn:aws:kms:us-east-1:000000000000:key/1234abcd", "1234abcd"),
    ],
)
def test_a_key_is_known_in_each_of_its_forms(given, queue_key):
    assert canonical_key(given) == canonical_key(queue_key)
    rules = ErrorRules()
    rules.set_key(given, "pending_deletion")
    error = rules.call_error("ReceiveMessage", KEY, a_queue(kms_key=queue_key))
    assert error is not None and error.name == "KmsInvalidState" and error.code == "KMS.InvalidStateException"
    assert rules.call_error("GetQueueAttributes", KEY, a_queue(kms_key=queue_key)) is None  # no KMS in it
    rules.set_key(queue_key, "enabled")
    assert not rules and rules.call_error("ReceiveMessage", KEY, a_queue(kms_key=queue_key)) is None


def test_bad_rules_are_refused():
    with pytest.raises(ValueError):
        ErrorRule("NoSuchError", "x")
    with pytest.raises(ValueError):
        ErrorRule("RequestThrottled", "x", probability=1.5)
    with pytest.raises(ValueError):
        ErrorRules().set_key("alias/aws/sqs", "melted")
