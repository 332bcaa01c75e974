"""What the HTTP server holds a client to (the command line's --max-* and --*-timeout), and
the sizes of the largest valid requests it must take."""

from __future__ import annotations

from dataclasses import dataclass

from emulator import limits

# The largest valid request body in each protocol: 1 MiB of message (a batch's entries
# together, attributes included) as its encoding may grow it, plus 64 KiB for the rest of
# a batch of 10 (ids, names, the queue URL).
# - JSON: botocore writes a two-byte character as a six-byte \u escape (3x); a Binary
#   value is base64 (4/3).
# - query: a form URL-encodes every byte outside the unreserved set as %XX (3x), and a
#   Binary value is base64 first, whose "+" and "/" become %2B and %2F: 1 MiB of 0xFF
#   bytes is 4 MiB on the wire (4x).
REST_OF_A_BATCH = 64 * 1024
LARGEST_JSON_BODY = 3 * limits.MAX_MESSAGE_SIZE + REST_OF_A_BATCH
LARGEST_QUERY_BODY = 4 * limits.MAX_MESSAGE_SIZE + REST_OF_A_BATCH
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int | None  # a larger body is refused (413) before it is read; None: by protocol (above)
    max_connections: int  # open connections at most; at the cap, an idle one is closed for a newcomer
    max_waits: int  # long polls waiting at once; one more is answered at once, empty
    request_timeout: float  # seconds for a request's head to arrive, and for its body
    idle_timeout: float  # seconds a kept-alive connection may wait for its next request
    write_timeout: float  # seconds an answer may take to be read whole before the connection closes
    body_budget: int = 32 * LARGEST_QUERY_BODY  # bytes of bodies being read, all connections together
    answer_budget: int = 128 * 1024 * 1024  # bytes of answers written and not yet taken by their clients

    def body_limit(self, content_type: str | None) -> int:
        """The largest body a request of this content type may have: the query protocol's
        (a form) or JSON's, unless --max-body-bytes says."""
        if self.max_body_bytes is not None:
            return self.max_body_bytes
        if content_type is not None and content_type.startswith(FORM):
            return LARGEST_QUERY_BODY
        return LARGEST_JSON_BODY
