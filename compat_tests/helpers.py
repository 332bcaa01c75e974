"""Helpers shared by the compatibility tests: raw HTTP, MD5 of attributes, errors.

Nothing here knows about the emulator's internals: everything goes over HTTP,
exactly as a hand-written client (or an SDK) would send it.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import struct
import urllib.error
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

DEFAULT_ACCOUNT = "000000000000"
DEFAULT_REGION = "us-east-1"
QUERY_NS = "http://queue.amazonaws.com/doc/2012-11-05/"

NON_EXISTENT_QUEUE = "AWS.SimpleQueueService.NonExistentQueue"
# What an admin POST, PUT or DELETE with a body must say it carries (urllib's default, form, is refused).
JSON_BODY = {"Content-Type": "application/json"}


def sqs_client(endpoint: str, region: str = DEFAULT_REGION, access_key: str = "test", validate: bool = True):
    """A boto3 SQS client for a test server: one attempt, bounded timeouts (above the 20 s long poll)."""
    return boto3.session.Session().client(
        "sqs",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key="test-secret",
        config=Config(
            retries={"max_attempts": 1, "mode": "standard"},
            connect_timeout=5,
            read_timeout=40,
            parameter_validation=validate,
        ),
    )


def unique_name(prefix: str = "ct") -> str:
    """A queue name no other test uses (SQS names: [A-Za-z0-9_-]{1,80})."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# ---------------------------------------------------------------- MD5 digests


def md5_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.md5(data).hexdigest()


def md5_of_attributes(attributes: dict) -> str:
    """AWS's algorithm (sqs-message-metadata): sorted names, big-endian lengths."""

    def field(raw: bytes) -> bytes:
        return struct.pack(">I", len(raw)) + raw

    buf = b""
    for name in sorted(attributes, key=lambda n: n.encode("utf-8")):
        attr = attributes[name]
        data_type = attr["DataType"]
        buf += field(name.encode("utf-8")) + field(data_type.encode("utf-8"))
        if data_type.startswith("Binary"):
            value = attr["BinaryValue"]
            if isinstance(value, str):
                value = value.encode("utf-8")
            buf += b"\x02" + field(value)
        else:
            buf += b"\x01" + field(attr["StringValue"].encode("utf-8"))
    return hashlib.md5(buf).hexdigest()


# ---------------------------------------------------------------- errors


def check_error(
    exc: ClientError,
    client,
    code: str,
    status: int,
    shape: str | None = None,
    message: str | None = None,
    message_contains: str | None = None,
) -> None:
    """Assert what a caller sees from an SQS error, in either protocol.

    ``code`` is the legacy (query) code, ``shape`` the modelled error shape
    name (JSON ``__type``); when botocore has an exception class for the
    shape, the exception must be an instance of it. In the JSON protocol
    botocore keeps the shape name as Error.QueryErrorCode.
    """
    assert isinstance(exc, ClientError), f"expected ClientError, got {exc!r}"
    err = exc.response.get("Error", {})
    got_status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    assert (err.get("Code"), got_status) == (code, status), (
        f"expected ({code!r}, {status}), got ({err.get('Code')!r}, {got_status}); error={err}"
    )
    assert err.get("Type") == "Sender", f"expected Error.Type 'Sender', got {err}"
    if shape is not None:
        cls = getattr(client.exceptions, shape, None)
        if cls is not None:
            assert isinstance(exc, cls), f"expected client.exceptions.{shape}, got {type(exc).__name__}"
        if client.meta.service_model.protocol == "json":
            assert err.get("QueryErrorCode") == shape, f"expected QueryErrorCode {shape!r}, got {err}"
    if message is not None:
        assert err.get("Message") == message, f"expected message {message!r}, got {err.get('Message')!r}"
    if message_contains is not None:
        assert message_contains in (err.get("Message") or ""), (
            f"expected {message_contains!r} in message, got {err.get('Message')!r}"
        )


def expect_error(client, call, *args, code, status, shape=None, message=None, message_contains=None, **kwargs):
    """Run ``call(*args, **kwargs)``, expect a ClientError, check it, return it."""
    with pytest.raises(ClientError) as info:
        call(*args, **kwargs)
    check_error(info.value, client, code, status, shape, message, message_contains)
    return info.value


INVALID_PARAMETER = {"code": "InvalidParameterValue", "status": 400, "shape": "InvalidParameterValueException"}
INVALID_ATTRIBUTE_VALUE = {"code": "InvalidAttributeValue", "status": 400, "shape": "InvalidAttributeValue"}
INVALID_ATTRIBUTE_NAME = {"code": "InvalidAttributeName", "status": 400, "shape": "InvalidAttributeName"}
QUEUE_DOES_NOT_EXIST = {"code": NON_EXISTENT_QUEUE, "status": 400, "shape": "QueueDoesNotExist"}
RECEIPT_HANDLE_INVALID = {"code": "ReceiptHandleIsInvalid", "status": 404, "shape": "ReceiptHandleIsInvalid"}
RESOURCE_NOT_FOUND = {"code": "ResourceNotFoundException", "status": 404, "shape": "ResourceNotFoundException"}


# ---------------------------------------------------------------- raw HTTP


@dataclass
class RawResponse:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name, default)

    def json(self) -> dict:
        return json.loads(self.body.decode("utf-8"))

    def xml(self) -> ET.Element:
        """The XML body with namespaces stripped from tags."""
        root = ET.fromstring(self.body)
        for el in root.iter():
            if isinstance(el.tag, str) and "}" in el.tag:
                el.tag = el.tag.split("}", 1)[1]
        return root

    def xml_namespace(self) -> str | None:
        tag = ET.fromstring(self.body).tag
        return tag[1:].split("}", 1)[0] if tag.startswith("{") else None


class RawClient:
    """Sends hand-made requests to the server, SigV4-signed like an SDK would."""

    def __init__(self, endpoint: str):
        parsed = urllib.parse.urlsplit(endpoint)
        self.endpoint = endpoint.rstrip("/")
        self.host = parsed.hostname
        self.port = parsed.port

    def request(
        self,
        method: str,
        path: str = "/",
        body: bytes | str = b"",
        headers: dict | None = None,
        access_key: str = "test",
        region: str = DEFAULT_REGION,
        sign: bool = True,
        timeout: float = 30,
    ) -> RawResponse:
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = dict(headers or {})
        if sign:
            req = AWSRequest(method=method, url=self.endpoint + path, data=body, headers=headers)
            SigV4Auth(Credentials(access_key, "test-secret"), "sqs", region).add_auth(req)
            headers = dict(req.headers.items())
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body or None, headers=headers)
            resp = conn.getresponse()
            return RawResponse(resp.status, resp.headers, resp.read())
        finally:
            conn.close()

    def query(self, params: dict, path: str = "/", headers: dict | None = None, **kw) -> RawResponse:
        """A query-protocol request: form-encoded POST with Action=..."""
        params = dict(params)
        params.setdefault("Version", "2012-11-05")
        body = urllib.parse.urlencode(params)
        headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8", **(headers or {})}
        return self.request("POST", path, body, headers, **kw)

    def json_call(self, operation: str, body, path: str = "/", **kw) -> RawResponse:
        """A JSON 1.0 request: X-Amz-Target AmazonSQS.<operation>."""
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"AmazonSQS.{operation}",
        }
        return self.request("POST", path, body, headers, **kw)

    def call(self, protocol: str, operation: str, params: dict, **kw) -> RawResponse:
        """Call ``operation`` in the given protocol; ``params`` are in wire form for it."""
        if protocol == "json":
            return self.json_call(operation, params, **kw)
        return self.query({"Action": operation, **params}, **kw)


# ---------------------------------------------------------------- small client helpers


def receive(client, url: str, **kwargs) -> list[dict]:
    """ReceiveMessage; returns the list of messages ([] when the response has none)."""
    return client.receive_message(QueueUrl=url, **kwargs).get("Messages", [])


def receive_one(client, url: str, **kwargs) -> dict:
    msgs = receive(client, url, **kwargs)
    assert len(msgs) == 1, f"expected exactly one message, got {msgs}"
    return msgs[0]


def queue_attrs(client, url: str, *names: str) -> dict:
    return client.get_queue_attributes(QueueUrl=url, AttributeNames=list(names) or ["All"]).get("Attributes", {})


def arn_of(client, url: str) -> str:
    return queue_attrs(client, url, "QueueArn")["QueueArn"]


def counts(client, url: str) -> tuple[int, int, int]:
    """(visible, in flight, delayed) from the Approximate* attributes."""
    a = queue_attrs(
        client,
        url,
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    )
    return (
        int(a["ApproximateNumberOfMessages"]),
        int(a["ApproximateNumberOfMessagesNotVisible"]),
        int(a["ApproximateNumberOfMessagesDelayed"]),
    )


def admin_call(endpoint, method, path, body=None, raw=None, headers=None):
    """(status, parsed JSON) of an admin request; a body goes as JSON, as the admin API asks."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    sent = {**(JSON_BODY if data is not None else {}), **(headers or {})}
    request = urllib.request.Request(endpoint + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        assert error.headers.get_content_type() == "application/json"
        return error.code, json.loads(error.read())
