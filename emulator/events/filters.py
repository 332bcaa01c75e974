"""Lambda's event filtering patterns, for SQS records.

Lambda Developer Guide, "Control which events Lambda sends to your function":
a pattern is a JSON object whose keys name fields of the record and whose leaves
are lists of rules; a record passes when every key matches (AND) and, for a key,
any rule of its list does (OR); a mapping's filters are ORed; a record no filter
passes is deleted from the queue without an invocation. The comparison operators
of that page's table: equals (a string, a number, null, "" for an empty string),
equals-ignore-case, prefix, suffix, anything-but (a value or a list), numeric
(=, <, <=, >, >=, and a range), exists (true or false), and "$or" across keys.
The body is matched as JSON when it is a JSON object or array, else as the
string (the SQS filtering page: "Using event filtering with an Amazon SQS event
source"). A body nested deeper than the JSON decoder reads (Python's recursion
limit, about a thousand levels) matches no rule on the body at all, as a body
Lambda cannot parse is filtered out; it never raises. That page says SQS filters
on `body` only; the record's `attributes` and `messageAttributes` are matched here
too (in the record's shape), which AWS may refuse.
"""

import json
from typing import Any

OPERATORS = ("prefix", "suffix", "equals-ignore-case", "anything-but", "numeric", "exists")
COMPARISONS = {
    "=": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_MISSING = object()
_UNREADABLE = object()  # a body nested past what the decoder reads: no rule matches it


class Pattern:
    """One filter: `source` is the pattern as given (a JSON object)."""

    def __init__(self, source: dict):
        self.source = source

    @classmethod
    def parse(cls, value) -> "Pattern":
        """From a JSON object, its text, or Lambda's {"Pattern": "<text>"}; ValueError says what is wrong."""
        if isinstance(value, dict) and set(value) == {"Pattern"}:
            value = value["Pattern"]
        try:
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    raise ValueError("a pattern given as text must be JSON") from None
            if not isinstance(value, dict) or not value:
                raise ValueError("a pattern is a non-empty JSON object")
            _check_object(value, "")
        except RecursionError:
            raise ValueError("a pattern is nested deeper than it can be read") from None
        return cls(value)

    def matches(self, record: dict) -> bool:
        return _matches(self.source, {**record, "body": _body(record["body"])})


def _body(text: str) -> Any:
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    except RecursionError:
        return _UNREADABLE
    return parsed if isinstance(parsed, (dict, list)) else text


# -- checking a pattern ---------------------------------------------------------


def _check_object(pattern: dict, path: str) -> None:
    for key, value in pattern.items():
        where = f"{path}.{key}" if path else key
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2 or not all(isinstance(p, dict) and p for p in value):
                raise ValueError(f"{where}: $or takes a list of two or more patterns")
            for number, alternative in enumerate(value):
                _check_object(alternative, f"{where}[{number}]")
        elif isinstance(value, dict):
            if not value:
                raise ValueError(f"{where}: an empty object matches nothing")
            _check_object(value, where)
        elif isinstance(value, list):
            if not value:
                raise ValueError(f"{where}: a list of rules must not be empty")
            for rule in value:
                _check_rule(rule, where)
        else:
            raise ValueError(f'{where}: a pattern\'s values are objects or lists of rules, e.g. ["value"]')


def _check_rule(rule, where: str) -> None:
    if rule is None or isinstance(rule, (str, int, float, bool)):
        return
    if not isinstance(rule, dict) or len(rule) != 1:
        raise ValueError(f"{where}: a rule is a value or an object with one operator ({', '.join(OPERATORS)})")
    ((operator, operand),) = rule.items()
    if operator not in OPERATORS:
        raise ValueError(f"{where}: unknown operator {operator!r} (known: {', '.join(OPERATORS)})")
    if operator in ("prefix", "suffix", "equals-ignore-case") and not isinstance(operand, str):
        raise ValueError(f"{where}: {operator} takes a string")
    if operator == "exists" and not isinstance(operand, bool):
        raise ValueError(f"{where}: exists takes true or false")
    if operator == "anything-but":
        values = operand if isinstance(operand, list) else [operand]
        if not values or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
            raise ValueError(f"{where}: anything-but takes a string, a number or a list of them")
    if operator == "numeric":
        _check_numeric(operand, where)


def _check_numeric(operand, where: str) -> None:
    problem = f"{where}: numeric takes [op, number] or a range [>/>=, number, </<=, number]"
    if not isinstance(operand, list) or len(operand) not in (2, 4):
        raise ValueError(problem)
    pairs = list(zip(operand[::2], operand[1::2], strict=True))
    for op, number in pairs:
        if op not in COMPARISONS or isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ValueError(problem)
    if len(pairs) == 2 and (pairs[0][0] not in (">", ">=") or pairs[1][0] not in ("<", "<=")):
        raise ValueError(problem)


# -- matching -------------------------------------------------------------------


def _matches(pattern: dict, value) -> bool:
    for key, expected in pattern.items():
        if key == "$or":
            if not any(_matches(alternative, value) for alternative in expected):
                return False
            continue
        field = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        if isinstance(expected, dict):
            if not isinstance(field, dict) or not _matches(expected, field):
                return False
        elif not _any_rule(expected, field):
            return False
    return True


def _any_rule(rules: list, field) -> bool:
    if field is _UNREADABLE:
        return False
    values = field if isinstance(field, list) else [field]
    for rule in rules:
        if isinstance(rule, dict) and "exists" in rule:
            if rule["exists"] == (field is not _MISSING):
                return True
        elif field is not _MISSING and any(_rule(rule, value) for value in values):
            return True
    return False


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(rule, value) -> bool:
    if _number(rule) and _number(value):
        return float(rule) == float(value)
    return type(rule) is type(value) and rule == value


def _rule(rule, value) -> bool:
    if not isinstance(rule, dict):
        return _equal(rule, value)
    ((operator, operand),) = rule.items()
    if operator == "prefix":
        return isinstance(value, str) and value.startswith(operand)
    if operator == "suffix":
        return isinstance(value, str) and value.endswith(operand)
    if operator == "equals-ignore-case":
        return isinstance(value, str) and value.casefold() == operand.casefold()
    if operator == "anything-but":
        excluded = operand if isinstance(operand, list) else [operand]
        return not any(_equal(item, value) for item in excluded)
    # numeric
    if not _number(value):
        return False
    return all(COMPARISONS[op](value, number) for op, number in zip(operand[::2], operand[1::2], strict=True))
