"""How the figures talk to a server: boto3 (what the one-client figures measure) and raw
JSON-protocol HTTP (what fills queues: boto3 costs about 1 ms of client CPU a call, so a
million messages through it would take half an hour; the server does the same work)."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable

import boto3
from botocore.config import Config

from bench.processes import Meter, Server

BODY = "x" * 200  # the one-client throughput figures' message
MEMORY_BODY = "x" * 256  # the memory figures' message: issue 17's target is per queued 256-byte message
FILL_THREADS = 4  # client threads of a fill: the server, not one client, is then what limits it


def make_client(server: Server):
    return boto3.client(
        "sqs",
        endpoint_url=server.endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"max_attempts": 0}, read_timeout=20, connect_timeout=5, max_pool_connections=4),
    )


def new_queue(client, prefix: str, fifo: bool = False) -> str:
    name = f"bench-{prefix}-{uuid.uuid4().hex[:8]}"
    if fifo:
        return client.create_queue(QueueName=name + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    return client.create_queue(QueueName=name)["QueueUrl"]


def drop_queue(client, url: str) -> None:
    try:
        client.delete_queue(QueueUrl=url)
    except Exception:  # the figure's own error, if any, is what the report shows
        pass


def warm_up(client, url: str) -> None:
    """A few untimed calls so connections and code paths are warm."""
    for _ in range(5):
        client.send_message(QueueUrl=url, MessageBody=BODY)
    for _ in range(5):
        messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            break
        client.delete_message_batch(QueueUrl=url, Entries=delete_entries(messages))


def delete_entries(messages: list[dict]) -> list[dict]:
    return [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]


def send_batches(client, url: str, count: int, deadline: float | None = None, groups: int = 0) -> int:
    """Send `count` messages through boto3 in batches of 10 (to a FIFO queue when `groups`:
    spread over that many groups, a deduplication id each). Stops early at `deadline`
    (time.monotonic()); returns how many the server accepted."""
    sent = 0
    for start in range(0, count, 10):
        if deadline is not None and time.monotonic() > deadline:
            break
        entries = batch_entries(min(10, count - start), BODY, groups, start, uuid.uuid4().hex)
        answer = client.send_message_batch(QueueUrl=url, Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(f"batch send failed: {answer['Failed'][:1]}")
        sent += len(answer.get("Successful", []))
    return sent


def batch_entries(n: int, body: str, groups: int = 0, first: int = 0, tag: str = "") -> list[dict]:
    entries: list[dict] = [{"Id": str(i), "MessageBody": body} for i in range(n)]
    if groups:
        for i, entry in enumerate(entries):
            entry["MessageGroupId"] = f"g{(first + i) % groups}"
            entry["MessageDeduplicationId"] = f"{tag}-{first + i}"
    return entries


def per_msg(meter: Meter, count: int) -> dict:
    return {
        "msgs_per_s": count / meter.wall if meter.wall > 0 else None,
        "cpu_us_per_msg": meter.cpu * 1e6 / count if count else None,
        "count": count,
        "wall_s": meter.wall,
        "server_cpu_s": meter.cpu,
    }


def within_budget(out: dict, done: int, wanted: int, budget_s: float, what: str) -> dict:
    """`out`, with a note when a loop stopped at its time budget before `wanted`."""
    if done < wanted:
        out["note"] = f"{what} stopped at the {budget_s:.0f} s budget: {done:,} of {wanted:,}"
    return out


class Wire:
    """JSON-protocol calls on one kept-alive connection, without boto3."""

    # Unsigned, but naming SQS's credential scope as an SDK's signature does: moto's server
    # picks the service by it (without it, moto answers as S3).
    AUTHORIZATION = (
        "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0"
    )

    def __init__(self, server: Server):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)

    def call(self, op: str, params: dict) -> dict:
        data = self.post(op, json.dumps(params).encode())
        return json.loads(data) if data else {}

    def post(self, op: str, body: bytes) -> bytes:
        """One request of `op` with a JSON body already encoded; the answer's body (HTTP 200 only)."""
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"AmazonSQS.{op}",
            "Authorization": self.AUTHORIZATION,
        }
        try:
            self.conn.request("POST", "/", body, headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # The server ended the kept-alive connection while it was idle (the emulator's head
            # deadline does); nothing of the request was read: make a new one, as urllib3 does.
            self.conn.close()
            self.conn.request("POST", "/", body, headers)
            response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{op}: HTTP {response.status} {data[:300]!r}")
        return data

    def depth(self, url: str) -> int:
        answer = self.call("GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]})
        return int(answer["Attributes"]["ApproximateNumberOfMessages"])

    def close(self) -> None:
        self.conn.close()


def in_threads(server: Server, count: int, work: Callable[[Wire, int, int], int]) -> int:
    """Split `count` over FILL_THREADS threads, each calling work(wire, share, thread index);
    returns the sum of what they return. The first error is raised."""
    shares = [count // FILL_THREADS + (1 if i < count % FILL_THREADS else 0) for i in range(FILL_THREADS)]
    done, errors = [0] * FILL_THREADS, []

    def run(i: int) -> None:
        wire = Wire(server)
        try:
            done[i] = work(wire, shares[i], i)
        except Exception as e:
            errors.append(e)
        finally:
            wire.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(FILL_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return sum(done)


def fill(server: Server, url: str, count: int, deadline: float | None = None, groups: int = 0, body=BODY) -> int:
    """Send `count` messages in SendMessageBatch calls of 10 from FILL_THREADS threads (to a FIFO
    queue when `groups`: spread over that many groups, a deduplication id each). Stops early
    at `deadline` (time.monotonic()); returns how many the server accepted."""
    tag = uuid.uuid4().hex[:8]

    def send(wire: Wire, share: int, thread: int) -> int:
        sent = 0
        for start in range(0, share, 10):
            if deadline is not None and time.monotonic() > deadline:
                break
            entries = batch_entries(min(10, share - start), body, groups, start, f"{tag}-{thread}")
            answer = wire.call("SendMessageBatch", {"QueueUrl": url, "Entries": entries})
            if answer.get("Failed"):
                raise RuntimeError(f"batch send failed: {answer['Failed'][:1]}")
            sent += len(answer.get("Successful", []))
        return sent

    return in_threads(server, count, send)


def drain_wire(wire: Wire, url: str) -> int:
    """Receive (10 at a time, VisibilityTimeout 600) and delete until two receives come back empty."""
    got, empty = 0, 0
    while empty < 2:
        answer = wire.call("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10, "VisibilityTimeout": 600})
        messages = answer.get("Messages", [])
        if not messages:
            empty += 1
            continue
        empty = 0
        wire.call("DeleteMessageBatch", {"QueueUrl": url, "Entries": delete_entries(messages)})
        got += len(messages)
    return got


def advance_clock(server: Server, seconds: float) -> None:
    """Move a `--clock manual` server's clock forward, through the admin API."""
    url = f"{server.endpoint}/_emulator/clock/advance?seconds={seconds}"
    request = urllib.request.Request(url, data=b"", method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()
