"""The SigV4 verifier on plain values (method, path, query, headers, body bytes), as any
HTTP entry can hand them: what compat_tests/server/test_auth.py proves through the server."""

import hashlib
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from emulator.errors import SqsError
from emulator.protocol.request import HttpRequest, joined
from emulator.server.auth import Credential, Verifier

KEY = Credential("AKIDTEST", "test-secret", "123456789012")
BODY = b'{"QueueUrl": "q", "MessageBody": "signed"}'


def _received(body: bytes = BODY, service: str = "sqs", **extra_headers) -> HttpRequest:
    request = AWSRequest(method="POST", url="http://localhost:9324/", data=BODY, headers=extra_headers)
    SigV4Auth(Credentials(KEY.access_key, KEY.secret_key), service, "us-east-1").add_auth(request)
    headers = joined([*request.headers.items(), ("Host", "localhost:9324")])
    return HttpRequest("POST", urlsplit(request.url).path, "", headers, body)


def test_a_signed_request_names_its_key():
    assert Verifier({KEY.access_key: KEY}).verify(_received()) == KEY


@pytest.mark.parametrize(
    "received, wording",
    [
        (_received(b'{"QueueUrl": "q", "MessageBody": "swapped"}'), "The request signature we calculated"),
        (
            _received(b"swapped", **{"X-Amz-Content-SHA256": hashlib.sha256(BODY).hexdigest()}),
            "The request signature we calculated",
        ),
        (_received(service="s3"), "Credential should be scoped to correct service: 'sqs'. "),
    ],
    ids=["body", "signed-body-hash", "service"],
)
def test_what_the_signature_does_not_cover_is_refused(received, wording):
    with pytest.raises(SqsError) as refused:
        Verifier({KEY.access_key: KEY}).verify(received)
    assert (refused.value.name, refused.value.message[: len(wording)]) == ("SignatureDoesNotMatch", wording)
