"""The emulator without HTTP: its WSGI app called with an environ as the HTTP server builds it,
and engine messages built as the api layer builds them. Imported only by the programs that
measure in-process figures, each in an interpreter whose `emulator` is the checkout measured.
"""

from __future__ import annotations

import io
import json
import sys
from urllib.parse import urlencode

from emulator.engine.message import Message
from emulator.protocol import HttpRequest
from emulator.server.build import Options, build

HOST = "localhost:9324"
BODY = "x" * 256
MD5 = bytes(16)  # the engine takes the digest the api layer computed; its value does not matter here


def environ(body: bytes, headers: dict) -> dict:
    """A request's environ as the emulator's HTTP server hands it to the app."""
    env = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "9324",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": HOST,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,  # the input ends with the body: werkzeug reads it unwrapped
        "SERVER_SOFTWARE": "waitress",
        "HTTP_USER_AGENT": "Boto3/1.40.0 md/Botocore#1.40.0",
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        env[key if key == "CONTENT_TYPE" else f"HTTP_{key}"] = value
    return env


class Client:
    """SQS calls on the app in one protocol ("json" or "query")."""

    def __init__(self, app, wire: str):
        self.app = app
        self.wire = wire

    def call(self, op: str, params: dict) -> bytes:
        body, headers = self._request(op, params)
        status = []
        chunks = self.app(environ(body, headers), lambda s, h, exc=None: status.append(s))
        out = b"".join(chunks)
        if not status[0].startswith("200"):
            raise RuntimeError(f"{op}: {status[0]} {out[:300]!r}")
        return out

    def answer(self, op: str, params: dict):
        """The app's one SQS answer (an Answer, or the Pending a driver would wait for)."""
        body, headers = self._request(op, params)
        request = HttpRequest.from_environ(environ(body, headers), body)
        try:
            return self.app.answer(request)
        except TypeError:  # a checkout from before issue 37, whose answer() took `blocking`
            return self.app.answer(request, blocking=False)

    def _request(self, op: str, params: dict) -> tuple[bytes, dict]:
        if self.wire == "json":
            body = json.dumps(params).encode()
            headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"AmazonSQS.{op}"}
        else:
            body = urlencode({"Action": op, "Version": "2012-11-05", **query_form(params)}).encode()
            headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
        return body, headers

    def handles(self, out: bytes) -> list[str]:
        """The receipt handles of a ReceiveMessage answer."""
        if self.wire == "json":
            return [m["ReceiptHandle"] for m in json.loads(out).get("Messages", [])]
        text = out.decode()
        return [part.split("</ReceiptHandle>")[0] for part in text.split("<ReceiptHandle>")[1:]]


def query_form(params: dict) -> dict:
    """The query protocol's form of the few parameters the figures send."""
    flat: dict = {}
    for key, value in params.items():
        if key == "Entries":
            prefix = "SendMessageBatchRequestEntry" if "MessageBody" in value[0] else "DeleteMessageBatchRequestEntry"
            for i, entry in enumerate(value, 1):
                for k, v in entry.items():
                    flat[f"{prefix}.{i}.{k}"] = v
        else:
            flat[key] = value
    return flat


class App:
    """The emulator's app, built without listening, called in the JSON protocol."""

    def __init__(self, clock: str = "real"):
        self.emulator = build(Options(port=0, clock=clock), listen=False)
        self.client = Client(self.emulator.app, "json")

    def call(self, op: str, **params) -> dict:
        return json.loads(self.client.call(op, params))

    def close(self) -> None:
        self.emulator.broker.reset()  # thaws what a freeze kept
        self.emulator.close()


def engine_message(message_id: bytes, group: int | None = None) -> Message:
    """The one place the benchmark builds an engine message (its constructor may change),
    from its id's 16 bytes, as the api layer makes it."""
    if group is None:
        return Message(message_id + MD5, BODY, {}, {}, None, "bench")
    return Message(message_id + MD5, BODY, {}, {}, None, "bench", f"g{group}", message_id.hex())
