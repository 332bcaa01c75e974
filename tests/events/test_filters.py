"""Lambda's event filtering patterns on SQS records (emulator/events/filters.py).

Lambda Developer Guide, "Control which events Lambda sends to your function":
the comparison operators table (each row is a case below) and "Using event
filtering with an Amazon SQS event source" (the body is filtered as JSON).
"""

import json

import pytest

from emulator.events.filters import Pattern


def record(body, **attributes) -> dict:
    return {
        "messageId": "m1",
        "body": body if isinstance(body, str) else json.dumps(body),
        "attributes": {"ApproximateReceiveCount": "1", "SenderId": "000000000000", **attributes},
        "messageAttributes": {},
    }


@pytest.mark.parametrize(
    "rule, value, matches",
    [
        # Equals
        (["Alice"], "Alice", True),
        (["Alice"], "alice", False),
        ([100], 100, True),
        ([100], 100.0, True),
        ([100], "100", False),
        # Null and Empty
        ([None], None, True),
        ([None], "", False),
        ([""], "", True),
        # Or: several values
        (["a", "b"], "b", True),
        # Equals ignore case
        ([{"equals-ignore-case": "ALICE"}], "alice", True),
        # Prefix and suffix
        ([{"prefix": "ord-"}], "ord-17", True),
        ([{"prefix": "ord-"}], "ref-17", False),
        ([{"suffix": ".png"}], "cat.png", True),
        ([{"suffix": ".png"}], "cat.jpg", False),
        # Not
        ([{"anything-but": ["x", "y"]}], "z", True),
        ([{"anything-but": ["x", "y"]}], "x", False),
        ([{"anything-but": "x"}], "x", False),
        # Numeric equals and ranges
        ([{"numeric": ["=", 5]}], 5, True),
        ([{"numeric": [">", 0, "<=", 5]}], 5, True),
        ([{"numeric": [">", 0, "<=", 5]}], 0, False),
        ([{"numeric": [">=", 10]}], "10", False),  # a string is not a number
        # Exists
        ([{"exists": True}], "anything", True),
        # a JSON array in the body matches when any element does
        (["b"], ["a", "b"], True),
    ],
)
def test_each_operator_of_lambdas_table(rule, value, matches):
    assert Pattern.parse({"body": {"field": rule}}).matches(record({"field": value})) is matches


def test_exists_false_matches_a_missing_field_and_exists_true_does_not():
    assert Pattern.parse({"body": {"gone": [{"exists": False}]}}).matches(record({"other": 1}))
    assert not Pattern.parse({"body": {"gone": [{"exists": True}]}}).matches(record({"other": 1}))
    assert not Pattern.parse({"body": {"gone": [{"exists": False}]}}).matches(record({"gone": 1}))


def test_keys_are_anded_and_or_spans_keys():
    both = Pattern.parse({"body": {"kind": ["order"], "amount": [{"numeric": [">", 10]}]}})
    assert both.matches(record({"kind": "order", "amount": 11}))
    assert not both.matches(record({"kind": "order", "amount": 5}))
    either = Pattern.parse({"body": {"$or": [{"kind": ["order"]}, {"amount": [{"numeric": [">", 10]}]}]}})
    assert either.matches(record({"kind": "refund", "amount": 11}))
    assert not either.matches(record({"kind": "refund", "amount": 5}))


def test_nested_fields_of_the_body():
    pattern = Pattern.parse({"body": {"order": {"customer": {"tier": ["gold"]}}}})
    assert pattern.matches(record({"order": {"customer": {"tier": "gold"}}}))
    assert not pattern.matches(record({"order": {"customer": "gold"}}))


def test_a_plain_text_body_is_matched_as_a_string():
    assert Pattern.parse({"body": [{"prefix": "ERROR"}]}).matches(record("ERROR: disk full"))
    assert not Pattern.parse({"body": {"level": ["ERROR"]}}).matches(record("ERROR: disk full"))


def test_the_records_attributes_can_be_matched_too():
    pattern = Pattern.parse({"attributes": {"ApproximateReceiveCount": ["1"]}})
    assert pattern.matches(record("x"))
    assert not pattern.matches(record("x", ApproximateReceiveCount="2"))


def test_a_pattern_may_be_given_as_lambdas_filter_criteria_text():
    text = json.dumps({"body": {"kind": ["order"]}})
    assert Pattern.parse({"Pattern": text}).matches(record({"kind": "order"}))
    assert Pattern.parse(text).source == {"body": {"kind": ["order"]}}


@pytest.mark.parametrize(
    "pattern, problem",
    [
        ("{not json", "a pattern given as text must be JSON"),
        ([], "a pattern is a non-empty JSON object"),
        ({"body": "order"}, "body: a pattern's values are objects or lists of rules"),
        ({"body": {"kind": []}}, "body.kind: a list of rules must not be empty"),
        ({"body": {"kind": [{"wildcard": "o*"}]}}, "body.kind: unknown operator 'wildcard'"),
        ({"body": {"n": [{"numeric": [">", "5"]}]}}, "body.n: numeric takes"),
        ({"body": {"n": [{"numeric": ["<", 5, ">", 1]}]}}, "body.n: numeric takes"),
        ({"body": {"k": [{"prefix": 5}]}}, "body.k: prefix takes a string"),
        ({"body": {"k": [{"exists": "yes"}]}}, "body.k: exists takes true or false"),
        ({"body": {"$or": [{"a": ["x"]}]}}, "body.$or: $or takes a list of two or more patterns"),
    ],
)
def test_a_bad_pattern_is_refused_saying_where(pattern, problem):
    with pytest.raises(ValueError) as refused:
        Pattern.parse(pattern)
    assert str(refused.value).startswith(problem)


def test_a_body_nested_deeper_than_the_decoder_reads_matches_no_rule_on_the_body():
    # issue 31, item 6: json.loads raised RecursionError, which ended the mapping.
    deep = "[" * 5000 + "]" * 5000
    for pattern in (
        {"body": {"kind": ["order"]}},
        {"body": [{"exists": True}]},
        {"body": [{"anything-but": "x"}]},
        {"body": [{"prefix": "["}]},
    ):
        assert not Pattern.parse(pattern).matches(record(deep))
    assert Pattern.parse({"body": [{"exists": True}]}).matches(record("[[1]]"))


def test_a_pattern_nested_deeper_than_it_can_be_read_is_refused():
    with pytest.raises(ValueError, match="nested deeper than it can be read"):
        Pattern.parse('{"body": ' * 3000 + '["x"]' + "}" * 3000)
