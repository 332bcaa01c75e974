"""Account and region from a request's SigV4 credential (emulator/server/identity.py)."""

import pytest

from emulator.protocol.request import HttpRequest, joined
from emulator.server.identity import Identity, identify

SIGNATURE = "Signature=" + "a" * 64


def _request(authorization: str | None = None, query: str = "") -> HttpRequest:
    pairs = [("Host", "localhost:9324")] + ([("Authorization", authorization)] if authorization else [])
    return HttpRequest("POST", "/", query, joined(pairs), b"")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            f"AWS4-HMAC-SHA256 Credential=123456789012/20261206/eu-west-1/sqs/aws4_request, "
            f"SignedHeaders=host;x-amz-date, {SIGNATURE}",
            Identity("123456789012", "eu-west-1", "123456789012"),
        ),
        (  # the credential after a comma: the parameters in another order
            f"AWS4-HMAC-SHA256 SignedHeaders=host;x-amz-date, "
            f"Credential=210987654321/20261206/us-west-2/sqs/aws4_request, {SIGNATURE}",
            Identity("210987654321", "us-west-2", "210987654321"),
        ),
        (  # a key that is not 12 digits: the default account, the signed region
            f"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261206/ap-south-1/sqs/aws4_request, {SIGNATURE}",
            Identity("000000000000", "ap-south-1", "AKIDEXAMPLE"),
        ),
        ("Bearer something, else", Identity("000000000000", "us-east-1", None)),
        (None, Identity("000000000000", "us-east-1", None)),
    ],
)
def test_identity_from_the_authorization_header(header, expected):
    for _ in range(2):  # the second time from what the first kept
        assert identify(_request(header), "000000000000", "us-east-1") == expected


def test_identity_of_a_presigned_request():
    query = "X-Amz-Credential=123456789012%2F20261206%2Feu-north-1%2Fsqs%2Faws4_request&X-Amz-Signature=ab"
    assert identify(_request(query=query), "000000000000", "us-east-1") == Identity(
        "123456789012", "eu-north-1", "123456789012"
    )
