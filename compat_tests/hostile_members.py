"""Every scalar member of botocore's SQS model, one hostile value at a time, for
compat_tests/api/test_hostile_requests.py and scripts/fuzz.py (issue 31, item 9).

`leaves()` lists every integer, string and blob member of every operation's input: inside
every batch entry and attribute map (a queue attribute map at each attribute's name), and
each map's key. `leaf_request` gives one of them a value of its kind that once answered 500
(a lone surrogate in a batch entry, an integer of thousands of digits, nesting past the JSON
decoder inside a policy), with the operation's other required members valid so the request
reaches it, in JSON 1.0 or the query protocol; compat_tests/hostile.py judges the answer.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass

from hypothesis import strategies as st

from compat_tests.hostile import DEEP, DLQ, MODEL, STANDARD, Request, fixture_urls

KEY = "<key>"  # a map's key, in a member's path
# Texts for an integer member: past Python's 4,300 digits for int(), past 64 bits, all zeros
# (a valid 0, never a long poll's wait), an exponent, and what int() takes but the wire must not.
HOSTILE_INTEGERS = [
    "9" * 5000,
    "-" + "9" * 5000,
    "0" * 5000,
    "1" + "0" * 40,
    "9" * 4000,
    "1e400",
    "1.5",
    "",
    " 1",
    "\u0663",  # ARABIC-INDIC DIGIT THREE: int() reads it as 3
]
# Texts for a string member (and a blob's base64, and a map's key): lone surrogates, characters
# outside XML's set, integers of thousands of digits (attribute values are read as numbers),
# nesting past the JSON decoder's limit, and JSON policies holding such numbers.
_DLQ_ARN = f"arn:aws:sqs:us-east-1:000000000000:{DLQ}"
HOSTILE_STRINGS = [
    "\ud800",
    "a\udfffb",
    "\x00",
    "9" * 5000,
    "[" * DEEP,
    json.dumps({"deadLetterTargetArn": _DLQ_ARN, "maxReceiveCount": "9" * 5000}),
    json.dumps({"deadLetterTargetArn": _DLQ_ARN, "maxReceiveCount": 0}).replace("0}", "9" * 4000 + "}"),
    json.dumps({"Statement": [{"Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Condition": 0}]}).replace(
        "0}", "[" * DEEP + "}"
    ),
]


_JSON_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?(e[0-9]+)?")


class Raw(str):
    """A JSON value written as it is (a number no encoder writes: 4,000 digits, 1e400)."""


@dataclass(frozen=True)
class Leaf:
    """One scalar member of an operation's input, by its path (list items at 1, map values at a key)."""

    operation: str
    path: tuple
    kind: str  # integer, string, blob; "key" for a map's key

    def __str__(self) -> str:
        return f"{self.operation}." + ".".join(str(part) for part in self.path)

    def values(self) -> list:
        """The hostile values of its kind, as JSON values (the query protocol sends their text)."""
        if self.kind != "integer":
            return HOSTILE_STRINGS
        # In JSON a number as a number (which the decoder reads or refuses), the rest as strings.
        return [Raw(text) if _JSON_NUMBER.fullmatch(text) else text for text in HOSTILE_INTEGERS] + [True]


def leaves() -> list[Leaf]:
    """Every integer, string and blob member of every operation's input, inside lists (every batch
    entry's) and maps (a queue attribute map at each attribute's name), and every map's key."""
    found: list[Leaf] = []

    def walk(operation: str, shape, path: tuple) -> None:
        kind = shape.type_name
        if kind == "structure":
            for name, member in shape.members.items():
                walk(operation, member, (*path, name))
        elif kind == "list":
            walk(operation, shape.member, (*path, 1))
        elif kind == "map":
            found.append(Leaf(operation, (*path, KEY), "key"))
            for key in shape.key.enum or ["x"]:
                walk(operation, shape.value, (*path, key))
        elif kind in ("integer", "long", "string", "blob"):
            found.append(Leaf(operation, path, "integer" if kind == "long" else kind))

    for operation in sorted(MODEL.operation_names):
        shape = MODEL.operation_model(operation).input_shape
        if shape is not None:
            walk(operation, shape, ())
    return found


def _sound(name: str, shape, urls: dict[str, str], binary: bool):
    """A valid value of a member, so that a request reaches the member under test."""
    defaults = {
        "QueueUrl": urls[STANDARD],
        "QueueName": STANDARD,
        "Label": "hostile-label",
        "AWSAccountIds": ["000000000000"],
        "Actions": ["SendMessage"],
        "SourceArn": _DLQ_ARN,
        "Tags": {"team": "hostile"},
        "Attributes": {"DelaySeconds": "0"},
        "TagKeys": ["team"],
        "Id": "e1",
        "MessageBody": "hostile",
        "DataType": "Binary" if binary else "String",
        "StringValue": "v",
        "VisibilityTimeout": 0,
    }
    if name in defaults:
        return defaults[name]
    kind = shape.type_name
    if kind == "structure":
        names = [*shape.required_members, *(["StringValue"] if "StringValue" in shape.members else [])]
        return {key: _sound(key, shape.members[key], urls, binary) for key in names}
    if kind == "list":
        return [_sound("", shape.member, urls, binary)]
    return next(iter(shape.enum)) if getattr(shape, "enum", None) else "v"


def _holding(shape, path: tuple, value, urls: dict[str, str], binary: bool):
    """A value of `shape` with `value` at `path` and valid required members beside it."""
    if not path:
        return value
    part, rest = path[0], path[1:]
    kind = shape.type_name
    if kind == "list":
        return [_holding(shape.member, rest, value, urls, binary)]
    if kind == "map":
        if part == KEY:
            return {value: _sound("", shape.value, urls, binary)}
        return {part: _holding(shape.value, rest, value, urls, binary)}
    out = {name: _sound(name, shape.members[name], urls, binary) for name in shape.required_members}
    out[part] = _holding(shape.members[part], rest, value, urls, binary)
    return out


def leaf_params(leaf: Leaf, value, urls: dict[str, str]) -> dict:
    """The operation's required members, valid, with `value` at the leaf's path."""
    binary = any("Binary" in str(part) for part in leaf.path)
    return _holding(MODEL.operation_model(leaf.operation).input_shape, leaf.path, value, urls, binary)


def _query_pairs(shape, node, prefix: str) -> list[tuple[str, str]]:
    """The query protocol's keys by member name (Entries.1.Id, Attributes.1.Name and .1.Value,
    tags' .1.Key), which the server reads as well as the old model's names."""
    kind = shape.type_name
    if kind == "structure":
        return [
            pair
            for name, value in node.items()
            for pair in _query_pairs(shape.members[name], value, f"{prefix}.{name}" if prefix else name)
        ]
    if kind == "list":
        return [pair for i, value in enumerate(node, 1) for pair in _query_pairs(shape.member, value, f"{prefix}.{i}")]
    if kind == "map":
        key_name = "Key" if shape.name == "TagMap" else "Name"
        pairs = []
        for i, (key, value) in enumerate(node.items(), 1):
            pairs.append((f"{prefix}.{i}.{key_name}", key))
            pairs += _query_pairs(shape.value, value, f"{prefix}.{i}.Value")
        return pairs
    if isinstance(node, bool):
        return [(prefix, "true" if node else "false")]
    return [(prefix, str(node))]


def leaf_request(leaf: Leaf, value, protocol: str, urls: dict[str, str]) -> Request:
    params = leaf_params(leaf, value, urls)
    if protocol == "json":
        raws: list[str] = []

        def encode(node):
            if isinstance(node, Raw):
                raws.append(str(node))
                return f"\x00raw{len(raws) - 1}\x00"
            if isinstance(node, dict):
                return {key: encode(child) for key, child in node.items()}
            return [encode(child) for child in node] if isinstance(node, list) else node

        text = json.dumps(encode(params))
        for number, raw in enumerate(raws):
            text = text.replace(json.dumps(f"\x00raw{number}\x00"), raw)
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"AmazonSQS.{leaf.operation}"}
        return Request("POST", "/", headers, text.encode("utf-8", "surrogatepass"), "json")
    shape = MODEL.operation_model(leaf.operation).input_shape
    pairs = [("Action", leaf.operation), ("Version", "2012-11-05"), *_query_pairs(shape, params, "")]
    body = "&".join(
        urllib.parse.quote(key, safe=".", errors="surrogatepass")
        + "="
        + urllib.parse.quote(text, safe="", errors="surrogatepass")
        for key, text in pairs
    )
    return Request("POST", "/", {"Content-Type": "application/x-www-form-urlencoded"}, body.encode("ascii"), "query")


@st.composite
def requests(draw, endpoint: str, protocols: tuple[str, ...] = ("json", "query")) -> Request:
    """A request with a hostile value at one member, for the fuzz."""
    leaf = draw(st.sampled_from(LEAVES))
    return leaf_request(
        leaf, draw(st.sampled_from(leaf.values())), draw(st.sampled_from(protocols)), fixture_urls(endpoint)
    )


LEAVES = leaves()
