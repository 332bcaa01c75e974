"""The one walk over botocore's shapes that every wire format shares.

``walk`` recurses through structures, lists and maps, reading a request into
params or writing an output into a response's tree. A ``Codec`` is what one
protocol adds: where a value's parts are in its source form, what each leaf
becomes, and how the parts are assembled and named in the target form. The
defaults suit the api layer's form (plain dicts keyed by member name, lists,
Python scalars) as the source, so a response writer overrides only its leaves
and names.
"""

import base64
import binascii
from collections.abc import Iterable, Iterator
from typing import Any

from botocore.model import Shape

from .model import invalid_value

# The structure member a value sits in: (structure shape name, member name);
# None for a list element or a map value.
Site = tuple[str, str] | None


def walk(codec: "Codec", shape: Shape, node: Any, path: str = "", site: Site = None) -> Any:
    """``node``, a value of ``shape`` in the codec's source form, in its target form; None stays None.

    ``path`` names the value in error messages (``Entries.2.Id``).
    """
    if node is None:
        return None
    kind = shape.type_name
    if kind == "structure":
        out: dict = {}
        for name, member, child, child_path in codec.members(shape, node, path):
            codec.put(out, shape, name, walk(codec, member, child, child_path, (shape.name, name)))
        return out
    if kind == "list":
        parts = codec.elements(shape, node, path, site)
        return codec.list([walk(codec, shape.member, child, child_path) for child, child_path in parts], site)
    if kind == "map":
        parts = codec.entries(shape, node, path, site)
        return codec.map({key: walk(codec, shape.value, child, child_path) for key, child, child_path in parts}, site)
    return codec.leaf(shape, node, path)


class Codec:
    """One protocol's side of ``walk``. Source hooks find parts; target hooks build."""

    # ------------------------------------------------ the source form

    def members(self, shape: Shape, node: Any, path: str) -> Iterator[tuple[str, Shape, Any, str]]:
        """(name, member shape, value or None, path) for every member of the structure ``shape``."""
        for name, member in shape.members.items():
            yield name, member, node.get(name), path

    def elements(self, shape: Shape, node: Any, path: str, site: Site) -> Iterable[tuple[Any, str]]:
        """(element, path) of the list ``node``."""
        return ((element, path) for element in node)

    def entries(self, shape: Shape, node: Any, path: str, site: Site) -> Iterable[tuple[str, Any, str]]:
        """(key, value, path) of the map ``node``."""
        return ((key, value, path) for key, value in node.items())

    def leaf(self, shape: Shape, node: Any, path: str) -> Any:
        return node

    # ------------------------------------------------ the target form

    def put(self, out: dict, structure: Shape, name: str, value: Any) -> None:
        """Place member ``name`` of ``structure`` in ``out``; absent members are left out."""
        if value is not None:
            out[name] = value

    def list(self, items: list, site: Site) -> Any:
        return items

    def map(self, entries: dict, site: Site) -> Any:
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
