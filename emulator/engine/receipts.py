"""Receipt handles: each names one receive of one message.

A handle carries the message id and the nonce minted by that receive; the
queue accepts it only while the nonce is the message's latest, so a stale
handle never touches a newer delivery.
"""

import base64
import binascii
import secrets
import uuid

from emulator.errors import SqsError


def new_nonce() -> str:
    return secrets.token_hex(16)


def encode(message_id: str, nonce: str) -> str:
    return base64.urlsafe_b64encode(f"{message_id}:{nonce}".encode()).decode()


def decode(handle: str) -> tuple[str, str]:
    """Return (message_id, nonce), or raise ReceiptHandleIsInvalid."""
    try:
        message_id, nonce = base64.urlsafe_b64decode(handle.encode()).decode().split(":")
        uuid.UUID(message_id)
        bytes.fromhex(nonce)
    except (ValueError, binascii.Error, UnicodeError):
        raise SqsError(
            "ReceiptHandleIsInvalid", f'The input receipt handle "{handle}" is not a valid receipt handle.'
        ) from None
    return message_id, nonce
