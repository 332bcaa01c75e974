#!/usr/bin/env python
"""Benchmark the SQS emulator against fauxqs, the floor and moto, side by side, in one run.

The one place every performance figure comes from: the figures without a server
(scripts/bench_local.py, scripts/bench_inprocess.py) first, then the servers, then
a table of the servers side by side, the in-process figures, and every target of
issues 16 and 17 with its verdict (met / NOT MET).

The machines this runs on have 2 shared cores and wall times drift by up to
2x between runs, so this script never quotes one server alone: it starts every
target, drives each with the same boto3 load, phase by phase (A, B, ...), and
prints each one's ratio to the first.

Targets: emulator (this checkout's: its root goes first on the server's
PYTHONPATH); moto (moto.server); fauxqs (a Node SQS emulator: `npm install
fauxqs` in /tmp/fauxqs, or give --fauxqs-cmd); floor (a trivial app on the
emulator's HTTP server, scripts/floor_app.py: what the server alone costs) and
floor-werkzeug, floor-waitress, floor-cheroot, floor-gunicorn, floor-granian
(the same app on each candidate server; the floor only answers the send and
batch send figures). The headline figure is the *server's* CPU time per message
(read from the server process with psutil), because one boto3 load process
tops out near 600-1,200 calls/s whatever the server does.

Without a server (once per run):
  inprocess      the app called without HTTP: CPU us per SendMessage, per message in
                 SendMessageBatch(10) and in ReceiveMessage(10)+DeleteMessageBatch(10),
                 JSON and query (with --baseline, beside that checkout, rounds alternated)
  engine         send+receive+delete triples per CPU second on the engine's Queue,
                 batches of 10 and singles, beside queue.Queue put+get
  tracemalloc    memory per queued 256-byte message, by allocating line
  local_depth    request cost and p99 at in-process depths to 1,000,000 (the queue
                 filled through the engine's send), standard and FIFO (1 and 1,000 groups)
Per server:
  1. send           N single SendMessage calls
  2. batch send     SendMessageBatch of 10
  3. recv+delete    ReceiveMessage(Max=10) + DeleteMessageBatch until drained
  4. depth          cost and p99 of one ReceiveMessage at depths 1k ... 1M
  5. long poll      wake latency: send-return to blocked-receive-return
  6. memory         server RSS growth per 256-byte message
  7. fifo           FIFO beside standard on the same server: batch send and
                    recv+delete CPU per message, and receive+delete cost at
                    depths to 100k with 1 and with 1,000 message groups
  8. rss_drain      (emulator only) RSS after 200,000 sent, received with
                    VisibilityTimeout 600, deleted, and the queue deleted
  9. rss_heartbeat  (emulator only) RSS after 100,000 ChangeMessageVisibility and a delete
Queues are filled for figures 3, 4, 6, 7 and 8 by raw-HTTP SendMessageBatch calls from
FILL_THREADS threads (the server does the same work; boto3 would take half an hour).

With --store, instead: the persistence figures (scripts/bench_store.py), the
emulator in memory beside --sync off, interval and always.

Usage:
  python scripts/bench.py                         # every figure, 5 to 10 min
  python scripts/bench.py --quick                 # < 2 min: smaller, see --help
  python scripts/bench.py --baseline /tmp/base    # in-process figure beside another checkout
  python scripts/bench.py --store                 # persistence figures, ~5 min
  python scripts/bench.py --targets moto,moto     # self-check of the harness
  python scripts/bench.py --targets emulator,floor,fauxqs,moto --only send,batch_send,recv_delete,long_poll
  python scripts/bench.py --json out.json --depths 1000,10000
  python scripts/bench.py --emulator-cmd "python -m emulator --host 127.0.0.1 --port {port}"
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import boto3
import psutil
from botocore.config import Config
from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)
sys.path.insert(0, TREE)  # this tree's emulator, in-process and (PYTHONPATH below) in the server under test

import bench_local  # noqa: E402

EMULATOR_CMD = "{python} -m emulator --host 127.0.0.1 --port {port} --log-level warning"
MOTO_CMD = "{python} -m moto.server -H 127.0.0.1 -p {port}"
FAUXQS_CMD = "env FAUXQS_PORT={port} FAUXQS_LOGGER=false node /tmp/fauxqs/node_modules/fauxqs/dist/cli.js"
FLOOR_CMD = "{python} " + os.path.join(HERE, "floor_app.py") + " --port {port}"
FLOOR_SERVERS = ("werkzeug", "waitress", "cheroot", "gunicorn", "granian")
TARGETS = ("emulator", "moto", "fauxqs", "floor", *(f"floor-{name}" for name in FLOOR_SERVERS))
FLOOR_FIGURES = ("send", "batch_send")  # the floor stores nothing: no receive figures
EMULATOR_FIGURES = ("rss_drain", "rss_heartbeat")  # issue 17's memory scenarios: the emulator's alone
READY_TIMEOUT_S = 15.0
BODY = "x" * 200  # every message of the throughput figures is 200 bytes
MEMORY_BODY = "x" * 256  # the memory figures' message: issue 17's target is per queued 256-byte message
FILL_THREADS = 4  # client threads of a fill: the server, not one client, is then what limits it


# --------------------------------------------------------------------------
# The server under test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server subprocess: start, wait for its port, read CPU/RSS, stop."""

    def __init__(self, label: str, cmd_template: str, log_dir: str):
        self.label = label
        self.cmd_template = cmd_template
        self.log_path = os.path.join(log_dir, f"{label.replace('#', '_')}.log")
        self.proc: subprocess.Popen | None = None
        self.ps: psutil.Process | None = None
        self.port = 0
        self.down_reason: str | None = None  # set when the server stops answering

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        cmd = shlex.split(self.cmd_template.format(python=sys.executable, port=self.port))
        # The child keeps its own descriptor; ours is closed once it has started.
        log = open(self.log_path, "ab")  # noqa: SIM115
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [TREE, os.environ.get("PYTHONPATH")])))
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        log.close()
        self.ps = psutil.Process(self.proc.pid)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label} exited with code {self.proc.returncode}:\n" + self.log_tail())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"{self.label} did not open port {self.port} within {READY_TIMEOUT_S:.0f} s:\n" + self.log_tail()
        )

    def log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def _processes(self) -> list[psutil.Process]:
        procs = [self.ps]
        try:
            procs += self.ps.children(recursive=True)
        except psutil.Error:
            pass
        return procs

    def cpu_seconds(self) -> float:
        """User + system CPU of the server process (and any live children)."""
        total = 0.0
        for p in self._processes():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def rss_bytes(self) -> int:
        total = 0
        for p in self._processes():
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def make_client(server: Server):
    return boto3.client(
        "sqs",
        endpoint_url=server.endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"max_attempts": 0}, read_timeout=20, connect_timeout=5, max_pool_connections=4),
    )


class Meter:
    """Wall time and server CPU time over a `with` block."""

    def __init__(self, server: Server):
        self.server = server

    def __enter__(self):
        self.cpu0 = self.server.cpu_seconds()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t0
        self.cpu = self.server.cpu_seconds() - self.cpu0
        return False


# --------------------------------------------------------------------------
# Helpers shared by the figures


def new_queue(client, prefix: str, fifo: bool = False) -> str:
    name = f"bench-{prefix}-{uuid.uuid4().hex[:8]}"
    if fifo:
        return client.create_queue(QueueName=name + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    return client.create_queue(QueueName=name)["QueueUrl"]


def drop_queue(client, url: str) -> None:
    try:
        client.delete_queue(QueueUrl=url)
    except Exception:
        pass


def send_batches(client, url: str, count: int, deadline: float | None = None, groups: int = 0) -> int:
    """Send `count` messages in batches of 10 (to a FIFO queue when `groups`: spread
    over that many message groups, each with its own deduplication id). Stops
    early at `deadline` (time.monotonic()); returns how many messages the server accepted."""
    sent = 0
    for start in range(0, count, 10):
        if deadline is not None and time.monotonic() > deadline:
            break
        n = min(10, count - start)
        entries = [{"Id": str(i), "MessageBody": BODY} for i in range(n)]
        if groups:
            for i, entry in enumerate(entries):
                entry["MessageGroupId"] = f"g{(start + i) % groups}"
                entry["MessageDeduplicationId"] = uuid.uuid4().hex
        resp = client.send_message_batch(QueueUrl=url, Entries=entries)
        if resp.get("Failed"):
            raise RuntimeError(f"batch send failed: {resp['Failed'][:1]}")
        sent += len(resp.get("Successful", []))
    return sent


class Wire:
    """JSON-protocol calls on one kept-alive connection, without boto3: the fills and the
    memory scenarios, where boto3's own cost (near 1 ms a call) would make a million
    messages take half an hour. The server does the same work as for boto3's requests."""

    def __init__(self, server: Server):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)

    # Unsigned, but naming SQS's credential scope as an SDK's signature does: moto's server
    # picks the service by it (without it, moto answers as S3).
    AUTHORIZATION = (
        "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0"
    )

    def call(self, op: str, params: dict) -> dict:
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"AmazonSQS.{op}",
            "Authorization": self.AUTHORIZATION,
        }
        self.conn.request("POST", "/", json.dumps(params), headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{op}: HTTP {response.status} {data[:300]!r}")
        return json.loads(data) if data else {}

    def close(self) -> None:
        self.conn.close()


def in_threads(server: Server, count: int, work) -> int:
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
            entries = [{"Id": str(i), "MessageBody": body} for i in range(min(10, share - start))]
            if groups:
                for i, entry in enumerate(entries):
                    entry["MessageGroupId"] = f"g{(start + i) % groups}"
                    entry["MessageDeduplicationId"] = f"{tag}-{thread}-{start + i}"
            answer = wire.call("SendMessageBatch", {"QueueUrl": url, "Entries": entries})
            if answer.get("Failed"):
                raise RuntimeError(f"batch send failed: {answer['Failed'][:1]}")
            sent += len(answer.get("Successful", []))
        return sent

    return in_threads(server, count, send)


def warm_up(client, url: str) -> None:
    """A few untimed calls so connections and code paths are warm."""
    for _ in range(5):
        client.send_message(QueueUrl=url, MessageBody=BODY)
    for _ in range(5):
        r = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        msgs = r.get("Messages", [])
        if not msgs:
            break
        client.delete_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(msgs)]
        )


def per_msg(meter: Meter, count: int) -> dict:
    return {
        "msgs_per_s": count / meter.wall if meter.wall > 0 else None,
        "cpu_us_per_msg": meter.cpu * 1e6 / count if count else None,
        "count": count,
        "wall_s": meter.wall,
        "server_cpu_s": meter.cpu,
    }


# --------------------------------------------------------------------------
# The figures: each takes (server, client, args) and returns a dict


def budget_note(out: dict, done: int, wanted: int, budget_s: float, what: str) -> dict:
    if done < wanted:
        out["note"] = f"{what} stopped at the {budget_s:.0f} s budget: {done:,} of {wanted:,}"
    return out


def fig_send(server, client, args) -> dict:
    url = new_queue(client, "send")
    try:
        warm_up(client, url)
        sent = 0
        deadline = time.monotonic() + args.phase_budget
        with Meter(server) as m:
            for _ in range(args.n):
                client.send_message(QueueUrl=url, MessageBody=BODY)
                sent += 1
                if time.monotonic() > deadline:
                    break
        return budget_note(per_msg(m, sent), sent, args.n, args.phase_budget, "sends")
    finally:
        drop_queue(client, url)


def fig_batch_send(server, client, args) -> dict:
    url = new_queue(client, "batch")
    try:
        warm_up(client, url)
        with Meter(server) as m:
            sent = send_batches(client, url, args.batch_n, deadline=time.monotonic() + args.phase_budget)
        return budget_note(per_msg(m, sent), sent, args.batch_n, args.phase_budget, "batch sends")
    finally:
        drop_queue(client, url)


def fig_receive_delete(server, client, args) -> dict:
    url = new_queue(client, "recv")
    try:
        warm_up(client, url)
        filled = fill(server, url, args.batch_n, deadline=time.monotonic() + args.phase_budget)
        received = 0
        empty_in_a_row = 0
        max_calls = filled // 10 * 3 + 50  # bounded even if the server misbehaves
        deadline = time.monotonic() + args.phase_budget
        with Meter(server) as m:
            for _ in range(max_calls):
                if time.monotonic() > deadline:
                    break
                r = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=300)
                msgs = r.get("Messages", [])
                if not msgs:
                    empty_in_a_row += 1
                    if empty_in_a_row >= 3:
                        break
                    continue
                empty_in_a_row = 0
                client.delete_message_batch(
                    QueueUrl=url,
                    Entries=[{"Id": str(i), "ReceiptHandle": x["ReceiptHandle"]} for i, x in enumerate(msgs)],
                )
                received += len(msgs)
        out = per_msg(m, received)
        if received != args.batch_n:
            out["note"] = (
                f"filled {filled:,} of {args.batch_n:,} (fill budget {args.phase_budget:.0f} s), drained {received:,}"
            )
        return out
    finally:
        drop_queue(client, url)


def fig_depth(server, client, args) -> dict:
    """Receive cost at growing depths, in one queue filled step by step.

    Returns {depth: result}. A depth is skipped when filling it would take
    more than args.fill_budget seconds (predicted from the fill rate so far,
    or observed when the fill runs past its deadline)."""
    url = new_queue(client, "depth")
    results: dict[int, dict] = {}
    in_queue = 0
    fill_rate = None  # msgs/s seen so far
    try:
        warm_up(client, url)
        for depth in sorted(args.depths):
            need = depth - in_queue
            if fill_rate and need / fill_rate > args.fill_budget:
                results[depth] = {
                    "skipped": (
                        f"too slow: filling {need:,} more messages at {fill_rate:,.0f} msgs/s "
                        f"would take ~{need / fill_rate:.0f} s > budget {args.fill_budget:.0f} s"
                    )
                }
                break
            t0 = time.monotonic()
            in_queue += fill(server, url, need, deadline=t0 + args.fill_budget)
            fill_s = time.monotonic() - t0
            fill_rate = need / fill_s if fill_s > 0 else None
            if in_queue < depth:
                results[depth] = {
                    "skipped": (
                        f"too slow: fill passed the {args.fill_budget:.0f} s budget "
                        f"at {in_queue:,} of {depth:,} messages"
                    )
                }
                break
            results[depth] = time_receives(server, client, url, args.k, args.receive_budget)
            results[depth]["fill_s"] = fill_s
        return results
    finally:
        drop_queue(client, url)


def time_receives(server, client, url, k: int, budget_s: float) -> dict:
    """K receives of one message each; they stay in flight (high visibility
    timeout), so each call must find a fresh visible message."""
    walls = []
    deadline = time.monotonic() + budget_s
    with Meter(server) as m:
        for _ in range(k):
            t0 = time.perf_counter()
            r = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1, VisibilityTimeout=3600)
            walls.append(time.perf_counter() - t0)
            if not r.get("Messages"):
                raise RuntimeError("receive returned no message at depth")
            if time.monotonic() > deadline:
                break
    n = len(walls)
    out = {
        "cpu_us_per_recv": m.cpu * 1e6 / n,
        "wall_ms_per_recv": statistics.mean(walls) * 1e3,
        "wall_ms_p50": statistics.median(walls) * 1e3,
        "wall_ms_p99": bench_local.percentile(walls, 0.99) * 1e3,
        "receives": n,
        "server_cpu_s": m.cpu,
    }
    if n < k:
        out["note"] = f"only {n} of {k} receives within the {budget_s:.0f} s budget"
    return out


def fig_long_poll(server, client, args) -> dict:
    """A thread blocks in ReceiveMessage(WaitTimeSeconds=10); the main thread
    sends 0.1 s later. Latency = receive-return minus send-return: it can be
    below 0 when the poller's reply is parsed before the sender's, so the
    table also gives it from the start of the send call."""
    url = new_queue(client, "poll")
    poller = make_client(server)
    latencies, from_start, misses = [], [], 0
    try:
        warm_up(client, url)
        warm_up(poller, url)
        for _ in range(args.polls):
            box = {}

            def wait_for_message(box=box):
                try:
                    r = poller.receive_message(QueueUrl=url, WaitTimeSeconds=10, MaxNumberOfMessages=1)
                    box["t"] = time.perf_counter()
                    box["msgs"] = r.get("Messages", [])
                except Exception as e:  # reported as a miss
                    box["error"] = repr(e)

            th = threading.Thread(target=wait_for_message, daemon=True)
            th.start()
            time.sleep(0.1)
            send_start = time.perf_counter()
            client.send_message(QueueUrl=url, MessageBody=BODY)
            sent_at = time.perf_counter()
            th.join(timeout=15)
            if th.is_alive() or not box.get("msgs"):
                misses += 1
                drain(client, url)
                continue
            latencies.append((box["t"] - sent_at) * 1e3)
            from_start.append((box["t"] - send_start) * 1e3)
            client.delete_message(QueueUrl=url, ReceiptHandle=box["msgs"][0]["ReceiptHandle"])
        out = {"misses": misses, "samples": len(latencies)}
        if latencies:
            out["median_ms"] = statistics.median(latencies)
            out["p99_ms"] = (
                statistics.quantiles(latencies, n=100, method="inclusive")[98] if len(latencies) > 1 else latencies[0]
            )
            out["max_ms"] = max(latencies)
            out["median_ms_from_send_start"] = statistics.median(from_start)
        return out
    finally:
        drop_queue(client, url)


def drain(client, url) -> None:
    for _ in range(10):
        msgs = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not msgs:
            return
        for x in msgs:
            client.delete_message(QueueUrl=url, ReceiptHandle=x["ReceiptHandle"])


def fig_memory(server, client, args) -> dict:
    """RSS growth per queued 256-byte message on a freshly started server."""
    server.restart()
    client = make_client(server)
    url = new_queue(client, "mem")
    try:
        warm_up(client, url)
        fill(server, url, 100, body=MEMORY_BODY)  # first allocations of the data structures
        time.sleep(0.2)
        rss0 = server.rss_bytes()
        t0 = time.monotonic()
        sent = fill(server, url, args.m, deadline=t0 + args.memory_budget, body=MEMORY_BODY)
        time.sleep(0.2)
        rss1 = server.rss_bytes()
        out = {
            "bytes_per_msg": (rss1 - rss0) / sent if sent else None,
            "messages": sent,
            "rss_before_mb": rss0 / 2**20,
            "rss_after_mb": rss1 / 2**20,
            "fill_s": time.monotonic() - t0,
        }
        return budget_note(out, sent, args.m, args.memory_budget, "fill")
    finally:
        drop_queue(client, url)


def fig_rss_drain(server, client, args) -> dict:
    """Issue 17's drain: on a fresh server, M messages sent, each received with
    VisibilityTimeout 600 and deleted, then the queue deleted: RSS after, beside before."""
    server.restart()
    wire = Wire(server)
    try:
        url = wire.call("CreateQueue", {"QueueName": f"bench-drain-{uuid.uuid4().hex[:8]}"})["QueueUrl"]
        fill(server, url, 100, body=MEMORY_BODY)
        in_threads(server, 100, lambda w, share, i: drain_wire(w, url))
        time.sleep(0.5)
        rss0 = server.rss_bytes()
        sent = fill(server, url, args.drain_count, body=MEMORY_BODY)
        rss_full = server.rss_bytes()
        drained = in_threads(server, sent, lambda w, share, i: drain_wire(w, url))
        wire.call("DeleteQueue", {"QueueUrl": url})
        time.sleep(1.0)
        rss1 = server.rss_bytes()
    finally:
        wire.close()
    return {
        "growth_mib": (rss1 - rss0) / 2**20,
        "rss_before_mb": rss0 / 2**20,
        "rss_full_mb": rss_full / 2**20,
        "rss_after_mb": rss1 / 2**20,
        "sent": sent,
        "drained": drained,
    }


def drain_wire(wire: Wire, url: str) -> int:
    """Receive (10 at a time, VisibilityTimeout 600) and delete until two receives come back empty."""
    got, empty = 0, 0
    while empty < 2:
        messages = wire.call(
            "ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10, "VisibilityTimeout": 600}
        ).get("Messages", [])
        if not messages:
            empty += 1
            continue
        empty = 0
        entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
        wire.call("DeleteMessageBatch", {"QueueUrl": url, "Entries": entries})
        got += len(messages)
    return got


def fig_rss_heartbeat(server, client, args) -> dict:
    """Issue 17's heartbeat: on a fresh server, one message received, then H
    ChangeMessageVisibility calls on it (VisibilityTimeout 600) and a delete: RSS after, beside before."""
    server.restart()
    wire = Wire(server)
    try:
        url = wire.call("CreateQueue", {"QueueName": f"bench-beat-{uuid.uuid4().hex[:8]}"})["QueueUrl"]
        wire.call("SendMessage", {"QueueUrl": url, "MessageBody": MEMORY_BODY})
        (message,) = wire.call("ReceiveMessage", {"QueueUrl": url, "VisibilityTimeout": 600})["Messages"]
        handle = message["ReceiptHandle"]

        def beat(w: Wire, share: int, i: int) -> int:
            for _ in range(share):
                w.call("ChangeMessageVisibility", {"QueueUrl": url, "ReceiptHandle": handle, "VisibilityTimeout": 600})
            return share

        in_threads(server, 100, beat)  # warm: first allocations out of the figure
        time.sleep(0.5)
        rss0 = server.rss_bytes()
        calls = in_threads(server, args.heartbeats, beat)
        wire.call("DeleteMessage", {"QueueUrl": url, "ReceiptHandle": handle})
        time.sleep(1.0)
        rss1 = server.rss_bytes()
        wire.call("DeleteQueue", {"QueueUrl": url})
    finally:
        wire.close()
    return {"growth_mib": (rss1 - rss0) / 2**20, "rss_before_mb": rss0 / 2**20, "calls": calls}


def fig_fifo(server, client, args) -> dict:
    """FIFO beside standard, on the same server and client.

    Batch send and recv+delete as in figures 2 and 3, then, at each depth, K
    rounds of receive(1) + delete: with one group a receive can only take the
    group's head once the previous message is deleted, so every round pays
    for both calls, in each queue kind alike."""
    out: dict = {}
    for kind, groups in (("standard", 0), ("fifo", 10)):
        url = new_queue(client, f"k-{kind}", fifo=bool(groups))
        try:
            with Meter(server) as m:
                sent = send_batches(client, url, args.n, deadline=time.monotonic() + args.phase_budget, groups=groups)
            out[f"{kind}_send_cpu_us"] = m.cpu * 1e6 / sent if sent else None
            received = 0
            with Meter(server) as m:
                while received < sent:
                    msgs = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
                    if not msgs:
                        break
                    client.delete_message_batch(
                        QueueUrl=url,
                        Entries=[{"Id": str(i), "ReceiptHandle": x["ReceiptHandle"]} for i, x in enumerate(msgs)],
                    )
                    received += len(msgs)
            out[f"{kind}_recv_delete_cpu_us"] = m.cpu * 1e6 / received if received else None
        finally:
            drop_queue(client, url)
    for kind, groups in (("standard", 0), ("fifo1", 1), ("fifo1000", 1000)):
        url = new_queue(client, f"d-{kind}", fifo=bool(groups))
        in_queue = 0
        try:
            for depth in sorted(args.fifo_depths):
                t0 = time.monotonic()
                in_queue += fill(server, url, depth - in_queue, deadline=t0 + args.fill_budget, groups=groups)
                if in_queue < depth:
                    out[f"{kind}@{depth}"] = {"skipped": f"fill passed {args.fill_budget:.0f} s at {in_queue:,}"}
                    break
                out[f"{kind}@{depth}"] = time_receive_deletes(server, client, url, args.k, args.receive_budget)
                in_queue -= out[f"{kind}@{depth}"]["receives"]
        finally:
            drop_queue(client, url)
    return out


def time_receive_deletes(server, client, url, k: int, budget_s: float) -> dict:
    walls = []
    deadline = time.monotonic() + budget_s
    with Meter(server) as m:
        for _ in range(k):
            t0 = time.perf_counter()
            msgs = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1).get("Messages", [])
            walls.append(time.perf_counter() - t0)
            if not msgs:
                raise RuntimeError("receive returned no message at depth")
            client.delete_message(QueueUrl=url, ReceiptHandle=msgs[0]["ReceiptHandle"])
            if time.monotonic() > deadline:
                break
    return {
        "cpu_us_per_round": m.cpu * 1e6 / len(walls),
        "receive_wall_ms": statistics.mean(walls) * 1e3,
        "receives": len(walls),
    }


# --------------------------------------------------------------------------
# Running the phases and printing the table


def run_phase(name, fn, servers, clients, args, results) -> None:
    """Run one figure on every server in order (A, B); store per label.

    A server that timed out or dropped a connection is marked down and its
    later phases are reported as errors without running, so a hung server
    costs one read timeout, not one per phase."""
    for s in servers:
        label = s.label
        t0 = time.monotonic()
        if s.label.startswith("floor") and name not in FLOOR_FIGURES:
            continue
        if name in EMULATOR_FIGURES and not s.label.startswith("emulator"):
            continue
        if s.down_reason:
            value = {"error": f"not run: {s.down_reason}"}
        else:
            try:
                value = fn(s, clients[label], args)
                if fn in RESTARTING:  # the server restarted: the client needs the new port
                    clients[label] = make_client(s)
            except (ReadTimeoutError, EndpointConnectionError, ConnectionClosedError) as e:
                s.down_reason = f"server stopped answering in {name}: {type(e).__name__}"
                value = {"error": f"{type(e).__name__}: {e}"}
            except Exception as e:
                value = {"error": f"{type(e).__name__}: {e}"}
        results.setdefault(name, {}).setdefault(label, []).append(value)
        print(f"  {name:<14} {label:<10} {time.monotonic() - t0:6.1f} s  {brief(value)}", flush=True)


def brief(value: dict) -> str:
    if not isinstance(value, dict):
        return ""
    if "error" in value:
        return "ERROR " + value["error"][:200]
    parts = []
    for k, v in value.items():
        if isinstance(v, dict):
            parts.append(f"{k}:{{{brief(v)}}}")
        elif isinstance(v, float):
            parts.append(f"{k}={v:.3g}")
        else:
            parts.append(f"{k}={v}")
    return " ".join(parts)


def mean_of(runs: list[dict], key: str):
    vals = [r[key] for r in runs if isinstance(r, dict) and r.get(key) is not None]
    return statistics.mean(vals) if vals else None


def table_rows(results: dict, labels: list[str], args) -> list[tuple]:
    """(figure, better, cells per label) with cell = number | str."""
    rows = []

    def cell(runs, key):
        if not runs:
            return "not run"
        errs = [r["error"] for r in runs if "error" in r]
        if errs and len(errs) == len(runs):
            return "error"
        if any("skipped" in r for r in runs):
            return "skipped (too slow)"
        return mean_of(runs, key)

    def add(title, better, figure, key, pick=lambda runs: runs):
        cells = [cell(pick(results.get(figure, {}).get(lb, [])), key) for lb in labels]
        rows.append((title, better, cells))

    add(f"send: msgs/s (N={args.n})", "higher", "send", "msgs_per_s")
    add("send: server CPU us/msg", "lower", "send", "cpu_us_per_msg")
    add("batch send: msgs/s", "higher", "batch_send", "msgs_per_s")
    add("batch send: server CPU us/msg", "lower", "batch_send", "cpu_us_per_msg")
    add("recv+delete batch: msgs/s", "higher", "recv_delete", "msgs_per_s")
    add("recv+delete batch: server CPU us/msg", "lower", "recv_delete", "cpu_us_per_msg")
    for d in sorted(args.depths):
        pick = (
            lambda depth: (
                lambda runs: (
                    [r.get(depth, {"skipped": "not reached"}) for r in runs if isinstance(r, dict) and "error" not in r]
                    or runs
                )
            )
        )(d)
        add(f"receive @ depth {d:,}: server CPU us", "lower", "depth", "cpu_us_per_recv", pick)
        add(f"receive @ depth {d:,}: wall ms", "lower", "depth", "wall_ms_per_recv", pick)
        add(f"receive @ depth {d:,}: wall p99 ms", "lower", "depth", "wall_ms_p99", pick)
    add("long poll wake: median ms", "lower", "long_poll", "median_ms")
    add("long poll wake: p99 ms", "lower", "long_poll", "p99_ms")
    add("long poll wake: max ms", "lower", "long_poll", "max_ms")
    add("long poll wake: median ms from send start", "lower", "long_poll", "median_ms_from_send_start")
    add(f"memory: RSS bytes per 256-byte msg (M={args.m:,})", "lower", "memory", "bytes_per_msg")
    add(f"drain {args.drain_count:,}, delete queue: RSS growth MiB", "lower", "rss_drain", "growth_mib")
    add(f"{args.heartbeats:,} ChangeMessageVisibility: RSS growth MiB", "lower", "rss_heartbeat", "growth_mib")
    for kind in ("standard", "fifo"):
        add(f"{kind}: batch send server CPU us/msg", "lower", "fifo", f"{kind}_send_cpu_us")
        add(f"{kind}: recv+delete server CPU us/msg", "lower", "fifo", f"{kind}_recv_delete_cpu_us")
    for kind, title in (("standard", "standard"), ("fifo1", "fifo, 1 group"), ("fifo1000", "fifo, 1,000 groups")):
        for d in sorted(args.fifo_depths):
            pick = (
                lambda key: (
                    lambda runs: (
                        [
                            r.get(key, {"skipped": "not reached"})
                            for r in runs
                            if isinstance(r, dict) and "error" not in r
                        ]
                        or runs
                    )
                )
            )(f"{kind}@{d}")
            add(f"{title} @ depth {d:,}: receive+delete server CPU us", "lower", "fifo", "cpu_us_per_round", pick)
    return rows


def local_lines(local: dict, args) -> list[tuple[str, str]]:
    lines = []
    inproc = local.get("inprocess", {})
    for wire in ("json", "query"):
        for key, title in (
            ("send", "SendMessage"),
            ("batch/msg", "per message in SendMessageBatch(10)"),
            ("recv+del/msg", "per message in ReceiveMessage(10)+DeleteMessageBatch(10)"),
        ):
            lines.append((f"app {wire}: us {title}", fmt(inproc.get(f"{wire}_{key}"))))
            if args.baseline:
                lines.append((f"    baseline {args.baseline}", fmt(inproc.get(f"baseline_{wire}_{key}"))))
    engine = local.get("engine", {})
    lines.append(("engine triples/s, batches of 10", fmt(engine.get("triples_per_s_batch10"))))
    lines.append(("engine triples/s, one at a time", fmt(engine.get("triples_per_s_single"))))
    lines.append(("queue.Queue put+get/s", fmt(engine.get("queue_Queue_put_get_per_s"))))
    memory = local.get("tracemalloc", {})
    lines.append(
        (f"tracemalloc bytes per queued 256-byte message (N={args.tracemalloc_n:,})", fmt(memory.get("bytes_per_msg")))
    )
    for row in memory.get("by_line", [])[:5]:
        lines.append((f"    {row['where']}", f"{row['bytes_per_msg']:.1f} B"))
    depth = local.get("local_depth", {})
    keys = ("receive_cpu_us", "receive_cpu_mean_us", "p99_cpu_us", "p50_us", "p99_us", "full_collections")
    low = min(args.local_depths, default=0)
    steps = [(f"{d:,}", str(d)) for d in args.local_depths] + [(f"{low:,} again", f"{low}#again")]
    for kind, _ in bench_local.KINDS:
        for shown, key in steps:
            r = depth.get(f"{kind}@{key}", {})
            title = f"{kind} @ {shown}: receive CPU median/mean us, request p99 CPU us, p50/p99 wall us, full GCs"
            lines.append((title, " / ".join(fmt(r.get(k)) for k in keys)))
    for name, value in local.items():
        if isinstance(value, dict) and "error" in value:
            lines.append((f"{name}: ERROR", value["error"][:200]))
    return lines


def print_lines(title: str, lines: list[tuple[str, str]]) -> str:
    width = max((len(a) for a, _ in lines), default=0)
    text = "\n".join([title, "-" * len(title), *(f"{a.ljust(width)}  {b}" for a, b in lines)])
    print("\n" + text)
    return text


# Issue 17's figures before its work (measured on the landed code, its "Why"): the in-process
# targets are half of these. The Done-when asks the halves of the same run's "before",
# alternating commits: run this script on both trees for that.
BEFORE_US = {"send": 176.0, "batch/msg": 45.0, "recv+del/msg": 63.0}


# Issue 17: receive cost at a million at most 1.2x that at a thousand, p99 latency at most 2x.
# In-process, a request's p99 is judged in CPU time and in wall time: on a shared machine
# the wall time's tail is mostly other processes; a collection a request pays for shows in both.
LOCAL_DEPTH_TARGETS = {"receive_cpu_us": 1.2, "p99_cpu_us": 2.0, "p99_us": 2.0}
SERVER_DEPTH_TARGETS = {"cpu_us_per_recv": 1.2, "wall_ms_p99": 2.0}
DEPTH_WORDS = {
    "receive_cpu_us": "receive CPU (median)",
    "p99_cpu_us": "request p99 CPU",
    "p99_us": "request p99 wall",
    "cpu_us_per_recv": "receive server CPU",
    "wall_ms_p99": "receive p99 wall",
}


def verdicts(local: dict, results: dict, labels: list[str], args) -> list[tuple[str, str, str]]:
    """(figure, value, "target: met / not met") for every figure the Done-whens name."""
    out = []

    def check(title: str, value, limit: float, op: str, unit: str = "", judged: bool = True) -> None:
        if value is None:
            out.append((title, "-", f"target {op} {fmt(limit)}{unit}: not measured"))
            return
        met = {"<=": value <= limit, "<": value < limit, ">=": value >= limit}[op]
        verdict = ("met" if met else "NOT MET") if judged else "not judged at this size"
        out.append((title, f"{fmt(value)}{unit}", f"target {op} {fmt(limit)}{unit}: {verdict}"))

    inproc = local.get("inprocess", {})
    for wire in ("json", "query"):
        for key, before in BEFORE_US.items():
            before = inproc.get(f"baseline_{wire}_{key}", before)
            whose = "the baseline's" if args.baseline else "issue 17's"
            check(
                f"in-process {wire} {key} us (half of {whose} {fmt(before)})",
                inproc.get(f"{wire}_{key}"),
                before / 2,
                "<=",
                " us",
            )
    engine = local.get("engine", {})
    check("engine triples/s, batches of 10", engine.get("triples_per_s_batch10"), 200_000, ">=")
    check("engine triples/s, one at a time", engine.get("triples_per_s_single"), 200_000, ">=")

    def depth_ratio(title: str, values: dict, limit: float) -> None:
        low, high = min(values), max(values)
        a, b = values[low], values[high]
        check(f"{title} @ {high:,} / @ {low:,}", b / a if a and b is not None else None, limit, "<=", "x")

    depth = local.get("local_depth", {})
    for kind, _ in bench_local.KINDS:
        for key, limit in LOCAL_DEPTH_TARGETS.items():
            values = {d: depth.get(f"{kind}@{d}", {}).get(key) for d in args.local_depths}
            again = depth.get(f"{kind}@{min(args.local_depths)}#again", {}).get(key)
            if again is not None and values[min(values)] is not None:  # the smallest depth, before and after
                values[min(values)] = (values[min(values)] + again) / 2
            if values:
                depth_ratio(f"in-process {kind}: {DEPTH_WORDS[key]}", values, limit)
    first = labels[0] if labels else ""
    server_depth = [r for r in results.get("depth", {}).get(first, []) if "error" not in r]
    if server_depth:
        for key, limit in SERVER_DEPTH_TARGETS.items():
            depth_ratio(
                f"server {first}: {DEPTH_WORDS[key]}",
                {d: server_depth[0].get(d, {}).get(key) for d in args.depths},
                limit,
            )
    check(
        "tracemalloc bytes per queued 256-byte message",
        local.get("tracemalloc", {}).get("bytes_per_msg"),
        600,
        "<=",
        " B",
    )
    full_size = not args.quick

    def server_value(figure, label, key):
        return mean_of(results.get(figure, {}).get(label, []), key)

    check(
        f"server {first} RSS bytes per queued 256-byte message",
        server_value("memory", first, "bytes_per_msg"),
        600,
        "<=",
        " B",
    )
    check(
        f"server {first} RSS growth after {args.drain_count:,} drained and the queue deleted",
        server_value("rss_drain", first, "growth_mib"),
        32,
        "<=",
        " MiB",
        judged=args.drain_count >= 200_000,
    )
    check(
        f"server {first} RSS growth after {args.heartbeats:,} ChangeMessageVisibility and a delete",
        server_value("rss_heartbeat", first, "growth_mib"),
        16,
        "<",
        " MiB",
        judged=args.heartbeats >= 100_000,
    )

    def ratio_to(figure, key, other):
        a, b = server_value(figure, first, key), server_value(figure, other, key)
        return a / b if a is not None and b else None

    check(f"server CPU per SendMessage, {first} / floor", ratio_to("send", "cpu_us_per_msg", "floor"), 1.25, "<=", "x")
    check(
        f"server CPU per message in batches of 10, {first} / fauxqs",
        ratio_to("batch_send", "cpu_us_per_msg", "fauxqs"),
        1.0,
        "<",
        "x",
    )
    check(
        f"server CPU per message in recv+delete batches, {first} / fauxqs",
        ratio_to("recv_delete", "cpu_us_per_msg", "fauxqs"),
        1.0,
        "<",
        "x",
    )
    check(f"long-poll wake p99 ({first})", server_value("long_poll", first, "p99_ms"), 1.0, "<", " ms")
    if not full_size:
        out.append(("(--quick)", "", "smaller counts and depths: the depth ratios are to the largest depth run"))
    return out


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.2f}"


def print_table(rows, labels, results) -> str:
    header = ["figure", *labels, *(f"{labels[0]}/{other}" for other in labels[1:]), "better"]
    lines_data = []
    for title, better, cells in rows:
        if all(cell == "not run" for cell in cells):  # a figure left out by --only, or one only the floor skips
            continue
        ratios = [ratio(cells[0], other) for other in cells[1:]]
        lines_data.append([title, *(fmt(c) for c in cells), *ratios, better])
    widths = [max(len(r[i]) for r in [header, *lines_data]) for i in range(len(header))]
    out = []
    sep = "-+-".join("-" * w for w in widths)
    out.append(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    out.append(sep)
    for r in lines_data:
        out.append(" | ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]))
    notes = collect_notes(results)
    if notes:
        out.append("")
        out.append("Notes:")
        out += [f"  - {n}" for n in notes]
    text = "\n".join(out)
    print(text)
    return text


def ratio(a, b) -> str:
    numbers = isinstance(a, (int, float)) and isinstance(b, (int, float))
    return f"{a / b:.3g}x" if numbers and a >= 0 and b > 0 else "-"  # no ratio of a negative latency


def collect_notes(results) -> list[str]:
    notes = []

    def walk(figure, label, value, where=""):
        if not isinstance(value, dict):
            return
        for key in ("skipped", "note", "error"):
            if key in value:
                notes.append(f"{figure}{where} [{label}]: {key}: {value[key]}")
        for k, v in value.items():
            if isinstance(v, dict):
                walk(figure, label, v, f" @ {k:,}" if isinstance(k, int) else f" {k}")

    for figure, per_label in results.items():
        for label, runs in per_label.items():
            for v in runs:
                walk(figure, label, v)
    return notes


# --------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Usage:" + __doc__.split("Usage:")[1],
    )
    p.add_argument(
        "--targets",
        default="emulator,floor,fauxqs",
        help=f"two or more comma-separated servers, A, B, ...: {', '.join(TARGETS)} "
        "(default emulator,floor,fauxqs, what the targets compare; moto,moto checks the harness)",
    )
    p.add_argument(
        "--emulator-cmd", default=EMULATOR_CMD, help="command for the emulator; {port} and {python} are filled in"
    )
    p.add_argument("--moto-cmd", default=MOTO_CMD, help="command for moto")
    p.add_argument("--fauxqs-cmd", default=FAUXQS_CMD, help="command for fauxqs")
    p.add_argument(
        "--quick",
        action="store_true",
        help="short run (< 2 min): N=300, smaller counts everywhere, in-process depths to 100,000, "
        "server depths to 10,000, the memory scenarios at a tenth (not judged), short budgets",
    )
    p.add_argument("-n", type=int, help="messages for the SendMessage figure (default 2000)")
    p.add_argument(
        "--batch-n",
        type=int,
        # psutil reads server CPU in 10 ms ticks: 200 batch requests were a few ticks, +-15%
        help="messages for the batch and recv+delete figures (default 5 x -n)",
    )
    p.add_argument("-k", type=int, help="receives timed at each server depth (default 1000, quick 200)")
    p.add_argument("-m", type=int, help="messages for the server memory figure (default 50000)")
    p.add_argument(
        "--depths", help="comma-separated server queue depths (default 1000,10000,100000,1000000; quick 1000,10000)"
    )
    p.add_argument(
        "--fifo-depths", help="server depths of the FIFO figure (default the --depths up to 100,000: fills take long)"
    )
    p.add_argument(
        "--local-depths",
        help="in-process depths, standard and FIFO (default 1000,10000,100000,1000000; quick to 100000)",
    )
    p.add_argument(
        "--rounds", type=int, help="send+receive+delete rounds at each in-process depth (default 3000, quick 1000)"
    )
    p.add_argument("--triples", type=int, help="engine triples per figure (default 200000, quick 50000)")
    p.add_argument("--inprocess-n", type=int, help="messages per in-process figure (default 5000, quick 2000)")
    p.add_argument(
        "--inprocess-rounds", type=int, help="in-process rounds per tree, their median kept (default 5, quick 1)"
    )
    p.add_argument(
        "--baseline",
        metavar="TREE",
        help="a checkout of the commit to compare (git worktree add /tmp/base <commit>): its in-process "
        "rounds alternate with this tree's, and the in-process targets are half of its figures",
    )
    p.add_argument("--tracemalloc-n", type=int, help="messages for the tracemalloc figure (default 20000, quick 5000)")
    p.add_argument(
        "--drain-count", type=int, help="messages of the drain scenario (default 200000, issue 17's; quick 20000)"
    )
    p.add_argument(
        "--heartbeats", type=int, help="ChangeMessageVisibility calls of its scenario (default 100000; quick 10000)"
    )
    p.add_argument("--polls", type=int, help="long-poll samples (default 100, quick 20)")
    p.add_argument("--repeat", type=int, help="rounds of the send/batch/recv figures, A,B,A,B... (default 4)")
    p.add_argument(
        "--phase-budget",
        type=float,
        help="seconds each send / batch / recv+delete loop may take "
        "(default 30, quick 15); a slow server then reports fewer messages",
    )
    p.add_argument(
        "--fill-budget",
        type=float,
        help="seconds a depth fill may take before that depth is skipped (default 120, quick 30)",
    )
    p.add_argument(
        "--receive-budget", type=float, help="seconds the timed receives at one depth may take (default 60, quick 10)"
    )
    p.add_argument("--memory-budget", type=float, help="seconds the memory fill may take (default 60, quick 15)")
    p.add_argument(
        "--only",
        help="comma-separated figures to run: inprocess,engine,tracemalloc,local_depth (no server); "
        "send,batch_send,recv_delete,depth,long_poll,memory,fifo,rss_drain,rss_heartbeat",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument(
        "--store", action="store_true", help="the persistence figures instead: memory, --sync off / interval / always"
    )
    p.add_argument(
        "--restart-counts",
        default="100000,1000000",
        help="stored messages for the --store restart figure (default 100000,1000000)",
    )
    args = p.parse_args(argv)
    args.restart_counts = [int(c) for c in args.restart_counts.split(",") if c.strip()]

    quick = args.quick
    args.n = args.n or (300 if quick else 2000)
    args.batch_n = args.batch_n or 5 * args.n
    args.inprocess_n = args.inprocess_n or (2000 if quick else 5000)
    args.inprocess_rounds = args.inprocess_rounds or (1 if quick else 5)
    args.k = args.k or (200 if quick else 1000)
    args.m = args.m or (5_000 if quick else 50_000)
    args.polls = args.polls or (20 if quick else 100)
    args.repeat = args.repeat or (1 if quick else 4)  # two rounds' ratios swung by up to 1.3x
    args.rounds = args.rounds or (1000 if quick else 3000)
    args.triples = args.triples or (50_000 if quick else 200_000)
    args.tracemalloc_n = args.tracemalloc_n or (5_000 if quick else 20_000)
    args.drain_count = args.drain_count or (20_000 if quick else 200_000)
    args.heartbeats = args.heartbeats or (10_000 if quick else 100_000)
    args.depths = ints(args.depths or ("1000,10000" if quick else "1000,10000,100000,1000000"))
    args.fifo_depths = ints(args.fifo_depths) if args.fifo_depths else [d for d in args.depths if d <= 100_000]
    args.local_depths = ints(args.local_depths or ("1000,10000,100000" if quick else "1000,10000,100000,1000000"))
    args.phase_budget = args.phase_budget or (15.0 if quick else 30.0)
    args.fill_budget = args.fill_budget or (30.0 if quick else 120.0)
    args.receive_budget = args.receive_budget or (10.0 if quick else 60.0)
    args.memory_budget = args.memory_budget or (15.0 if quick else 60.0)
    args.targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if len(args.targets) < 2 or any(t not in TARGETS for t in args.targets):
        p.error(f"--targets takes two or more of: {', '.join(TARGETS)}")
    return args


def ints(text: str) -> list[int]:
    return [int(d) for d in text.split(",") if d.strip()]


PHASES = [
    ("send", fig_send, True),
    ("batch_send", fig_batch_send, True),
    ("recv_delete", fig_receive_delete, True),
    ("depth", fig_depth, False),
    ("long_poll", fig_long_poll, False),
    ("memory", fig_memory, False),
    ("fifo", fig_fifo, False),
    ("rss_drain", fig_rss_drain, False),
    ("rss_heartbeat", fig_rss_heartbeat, False),
]
RESTARTING = (fig_memory, fig_rss_drain, fig_rss_heartbeat)


LOCAL_PHASES = ("inprocess", "engine", "tracemalloc", "local_depth")


def run_local(args, local: dict, only: set | None) -> None:
    """The figures without a server (scripts/bench_local.py, scripts/bench_inprocess.py), once each."""

    def phase(name: str, fn) -> None:
        if only and name not in only:
            return
        t0 = time.monotonic()
        try:
            local[name] = fn()
        except Exception as e:
            local[name] = {"error": f"{type(e).__name__}: {e}"}
        shown = brief({k: v for k, v in local[name].items() if k not in ("rounds", "by_line")})
        print(f"  {name:<14} {'(local)':<10} {time.monotonic() - t0:6.1f} s  {shown[:300]}", flush=True)

    phase("inprocess", lambda: inprocess(args))
    phase("engine", lambda: bench_local.engine_triples(args.triples))
    phase("tracemalloc", lambda: bench_local.tracemalloc_per_message(args.tracemalloc_n))
    phase("local_depth", lambda: bench_local.depth_figure(args.local_depths, args.rounds))


# One round of scripts/bench_inprocess.py in a process of its own, the emulator imported
# from the tree on PYTHONPATH: the same measuring code for this tree and a --baseline.
INPROCESS_ROUND = """
import json, sys
import bench_inprocess
from emulator.server.build import Options, build
emulator = build(Options(port=0, clock="manual"), listen=False)
n = int(sys.argv[1])
print(json.dumps({w: bench_inprocess.run(bench_inprocess.Client(emulator.app, w), n) for w in ("json", "query")}))
"""


def inprocess(args) -> dict:
    """scripts/bench_inprocess.py's figures, JSON and query, `inprocess_rounds` rounds; with --baseline,
    that tree's rounds alternate with this one's (A, B, A, B). Medians kept (a round the shared
    machine slowed moves no verdict), every round in "rounds"."""
    trees = {"": TREE} | ({"baseline_": os.path.abspath(args.baseline)} if args.baseline else {})
    rounds: dict[str, list[dict]] = {prefix: [] for prefix in trees}
    for _ in range(args.inprocess_rounds):
        for prefix, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, HERE]))
            done = subprocess.run(
                [sys.executable, "-c", INPROCESS_ROUND, str(args.inprocess_n)],
                env=env,
                cwd=tree,
                capture_output=True,
                text=True,
                check=True,
            )
            rounds[prefix].append(json.loads(done.stdout.strip().splitlines()[-1]))
    out: dict = {"rounds": rounds}
    for prefix, runs in rounds.items():
        for wire in ("json", "query"):
            for figure in runs[0][wire]:
                out[f"{prefix}{wire}_{figure}"] = statistics.median(r[wire][figure] for r in runs)
    return out


def command(target: str, args) -> str:
    if target.startswith("floor"):
        return FLOOR_CMD + (f" --server {target[len('floor-') :]}" if target != "floor" else "")
    return {"emulator": args.emulator_cmd, "moto": args.moto_cmd, "fauxqs": args.fauxqs_cmd}[target]


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.store:
        import bench_store

        return bench_store.run(sys.modules[__name__], args)
    only = set(args.only.split(",")) if args.only else None
    log_dir = tempfile.mkdtemp(prefix="sqs-bench-")

    servers, labels = [], []
    for t in args.targets:
        label = t if t not in labels else f"{t}#2"
        labels.append(label)
        servers.append(Server(label, command(t, args), log_dir))

    results: dict = {}
    local: dict = {}
    started = time.monotonic()
    try:
        run_local(args, local, only)
        if only and not only - set(LOCAL_PHASES):
            servers = []
        for s in servers:
            s.start()
            print(f"started {s.label} on port {s.port} (pid {s.proc.pid}), log {s.log_path}", flush=True)
        clients = {s.label: make_client(s) for s in servers}
        for name, fn, repeated in PHASES:
            if only and name not in only:
                continue
            for _ in range(args.repeat if repeated else 1):
                run_phase(name, fn, servers, clients, args, results)
    except KeyboardInterrupt:
        print("interrupted; printing what was measured", file=sys.stderr)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        for s in servers:
            s.stop()

    elapsed = time.monotonic() - started
    print(
        f"\nFinished in {elapsed:.0f} s. Ratios: {labels[0]} / each other target; "
        "server CPU from psutil (10 ms tick resolution).\n"
    )
    rows = table_rows(results, labels, args)
    text = print_table(rows, labels, results) if results else ""
    text += "\n\n" + print_lines("In-process (no HTTP; CPU per operation from process time)", local_lines(local, args))
    checks = verdicts(local, results, labels, args)
    text += "\n\n" + print_lines("Targets (issues 16 and 17, Done when)", [(c[0], f"{c[1]}  {c[2]}") for c in checks])

    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "targets": labels,
                    "options": {k: v for k, v in vars(args).items() if k != "json"},
                    "elapsed_s": elapsed,
                    "table": [{"figure": t, "better": b, **dict(zip(labels, c, strict=True))} for t, b, c in rows],
                    "raw": json_safe(results),
                    "local": json_safe(local),
                    "verdicts": [{"figure": f, "value": v, "target": t} for f, v, t in checks],
                    "text": text,
                },
                f,
                indent=2,
            )
        print(f"\nwrote {args.json}")
    return 0


def json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    return obj


if __name__ == "__main__":
    sys.exit(main())
