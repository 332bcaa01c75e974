"""--require-auth: who signed a request, checked with botocore's own SigV4 signer.

The signature is computed again over the request as received (its method, path,
query, the headers it names as signed, and the SHA-256 of its body bytes, whatever
a signed X-Amz-Content-SHA256 claims) with the secret of the access key it names,
and compared in constant time. Both forms: the Authorization header, and a
presigned query string (X-Amz-Signature), whose body (empty when botocore presigns)
is bound too. The checks read the sans-IO request (emulator/protocol/request.py:
method, path, query, headers, body bytes). AWS's errors:

* no signature at all: MissingAuthenticationToken (AWS's Common Errors page);
* a signature that is not SigV4's form, or an Authorization header with another
  parameter than Credential, SignedHeaders and Signature, or one of them twice:
  IncompleteSignature;
* a key that is not configured: InvalidClientTokenId;
* a wrong signature, or a body other than the one signed: SignatureDoesNotMatch;
* a scope of another service than sqs, or of another day than X-Amz-Date's:
  SignatureDoesNotMatch with the wording of AWS's "Troubleshoot signed requests"
  page (general reference, signature-v4-troubleshooting);
* a request dated more than 15 minutes from now: SignatureDoesNotMatch with
  "Signature expired" (SQS as reported in aws/aws-sdk-go#487 and aws/aws-sdk-js#401);
* a presigned URL past its X-Amz-Expires: RequestExpired (Common Errors page).
"""

import hashlib
import hmac
import time
from datetime import UTC, datetime, timedelta
from typing import NamedTuple
from urllib.parse import parse_qsl

from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from emulator.errors import SqsError
from emulator.protocol import HttpRequest

ALGORITHM = "AWS4-HMAC-SHA256"
SERVICE = "sqs"
HEADER_PARAMETERS = ("Credential", "SignedHeaders", "Signature")
MAX_SKEW = timedelta(minutes=15)
MAX_PRESIGNED_EXPIRY = 7 * 86400  # seconds, SigV4's limit for a presigned URL
WRONG_SIGNATURE = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)


class Credential(NamedTuple):
    access_key: str
    secret_key: str
    account: str


class Signed(NamedTuple):
    """What a request's signature claims, before it is checked."""

    access_key: str
    date: str  # the scope's yyyymmdd
    region: str
    service: str
    signed_headers: list[str]
    signature: str
    timestamp: str  # X-Amz-Date, yyyymmddThhmmssZ
    expires: int | None  # a presigned URL's X-Amz-Expires; None for the header form


def _incomplete(message: str) -> SqsError:
    return SqsError("IncompleteSignature", message)


def _scope(credential: str) -> tuple[str, str, str, str]:
    parts = credential.split("/")
    if len(parts) != 5 or parts[4] != "aws4_request" or not all(parts[:4]):
        raise _incomplete(f"Credential should be scoped to a valid region, not {credential!r}.")
    return parts[0], parts[1], parts[2], parts[3]


def _from_header(header: str, amz_date: str | None) -> Signed:
    algorithm, _, rest = header.partition(" ")
    if algorithm != ALGORITHM:
        raise _incomplete(f"Authorization header requires the {ALGORITHM} algorithm.")
    pairs = [part.strip().partition("=")[::2] for part in rest.split(",")]
    fields = dict(pairs)
    # Each of the three once, and nothing else: the account and region are read from the header's
    # one Credential (server/identity.py), which must be the one checked here.
    for key, _ in pairs:
        if key not in HEADER_PARAMETERS:
            raise _incomplete(f"Authorization header has an unknown parameter {key!r}.")
    if len(fields) < len(pairs):
        raise _incomplete("Authorization header names a parameter more than once.")
    missing = [name for name in HEADER_PARAMETERS if not fields.get(name)]
    if missing:
        raise _incomplete(f"Authorization header requires '{missing[0]}' parameter.")
    if not amz_date:
        raise _incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    key, date, region, service = _scope(fields["Credential"])
    headers = fields["SignedHeaders"].lower().split(";")
    return Signed(key, date, region, service, headers, fields["Signature"], amz_date, None)


def _from_query(args: dict[str, str]) -> Signed:
    if args.get("X-Amz-Algorithm") != ALGORITHM:
        raise _incomplete(f"X-Amz-Algorithm must be {ALGORITHM}.")
    for name in ("X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Expires"):
        if not args.get(name):
            raise _incomplete(f"AWS query-string parameters must include '{name}'.")
    key, date, region, service = _scope(args["X-Amz-Credential"])
    expires = args["X-Amz-Expires"]
    if not expires.isdigit() or not 1 <= int(expires) <= MAX_PRESIGNED_EXPIRY:
        raise _incomplete(f"X-Amz-Expires must be from 1 to {MAX_PRESIGNED_EXPIRY} seconds.")
    headers = args["X-Amz-SignedHeaders"].lower().split(";")
    return Signed(key, date, region, service, headers, args["X-Amz-Signature"], args["X-Amz-Date"], int(expires))


def claimed(request: HttpRequest) -> Signed | None:
    """The signature a request carries (None: it carries none); IncompleteSignature when malformed."""
    headers, query = request.headers, request.query_string
    header = headers.get("authorization")
    if header:
        return _from_header(header, headers.get("x-amz-date") or headers.get("date"))
    if "X-Amz-Signature" in query or "X-Amz-Credential" in query:
        args: dict[str, str] = {}
        for key, value in parse_qsl(query, keep_blank_values=True):
            args.setdefault(key, value)  # the first of repeated keys, as the rest of the app reads them
        if "X-Amz-Signature" in args or "X-Amz-Credential" in args:
            return _from_query(args)
    return None


def claimed_by_head(request: HttpRequest) -> bool:
    """Whether a request's head claims a caller (an Authorization header: a signature or the admin
    token; or a presigned URL's query); one that claims none is refused before its body is read."""
    query = request.query_string
    return bool(request.headers.get("authorization")) or "X-Amz-Signature" in query or "X-Amz-Credential" in query


class Verifier:
    """Checks requests against the configured access keys; `now` is wall-clock time
    (a signature is dated by the client's clock, whatever the emulator's clock is)."""

    def __init__(self, credentials: dict[str, Credential], now=time.time):
        self.credentials = credentials
        self.now = now

    def verify(self, request: HttpRequest) -> Credential:
        """The credential that signed `request`, or AWS's error."""
        signed = claimed(request)
        if signed is None:
            raise SqsError(
                "MissingAuthenticationToken",
                "The request must contain either a valid (registered) AWS access key ID or X.509 certificate.",
            )
        credential = self.credentials.get(signed.access_key)
        if credential is None:
            raise SqsError("InvalidClientTokenId", "The security token included in the request is invalid.")
        _check_scope(signed)
        self._check_time(signed)
        expected = _signature(request, signed, credential)
        if not hmac.compare_digest(expected.encode(), signed.signature.encode()):
            raise SqsError("SignatureDoesNotMatch", WRONG_SIGNATURE)
        return credential

    def _check_time(self, signed: Signed) -> None:
        try:
            when = datetime.strptime(signed.timestamp, SIGV4_TIMESTAMP).replace(tzinfo=UTC)
        except ValueError:
            raise _incomplete(f"Date must be in ISO-8601 'basic format'. Got '{signed.timestamp}'.") from None
        now = datetime.fromtimestamp(self.now(), UTC)
        stamp = SIGV4_TIMESTAMP  # AWS quotes times in the basic format they are signed in
        if signed.expires is not None:
            if now > when + timedelta(seconds=signed.expires):
                raise SqsError("RequestExpired", "Request has expired.")
            if when - now > MAX_SKEW:
                raise SqsError("SignatureDoesNotMatch", "Request is not yet valid.")
            return
        if when < now - MAX_SKEW:
            raise SqsError(
                "SignatureDoesNotMatch",
                f"Signature expired: {when.strftime(stamp)} is now earlier than "
                f"{(now - MAX_SKEW).strftime(stamp)} ({now.strftime(stamp)} - 15 min.)",
            )
        if when > now + MAX_SKEW:
            raise SqsError(
                "SignatureDoesNotMatch",
                f"Signature not yet current: {when.strftime(stamp)} is still later than "
                f"{(now + MAX_SKEW).strftime(stamp)} ({now.strftime(stamp)} + 15 min.)",
            )


def _check_scope(signed: Signed) -> None:
    """A signature is for SQS, on the day its X-Amz-Date names (AWS's wording, general
    reference "Troubleshoot signed requests"; the service's, as a query-protocol service
    answered it in timkay/aws#111)."""
    if signed.service != SERVICE:
        raise SqsError("SignatureDoesNotMatch", f"Credential should be scoped to correct service: '{SERVICE}'. ")
    if signed.date != signed.timestamp[:8]:
        raise SqsError(
            "SignatureDoesNotMatch",
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
            f"'{signed.date}' != '{signed.timestamp[:8]}', from '{signed.timestamp}'.",
        )


def _signature(received: HttpRequest, signed: Signed, credential: Credential) -> str:
    """botocore's signature over the received request with the credential's secret."""
    query = received.query_string
    headers = {}
    for name in signed.signed_headers:
        if name == "host":
            headers[name] = received.host
        elif name in received.headers:
            headers[name] = received.headers[name]
    # botocore's canonical request takes a signed X-Amz-Content-SHA256 as the body's hash
    # without hashing the body: one that is not the body's is a signature of another body.
    claimed_hash = headers.get("x-amz-content-sha256")
    if claimed_hash is not None and not hmac.compare_digest(
        claimed_hash.encode(), hashlib.sha256(received.body).hexdigest().encode()
    ):
        raise SqsError("SignatureDoesNotMatch", WRONG_SIGNATURE)
    signer: SigV4Auth
    keys = Credentials(credential.access_key, credential.secret_key)
    if signed.expires is None:
        signer = SigV4Auth(keys, signed.service, signed.region)
    else:
        signer = SigV4QueryAuth(keys, signed.service, signed.region, expires=signed.expires)
        # The canonical query string holds every parameter but the signature itself.
        query = "&".join(pair for pair in query.split("&") if pair.partition("=")[0] != "X-Amz-Signature" and pair)
    url = f"{received.scheme}://{received.host}{received.raw_path}" + (f"?{query}" if query else "")
    # The body as received, in both forms: botocore presigns with an empty body (its
    # parameters move to the query string), so a body added to a presigned URL mismatches.
    unsigned = AWSRequest(method=received.method, url=url, headers=headers, data=received.body)
    unsigned.context["timestamp"] = signed.timestamp
    canonical = signer.canonical_request(unsigned)
    return signer.signature(signer.string_to_sign(unsigned, canonical), unsigned)
