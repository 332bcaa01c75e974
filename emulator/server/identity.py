"""Account and region of a request, read from its SigV4 credential.

An access key of exactly 12 digits selects that account (as local AWS
tooling does); any other key, or none, uses the default account.
"""

import re
from typing import NamedTuple

from emulator.protocol import HttpRequest

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d{8}/([^/,\s]+)/")


def valid_account_id(value) -> bool:
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
    match = _CREDENTIAL.search(request.headers.get("authorization", ""))
    if match:
        access_key, region = match.groups()
    else:
        # Presigned query-protocol requests carry the scope in X-Amz-Credential.
        credential = request.args.get("X-Amz-Credential", "") if request.query_string else ""
        parts = credential.split("/")
        access_key, region = (parts[0], parts[2]) if len(parts) >= 3 else (None, default_region)
    account = access_key if valid_account_id(access_key) else default_account
    return Identity(account, region, access_key)
