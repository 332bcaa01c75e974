"""The walk over botocore's shapes that the query protocol's reader and writer share.

``walk`` recurses through structures, lists and maps, reading a request into
params or writing an output into a response's tree. A ``Codec`` is what one
protocol adds: what each member is called on either side, where a value's
parts are, what each leaf becomes and how lists and maps are laid out. The
defaults read the api layer's form (dicts keyed by member name, lists, Python
scalars) and write JSON values (blobs in base64), so a writer overrides only
what its format does differently. (The JSON values of the other protocols are
read and written by prepared_json, prepared once per shape.)
"""

import base64
import binascii
from collections.abc import Iterable
from typing import Any

from botocore.model import Shape

from .model import invalid_value

_CONTAINERS = frozenset(("structure", "list", "map"))


def walk(codec: "Codec", shape: Shape, node: Any, path: str = "", names: Any = None) -> Any:
    """``node``, a value of ``shape`` in the codec's source form, in its target form; None stays None.

    ``path`` names the value in error messages (``Entries.2.Id``). ``names`` is
    what the codec's ``members`` noted about the member this value is (its wire
    names); None inside a list or a map.
    """
    if node is None:
        return None
    kind = shape.type_name
    if kind == "structure":
        out: dict = {}
        for key, member, child, child_path, member_names in codec.members(shape, node, path):
            value = _child(codec, member, child, child_path, member_names)
            if value is not None:
                out[key] = value
        return out
    if kind == "list":
        member = shape.member
        elements = codec.elements(node, path, names)
        items = [_child(codec, member, child, child_path, None) for child, child_path in elements]
        return codec.as_list(items, names)
    if kind == "map":
        value_shape = shape.value
        pairs = codec.entries(node, path, names)
        entries = {key: _child(codec, value_shape, child, child_path, None) for key, child, child_path in pairs}
        return codec.as_map(entries, names)
    return codec.leaf(shape, node, path)


def _child(codec: "Codec", shape: Shape, node: Any, path: str, names: Any) -> Any:
    # Most values are leaves: one call to the codec instead of a recursion (a
    # response of ten messages has about a hundred of them).
    if node is None:
        return None
    kind = shape.type_name
    if kind in _CONTAINERS:
        return walk(codec, shape, node, path, names)
    return codec.leaf(shape, node, path)


class Codec:
    """One protocol's side of ``walk``, reading or writing."""

    def members(self, shape: Shape, node: Any, path: str) -> Iterable[tuple[str, Shape, Any, str, Any]]:
        """(target key, member shape, source value, path, wire names) of the members of ``node``.

        A member need not be listed when it is absent. The wire names are the codec's own; ``walk``
        hands them to ``elements``, ``entries``, ``as_list`` and ``as_map``.
        """
        # A list, not a generator: this runs for every structure of every response.
        return [
            (name, member, child, path, None)
            for name, member in shape.members.items()
            if (child := node.get(name)) is not None
        ]

    def elements(self, node: Any, path: str, names: Any) -> Iterable[tuple[Any, str]]:
        """(element, path) of the list ``node``."""
        return [(element, path) for element in node]

    def entries(self, node: Any, path: str, names: Any) -> Iterable[tuple[str, Any, str]]:
        """(key, value, path) of the map ``node``."""
        return [(key, value, path) for key, value in node.items()]

    def leaf(self, shape: Shape, node: Any, path: str) -> Any:
        return blob_text(node) if shape.type_name == "blob" else node

    def as_list(self, items: list, names: Any) -> Any:
        return items

    def as_map(self, entries: dict, names: Any) -> Any:
        return entries


def blob_text(value: bytes | str) -> str:
    """A blob output as base64 (the api layer may hand text for a blob)."""
    return base64.b64encode(value.encode() if isinstance(value, str) else value).decode("ascii")


def blob_bytes(text: str, path: str) -> bytes:
    """A base64 blob of a request, or InvalidParameterValue naming ``path``."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):  # ValueError: non-ASCII text
        raise invalid_value(text, path, "Must be base64 encoded.") from None
