"""The SQS answer's own cost (issue 37, item 4): `EmulatorApp.answer()` called in process on
HttpRequests made beforehand as the HTTP server makes them (no WSGI environ, no sockets, no
client's encoding or decoding timed), in CPU seconds per SendMessage, per message in
SendMessageBatch(10), and per message received and deleted in tens (ReceiveMessage(10) +
DeleteMessageBatch(10)), JSON 1.0 and query. A pyperf program:

    python -m bench.figures.answer --fast                     # this checkout, alone
    python -m bench.figures.answer --fast --profile answer.prof  # pyperf's cProfile

Another checkout beside this one: run it with that checkout's `emulator` first on the path
(bench/harness.py's `alternated("bench.figures.answer", ...)` does, in rounds).
"""

from __future__ import annotations

import functools
import inspect
import json
import time
import uuid
from urllib.parse import urlencode

import orjson
import pyperf

from bench.figures.inprocess import BATCH, time_each_figure
from bench.in_process import HOST, Client, query_form
from emulator.protocol import HttpRequest
from emulator.protocol.request import joined
from emulator.server.build import Options, build

# What botocore and urllib3 send beside the operation's own headers (a signed request, as users' are).
COMMON = [
    ("Host", HOST),
    ("Accept-Encoding", "identity"),
    ("User-Agent", "Boto3/1.40.0 md/Botocore#1.40.0 ua/2.1 os/linux lang/python#3.11 cfg/retry-mode#legacy"),
    ("X-Amz-Date", "20261206T050000Z"),
    (
        "Authorization",
        "AWS4-HMAC-SHA256 Credential=test/20261206/us-east-1/sqs/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0" * 64,
    ),
    ("amz-sdk-invocation-id", str(uuid.UUID(int=0))),
    ("amz-sdk-request", "attempt=1"),
]
_apps: list = []


def _door(app):
    """The sans-IO door of the checkout measured, called on one request: `answer(request,
    blocking=False)` until the one-answer change (issue 37) removes the parameter."""
    if "blocking" in inspect.signature(app.answer).parameters:
        return functools.partial(app.answer, blocking=False)
    return app.answer


class Caller:
    """SQS requests in one protocol ("json" or "query"), made as the HTTP server makes them."""

    def __init__(self, wire: str):
        if not _apps:  # built on first use: pyperf's master process never builds one
            _apps.append(build(Options(port=0, clock="manual"), listen=False).app)
        self.app = _apps[0]
        self.wire = wire
        self._answer = _door(self.app)

    def request(self, op: str, params: dict) -> HttpRequest:
        if self.wire == "json":
            body = json.dumps(params).encode()
            own = [("X-Amz-Target", f"AmazonSQS.{op}"), ("Content-Type", "application/x-amz-json-1.0")]
        else:
            body = urlencode({"Action": op, "Version": "2012-11-05", **query_form(params)}).encode()
            own = [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]
        headers = joined([*COMMON, *own, ("Content-Length", str(len(body)))])
        return HttpRequest("POST", "/", "", headers, body)

    def answer(self, request: HttpRequest) -> bytes:
        outcome = self._answer(request)
        if outcome.status != 200:
            raise RuntimeError(f"{outcome.status} {outcome.body[:300]!r}")
        return outcome.body

    def call(self, op: str, params: dict) -> bytes:
        """An untimed call through the WSGI door, which waits for what answer() may leave pending."""
        return Client(self.app, self.wire).call(op, params)

    def handles(self, out: bytes) -> list[str]:
        """The receipt handles of a ReceiveMessage answer."""
        if self.wire == "json":
            return [m["ReceiptHandle"] for m in orjson.loads(out).get("Messages", [])]
        text = out.decode()
        return [part.split("</ReceiptHandle>")[0] for part in text.split("<ReceiptHandle>")[1:]]

    def new_queue(self) -> str:
        name = f"bench-{self.wire}-{uuid.uuid4().hex[:8]}"
        self.call("CreateQueue", {"QueueName": name})
        return f"http://{HOST}/000000000000/{name}"


def same_call(loops: int, wire: str, operation: str, params: dict) -> float:
    """`loops` answers to the same call, each on a request object of its own (made untimed)."""
    caller = Caller(wire)
    url = caller.new_queue()
    prepared = caller.request(operation, {"QueueUrl": url, **params})
    requests = [_copy(prepared) for _ in range(loops)]
    started = time.process_time()
    for request in requests:
        caller.answer(request)
    took = time.process_time() - started
    caller.call("DeleteQueue", {"QueueUrl": url})
    return took


def receive_delete(loops: int, wire: str) -> float:
    """`loops` x 10 messages sent untimed, then received ten at a time and deleted in batches:
    only the two answers are timed (inner_loops=10: the value is per message)."""
    caller = Caller(wire)
    url = caller.new_queue()
    for _ in range(loops):
        caller.call("SendMessageBatch", {"QueueUrl": url, "Entries": BATCH})
    receive = caller.request("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10})
    left, took = loops * 10, 0.0
    for _ in range(3 * loops + 10):  # bounded even if a receive keeps coming back short
        request = _copy(receive)
        started = time.process_time()
        out = caller.answer(request)
        took += time.process_time() - started
        handles = caller.handles(out)
        if handles:
            entries = [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]
            request = caller.request("DeleteMessageBatch", {"QueueUrl": url, "Entries": entries})
            started = time.process_time()
            caller.answer(request)
            took += time.process_time() - started
            left -= len(handles)
        if left <= 0:
            break
    caller.call("DeleteQueue", {"QueueUrl": url})
    if left > 0:
        raise RuntimeError(f"{left} messages were not received")
    return took


def _copy(request: HttpRequest) -> HttpRequest:
    """A fresh request of the same values: nothing one answer caches on its request carries over."""
    return HttpRequest(request.method, request.path, request.query_string, request.headers, request.body)


def main() -> None:
    runner = pyperf.Runner(program_args=("-m", "bench.figures.answer"))
    runner.metadata["description"] = "CPU seconds per message, EmulatorApp.answer() called in process"
    time_each_figure(runner, same_call, receive_delete)


if __name__ == "__main__":
    main()
