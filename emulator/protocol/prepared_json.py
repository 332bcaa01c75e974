"""Readers and writers of JSON values, prepared once per shape of botocore's model.

The JSON protocol's request body and the JSON answers (JSON 1.0, and the query
protocol answered in JSON) are the api layer's params and outputs as JSON values:
structures as objects, blobs in base64. What a shape's value becomes is known from
the model, so it is worked out once per shape into a function of plain loops
(the generic walk of shapes.py asked its codec about every member of every value
again, on every request: about a tenth of a SendMessageBatch).

A reader checks types and reports the first bad value by its path
(``Entries.2.DelaySeconds``), in the model's member order; the path is put together
only when there is one to report. Nulls are absent and unknown keys ignored.
"""

import functools
import json
from collections.abc import Callable
from typing import Any

from botocore.model import Shape

from emulator.errors import SqsError

from .model import invalid_value, unparsable
from .shapes import blob_bytes, blob_text

Convert = Callable[[Any], Any]


class _Bad(Exception):
    """A value a reader cannot take; `parts` gathers its path, innermost first, on the way out."""

    def __init__(self, fail: Callable[[str], object]):
        self.fail = fail  # raises the SqsError for the value at a path
        self.parts: list[str] = []


def read(shape: Shape, node: Any) -> Any:
    """``node``, a JSON value of ``shape``, as params; InvalidParameterValue naming the first bad value."""
    try:
        return _reader(shape)(node)
    except _Bad as bad:
        bad.fail(".".join(reversed(bad.parts)))
        raise AssertionError("fail() raises") from None


def _type_error(value: Any, reason: str) -> _Bad:
    def fail(path: str) -> None:
        try:
            shown = json.dumps(value)
        except RecursionError as exc:  # a value nested as deep as the decoder allows
            raise unparsable(exc) from None
        raise invalid_value(shown, path, reason)

    return _Bad(fail)


_READERS: dict[str, Convert] = {}


def _reader(shape: Shape) -> Convert:
    convert = _READERS.get(shape.name)
    if convert is None:
        convert = _READERS[shape.name] = _new_reader(shape)
    return convert


def _new_reader(shape: Shape) -> Convert:
    kind = shape.type_name
    if kind == "structure":
        members = [(name, _reader(member)) for name, member in shape.members.items()]

        def structure(node: Any) -> dict:
            if not isinstance(node, dict):
                raise _type_error(node, "Must be an object.")
            out = {}
            left = len(node)  # once every key of the node is read, no member is left to find
            for name, convert in members:
                child = node.get(name)
                if child is not None:
                    try:
                        out[name] = convert(child)
                    except _Bad as bad:
                        bad.parts.append(name)
                        raise
                    left -= 1
                    if not left:
                        break
            return out

        return structure
    if kind == "list":
        element = _reader(shape.member)

        def elements(node: Any) -> list:
            if not isinstance(node, list):
                raise _type_error(node, "Must be a list.")
            out = []
            for index, child in enumerate(node, 1):
                if child is not None:
                    try:
                        out.append(element(child))
                    except _Bad as bad:
                        bad.parts.append(str(index))
                        raise
            return out

        return elements
    if kind == "map":
        value = _reader(shape.value)

        def entries(node: Any) -> dict:
            if not isinstance(node, dict):
                raise _type_error(node, "Must be an object.")
            out = {}
            for key, child in node.items():
                if child is not None:
                    try:
                        out[key] = value(child)
                    except _Bad as bad:
                        bad.parts.append(key)
                        raise
            return out

        return entries
    return _LEAF_READERS.get(kind, _string)


def _integer(node: Any) -> int:
    if isinstance(node, int) and not isinstance(node, bool):  # bool is an int in Python, not in JSON
        return node
    raise _type_error(node, "Must be an integer.")


def _boolean(node: Any) -> bool:
    if isinstance(node, bool):
        return node
    raise _type_error(node, "Must be a boolean.")


def _number(node: Any) -> float:
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return float(node)
    raise _type_error(node, "Must be a number.")


def _string(node: Any) -> str:
    if isinstance(node, str):
        return node
    raise _type_error(node, "Must be a string.")


def _blob(node: Any) -> bytes:
    text = _string(node)
    try:
        return blob_bytes(text, "")
    except SqsError:  # blob_bytes says why again, with the path once it is known
        raise _Bad(functools.partial(blob_bytes, text)) from None


_LEAF_READERS: dict[str, Convert] = {
    "integer": _integer,
    "long": _integer,
    "boolean": _boolean,
    "float": _number,
    "double": _number,
    "blob": _blob,
}


# ---------------------------------------------------------------- writers


class Writer:
    """Outputs to JSON values: blobs in base64, other scalars as they are.

    `keep_absent`: an absent member is null, and nulls in lists and maps stay
    (the query protocol's JSON form); otherwise all are left out (JSON 1.0).
    `names`: (structure, member) -> the member's name in the JSON, where it is not its own.
    """

    def __init__(self, keep_absent: bool = False, names: dict[tuple[str, str], str] | None = None):
        self.keep_absent = keep_absent
        self.names = names or {}
        self._prepared: dict[str, Convert | None] = {}

    def write(self, shape: Shape, node: Any) -> Any:
        convert = self._convert(shape)
        return node if convert is None else convert(node)

    def _convert(self, shape: Shape) -> Convert | None:
        """What a value of `shape` goes through; None: it is its own JSON value."""
        if shape.name not in self._prepared:
            self._prepared[shape.name] = self._new(shape)
        return self._prepared[shape.name]

    def _new(self, shape: Shape) -> Convert | None:
        kind = shape.type_name
        if kind == "structure":
            return self._structure(shape)
        if kind == "list":
            return self._list(self._convert(shape.member))
        if kind == "map":
            return self._map(self._convert(shape.value))
        return blob_text if kind == "blob" else None

    def _structure(self, shape: Shape) -> Convert:
        members = [
            (name, self.names.get((shape.name, name), name), self._convert(member))
            for name, member in shape.members.items()
        ]
        if self.keep_absent:

            def every_member(node: dict) -> dict:
                out = {}
                for name, key, convert in members:
                    child = node.get(name)
                    out[key] = child if convert is None or child is None else convert(child)
                return out

            return every_member
        if all(convert is None for _, key, convert in members) and all(name == key for name, key, _ in members):
            names = [name for name, _, _ in members]
            # Most structures of an answer (a sent entry, a message): only scalars.
            return lambda node: {name: child for name in names if (child := node.get(name)) is not None}

        def present_members(node: dict) -> dict:
            out = {}
            for name, key, convert in members:
                child = node.get(name)
                if child is not None:
                    out[key] = child if convert is None else convert(child)
            return out

        return present_members

    def _list(self, convert: Convert | None) -> Convert:
        if self.keep_absent:
            if convert is None:
                return list
            return lambda node: [None if child is None else convert(child) for child in node]
        if convert is None:
            return lambda node: [child for child in node if child is not None]
        return lambda node: [convert(child) for child in node if child is not None]

    def _map(self, convert: Convert | None) -> Convert:
        if self.keep_absent:
            if convert is None:
                return dict
            return lambda node: {key: None if child is None else convert(child) for key, child in node.items()}
        if convert is None:
            return lambda node: {key: child for key, child in node.items() if child is not None}
        return lambda node: {key: convert(child) for key, child in node.items() if child is not None}
