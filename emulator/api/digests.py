"""MD5 digests exactly as AWS computes them (sqs-message-metadata,
"Calculating the MD5 message digest for message attributes"); SDKs verify them."""

import hashlib
import struct
from typing import Any


def md5_of_body(encoded: bytes) -> bytes:
    """Of the body's UTF-8 bytes (a send has them already: it counts them against the size limit);
    the 16 bytes, which the engine keeps in the message's key."""
    return hashlib.md5(encoded).digest()


def _length_prefixed(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def md5_of_attributes(attributes: dict[str, dict[str, Any]]) -> str | None:
    """Digest of message (or system) attributes; None when there are none,
    since AWS leaves the field out rather than hashing nothing."""
    if not attributes:
        return None
    buffer = bytearray()
    for name in sorted(attributes):
        value = attributes[name]
        data_type = value["DataType"]
        buffer += _length_prefixed(name.encode("utf-8"))
        buffer += _length_prefixed(data_type.encode("utf-8"))
        if data_type.startswith("Binary"):
            buffer += b"\x02" + _length_prefixed(value["BinaryValue"])
        else:
            buffer += b"\x01" + _length_prefixed(value["StringValue"].encode("utf-8"))
    return hashlib.md5(buffer).hexdigest()
