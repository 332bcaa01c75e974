"""Receipt handles, and what an earlier handle of a message may still do.

A handle carries the message id and the nonce minted by that receive, so the
queue can tell the latest handle of a message from an earlier ("stale") one.
What a stale or expired handle may do is a policy, one per queue:

* AWS (standard queues, the default): any handle of a message that still
  exists deletes it and changes its visibility, as AWS-recorded responses show.
* STRICT (``--receipts strict``, the seed design): only the latest handle acts;
  a stale delete succeeds and deletes nothing, a stale visibility change fails.
* FIFO (every FIFO queue): a handle acts only while its own receive's
  visibility lasts; after that it has expired and both calls fail.
"""

import base64
import binascii
import secrets
import uuid

from emulator.errors import SqsError, invalid_parameter

MODES = ("aws", "strict")


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


def not_available(handle: str) -> SqsError:
    return invalid_parameter(
        f"Value {handle} for parameter ReceiptHandle is invalid. "
        "Reason: Message does not exist or is not available for visibility timeout change."
    )


def expired(handle: str) -> SqsError:
    error = invalid_parameter(
        f"Value {handle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
    )
    # A batch entry reports it as ReceiptHandleIsInvalid (real AWS output, smaskalik/sqsmover#54).
    error.batch_form = SqsError("ReceiptHandleIsInvalid", "The receipt handle has expired")
    return error


class AwsReceipts:
    """Every handle of a live message acts on it."""

    def may_delete(self, handle: str, latest: bool, inflight: bool) -> bool:
        return True

    def may_change(self, handle: str, latest: bool, inflight: bool) -> bool:
        return True


class StrictReceipts:
    """Only the latest handle acts: a stale one never touches a newer delivery."""

    def may_delete(self, handle: str, latest: bool, inflight: bool) -> bool:
        return latest

    def may_change(self, handle: str, latest: bool, inflight: bool) -> bool:
        if not latest:
            raise not_available(handle)
        return True


class FifoReceipts:
    """A handle lives as long as its receive's visibility timeout."""

    def may_delete(self, handle: str, latest: bool, inflight: bool) -> bool:
        if not (latest and inflight):
            raise expired(handle)
        return True

    may_change = may_delete


POLICIES = {"aws": AwsReceipts(), "strict": StrictReceipts()}
FIFO = FifoReceipts()
