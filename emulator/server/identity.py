"""Account and region of a request, read from its SigV4 credential.

An access key of exactly 12 digits selects that account (as local AWS
tooling does); any other key, or none, uses the default account.
"""

import functools
import re
from typing import NamedTuple, TypeGuard

from emulator.protocol import HttpRequest

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d{8}/([^/,\s]+)/")


def valid_account_id(value) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 12 and value.isdigit()


class Identity(NamedTuple):
    account: str
    region: str
    access_key: str | None

    @property
    def named(self) -> bool:
        """Whether the request named its account (a 12-digit key) rather than took the default:
        then the caller's account is known, and AWS's rule for other accounts' queues holds."""
        return valid_account_id(self.access_key)


def identify(request: HttpRequest, default_account: str, default_region: str) -> Identity:
    header = request.headers.get("authorization", "")
    # No match spans a comma, so the first is in the header's first part if any is: that part
    # ("AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/sqs/aws4_request") is the same on
    # every request of a client for a day, and its reading is kept; the signature after it never is.
    first, comma, _ = header.partition(",")
    identity = _first_identity(first, default_account)
    if identity is None and comma:
        identity = _signed_identity(header, default_account)
    if identity is not None:
        return identity
    # Presigned query-protocol requests carry the scope in X-Amz-Credential.
    credential = request.args.get("X-Amz-Credential", "") if request.query_string else ""
    parts = credential.split("/")
    access_key, region = (parts[0], parts[2]) if len(parts) >= 3 else (None, default_region)
    return Identity(access_key if valid_account_id(access_key) else default_account, region, access_key)


def _signed_identity(text: str, default_account: str) -> Identity | None:
    """The identity of the first credential in `text` (None if it holds none)."""
    match = _CREDENTIAL.search(text)
    if match is None:
        return None
    access_key, region = match.groups()
    return Identity(access_key if valid_account_id(access_key) else default_account, region, access_key)


_first_identity = functools.lru_cache(maxsize=64)(_signed_identity)  # a client sends the same few again and again
