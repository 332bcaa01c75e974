"""Receipt handles, and what an earlier handle of a message may still do.

A handle carries the message's arrival number and id and the nonce minted by
that receive, so the queue can tell the latest handle of a message from an
earlier ("stale") one.
What a stale or expired handle may do is a policy, one per queue:

* AWS (standard queues, the default): any handle of a message that still
  exists deletes it and changes its visibility, as AWS-recorded responses show.
* STRICT (``--receipts strict``, the seed design): only the latest handle acts;
  a stale delete succeeds and deletes nothing, a stale visibility change fails.
* FIFO (every FIFO queue): a handle acts only while its own receive's
  visibility lasts; after that it has expired and both calls fail.
"""

import struct
from collections.abc import Callable
from functools import partial
from random import getrandbits

from emulator.errors import SqsError, invalid_parameter

MODES = ("aws", "strict")

# A handle is the hex of: the message's arrival number in its queue (where the queue
# looks it up), the 16 bytes of its id (so that a handle names one message of one
# queue), and the receive's nonce. The struct takes the first 16 bytes of the
# message's key (Message.key: id, then body digest).
_HANDLE = struct.Struct(">Q16sQ")
_HANDLE_LENGTH = 2 * _HANDLE.size


# A receive's nonce: random, so that no two receives of a message share one (an earlier
# handle is told from the latest by it) and a handle cannot be made up from an id.
new_nonce: Callable[[], int] = partial(getrandbits, 64)


def encode(seq: int, key: bytes, nonce: int) -> str:
    return _HANDLE.pack(seq, key, nonce).hex()


def decode(handle: str) -> tuple[int, bytes, int]:
    """Return (arrival number, id bytes, nonce), or raise ReceiptHandleIsInvalid."""
    try:
        if len(handle) != _HANDLE_LENGTH:
            raise ValueError
        return _HANDLE.unpack(bytes.fromhex(handle))
    except (ValueError, TypeError, struct.error):
        raise SqsError(
            "ReceiptHandleIsInvalid", f'The input receipt handle "{handle}" is not a valid receipt handle.'
        ) from None


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
