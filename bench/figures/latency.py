"""latency (issue 37): what one client, one call after another, feels. Each round starts every
target fresh and stops it after (the targets alternated, A, B, A, B), so no round inherits
another's queues, heap or connections.

  latency_raw    one kept-alive connection (http.client), raw JSON SendMessage requests of a
                 256-byte message: wall p50 and p99 per request, and the server's CPU per
                 request over the loop
  latency_boto3  one boto3 client: SendMessage per call, then the queue it filled drained by
                 ReceiveMessage(1) + DeleteMessage per message (targets that store), wall p50
                 of each, and the server's CPU per call or per message

The client's own cost is in every wall time, the same for every server; with one client the
server sits idle between requests, so its caches are cold and its CPU per request is several
times what it costs at saturation or in process.
"""

from __future__ import annotations

import functools
import json
import statistics
import time

from bench import targets
from bench.processes import Meter, Server, on_fresh
from bench.stats import percentile
from bench.wire import Wire, make_client

BODY_BYTES = 256
FIGURES = ("latency_raw", "latency_boto3")


def run(labels: list[str], args, log_dir: str, only: set[str] | None, record) -> None:
    """Every chosen figure, `args.latency_rounds` rounds, each target fresh in each round;
    `record(figure, label, result)` is called after each."""
    for figure in (f for f in FIGURES if not only or f in only):
        measure = functools.partial(MEASURES[figure], n=args.latency_n)
        for _ in range(args.latency_rounds):
            for label in labels:
                record(figure, label, on_fresh(targets.server(label, log_dir, args), measure))


def raw_sends(server: Server, n: int) -> dict:
    wire = Wire(server)
    try:
        url = wire.call("CreateQueue", {"QueueName": f"bench-latency-{time.monotonic_ns()}"})["QueueUrl"]
        body = json.dumps({"QueueUrl": url, "MessageBody": "x" * BODY_BYTES}).encode()
        for _ in range(_warm_up(n)):
            wire.post("SendMessage", body)
        walls = []
        with Meter(server) as meter:
            for _ in range(n):
                started = time.perf_counter()
                wire.post("SendMessage", body)
                walls.append(time.perf_counter() - started)
        return {
            "send_p50_us": statistics.median(walls) * 1e6,
            "send_p99_us": percentile(walls, 0.99) * 1e6,
            "send_cpu_us": meter.cpu * 1e6 / n,
            "requests": n,
            "server_cpu_s": meter.cpu,
            "other_cores": meter.other_cores,
        }
    finally:
        wire.close()


def boto3_calls(server: Server, n: int) -> dict:
    client = make_client(server)
    url = client.create_queue(QueueName=f"bench-latency-{time.monotonic_ns()}")["QueueUrl"]
    body = "x" * BODY_BYTES
    stores = targets.can(server.label, "stores")
    for _ in range(_warm_up(n)):
        client.send_message(QueueUrl=url, MessageBody=body)
    for _ in range(_warm_up(n) if stores else 0):  # the queue left empty for the timed drain
        _receive_delete(client, url)
    sends = []
    with Meter(server) as send_meter:
        for _ in range(n):
            started = time.perf_counter()
            client.send_message(QueueUrl=url, MessageBody=body)
            sends.append(time.perf_counter() - started)
    out = {
        "send_p50_ms": statistics.median(sends) * 1e3,
        "send_p99_ms": percentile(sends, 0.99) * 1e3,
        "send_cpu_us": send_meter.cpu * 1e6 / n,
        "sends": n,
        "other_cores": send_meter.other_cores,
    }
    if not stores:
        return out
    pairs = []
    with Meter(server) as drain_meter:
        for _ in range(n):
            started = time.perf_counter()
            _receive_delete(client, url)
            pairs.append(time.perf_counter() - started)
    return out | {
        "recv_delete_p50_ms": statistics.median(pairs) * 1e3,
        "recv_delete_p99_ms": percentile(pairs, 0.99) * 1e3,
        "recv_delete_cpu_us": drain_meter.cpu * 1e6 / n,
    }


def _receive_delete(client, url: str) -> None:
    messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1).get("Messages", [])
    if not messages:
        raise RuntimeError("a receive found no message in a queue that should hold some")
    client.delete_message(QueueUrl=url, ReceiptHandle=messages[0]["ReceiptHandle"])


def _warm_up(n: int) -> int:
    """Untimed calls first: connections made, code paths and the JIT (fauxqs's) warm."""
    return max(10, n // 10)


MEASURES = {"latency_raw": raw_sends, "latency_boto3": boto3_calls}
