"""The figures of scripts/bench.py that need no server: the engine and the app called in-process.

  engine     send+receive+delete triples per CPU second against the engine's Queue
             directly, one thread, in batches of 10 (message objects built in the
             loop) and one at a time, beside queue.Queue put+get
  depth      a queue filled to each depth through the engine's send (10 a call), then
             rounds of SendMessage + ReceiveMessage + DeleteMessage through the app
             (the WSGI callable, no HTTP): CPU per receive (median and mean), p99 per
             request in CPU and in wall time, the full collections seen; standard, FIFO with 1 and with 1,000 groups
  memory     N 256-byte messages sent in SendMessageBatch calls of 10 through the app;
             tracemalloc's growth per message, with the lines that allocated it

The in-process cost per operation is scripts/bench_inprocess.py's (bench.py calls it).
Run them through bench.py (`--only engine,local_depth,tracemalloc`).
"""

from __future__ import annotations

import gc
import json
import queue as stdlib_queue
import time
import tracemalloc

import bench_inprocess

from emulator.api.ids import new_uuid_bytes
from emulator.engine.broker import Broker
from emulator.engine.message import Message
from emulator.server.build import Options, build

BODY = "x" * 256
MD5 = bytes(16)  # the engine takes the digest the api layer computed; its value does not matter here
KINDS = (("standard", 0), ("fifo1", 1), ("fifo1000", 1000))


def engine_message(message_id: bytes, group: int | None = None) -> Message:
    """The one place this script builds an engine message (its constructor may change),
    from its id's 16 bytes, as the api layer makes it."""
    if group is None:
        return Message(message_id + MD5, BODY, {}, {}, None, "bench")
    return Message(message_id + MD5, BODY, {}, {}, None, "bench", f"g{group}", message_id.hex())


# -- engine triples --------------------------------------------------------------


def engine_triples(n: int) -> dict:
    """Triples per CPU second (process time: the machine is shared): in batches of 10 (a send,
    a receive and a delete of ten each, as SendMessageBatch, ReceiveMessage and
    DeleteMessageBatch call the engine), and one at a time."""
    broker = Broker()
    queue, _ = broker.create_queue("000000000000", "us-east-1", "triples", {})
    ids = [new_uuid_bytes() for _ in range(n)]
    cpu = time.process_time
    started = cpu()
    for i in range(0, n, 10):
        queue.send([(engine_message(ids[j]), 0) for j in range(i, i + 10)])
        queue.delete_batch([delivery.receipt_handle for delivery in queue.receive(10, 30, 0)])
    batches = n / (cpu() - started)
    started = cpu()
    for i in range(n):
        queue.send([(engine_message(ids[i]), 0)])
        (delivery,) = queue.receive(1, 30, 0)
        queue.delete(delivery.receipt_handle)
    singles = n / (cpu() - started)
    broker.close()
    stdlib = stdlib_queue.Queue()
    started = cpu()
    for i in range(n):
        stdlib.put(i)
        stdlib.get()
    return {
        "triples_per_s_batch10": batches,
        "triples_per_s_single": singles,
        "queue_Queue_put_get_per_s": n / (cpu() - started),
        "triples": n,
    }


# -- the app in-process ----------------------------------------------------------


class App:
    """The emulator's WSGI app, built without listening, called through bench_inprocess's client."""

    def __init__(self):
        self.emulator = build(Options(port=0), listen=False)
        self.client = bench_inprocess.Client(self.emulator.app, "json")

    def call(self, op: str, **params) -> dict:
        return json.loads(self.client.call(op, params))

    def close(self) -> None:
        self.emulator.broker.reset()  # thaws what a freeze kept
        self.emulator.close()


def tracemalloc_per_message(n: int, top: int = 8) -> dict:
    app = App()
    url = app.call("CreateQueue", QueueName="memory")["QueueUrl"]
    app.call("SendMessage", QueueUrl=url, MessageBody="warm")  # first-use allocations out of the figure
    entries = [{"Id": str(j), "MessageBody": BODY} for j in range(10)]
    gc.collect()
    tracemalloc.start(1)
    base = tracemalloc.take_snapshot()
    for _ in range(0, n, 10):
        app.call("SendMessageBatch", QueueUrl=url, Entries=entries)
    gc.collect()
    diff = tracemalloc.take_snapshot().compare_to(base, "lineno")
    tracemalloc.stop()
    app.close()
    return {
        "bytes_per_msg": sum(stat.size_diff for stat in diff) / n,
        "messages": n,
        "by_line": [
            {"bytes_per_msg": s.size_diff / n, "objects_per_msg": s.count_diff / n, "where": str(s.traceback)}
            for s in diff[:top]
        ],
    }


class FullCollections:
    """The pauses of full (generation 2) collections while installed."""

    def __init__(self):
        self.pauses: list[float] = []
        self._began = 0.0
        gc.callbacks.insert(0, self._started)  # first in: its stop is last, after any freeze
        gc.callbacks.append(self._stopped)

    def _started(self, phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            self._began = time.perf_counter()

    def _stopped(self, phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            self.pauses.append(time.perf_counter() - self._began)

    def remove(self) -> None:
        gc.callbacks.remove(self._started)
        gc.callbacks.remove(self._stopped)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def depth_figure(depths: list[int], rounds: int, report=print) -> dict:
    """{f"{kind}@{depth}": result}: one queue per kind, filled step by step. The smallest
    depth is measured again at the end (the queue purged and refilled to it), as
    f"{kind}@{depth}#again": the machine's load drifts over a minute, and the ratio to
    the largest depth takes the mean of the two."""
    out: dict = {}
    for kind, groups in KINDS:
        app = App()
        name = "depth.fifo" if groups else "depth"
        attributes = {"FifoQueue": "true"} if groups else {}
        url = app.call("CreateQueue", QueueName=name, Attributes=attributes)["QueueUrl"]
        (queue,) = app.emulator.broker.all_queues()
        _fill(queue, groups, 0, 1)
        _rounds(app, url, groups, 200, tag="warm")  # first-use costs out of the first depth's figure
        queue.delete(queue.receive(1, 600, 0)[0].receipt_handle)
        steps = sorted(depths) + (sorted(depths)[:1] if len(depths) > 1 else [])
        in_queue = 0
        for step, depth in enumerate(steps):
            key = f"{kind}@{depth}" if step < len(depths) else f"{kind}@{depth}#again"
            if depth < in_queue:
                queue.purge()
                in_queue = 0
            started = time.perf_counter()
            _fill(queue, groups, in_queue, depth)
            in_queue = depth
            fill_s = time.perf_counter() - started
            result = _rounds(app, url, groups, rounds, tag=key)
            result["fill_s"] = fill_s
            out[key] = result
            report(
                f"  local_depth    {key}: {result['receive_cpu_us']:.1f} us CPU per receive (median), "
                f"p99 {result['p99_cpu_us']:.0f} us CPU, {result['p99_us']:.0f} us wall, fill {fill_s:.1f} s"
            )
        app.close()
        del app, queue
        gc.collect()
    return out


def _fill(queue, groups: int, start: int, stop: int) -> None:
    """Messages start..stop through the engine's send, 10 a call (FIFO: spread over the groups)."""
    for first in range(start, stop, 10):
        last = min(first + 10, stop)
        queue.send([(engine_message(new_uuid_bytes(), i % groups if groups else None), 0) for i in range(first, last)])


def _rounds(app: App, url: str, groups: int, rounds: int, tag: str) -> dict:
    """SendMessage, ReceiveMessage, DeleteMessage `rounds` times: the depth stays where it is.
    With groups, each send goes to a group of its own turn, and the receive takes a group's head.

    Each request's CPU time (this thread's) is kept beside its wall time: on a shared machine
    the wall time's tail is mostly other processes, while a collection or a walk over the
    queue that a request pays for shows in its CPU time alike."""
    full = FullCollections()
    walls: list[float] = []
    cpus: list[float] = []
    receives: list[float] = []
    cpu, wall = time.thread_time, time.perf_counter

    def timed(op: str, params: dict) -> bytes:
        began, began_cpu = wall(), cpu()
        answer = app.client.call(op, params)
        cpus.append(cpu() - began_cpu)
        walls.append(wall() - began)
        return answer

    for i in range(rounds):
        send: dict = {"QueueUrl": url, "MessageBody": BODY}
        if groups:
            send |= {"MessageGroupId": f"g{i % groups}", "MessageDeduplicationId": f"r{tag}-{i}"}
        timed("SendMessage", send)
        answer = timed("ReceiveMessage", {"QueueUrl": url, "VisibilityTimeout": 600})
        receives.append(cpus[-1])
        (handle,) = app.client.handles(answer)
        timed("DeleteMessage", {"QueueUrl": url, "ReceiptHandle": handle})
    full.remove()
    return {
        "receive_cpu_us": percentile(receives, 0.5) * 1e6,
        "receive_cpu_mean_us": sum(receives) / rounds * 1e6,
        "p99_cpu_us": percentile(cpus, 0.99) * 1e6,
        "p50_us": percentile(walls, 0.5) * 1e6,
        "p99_us": percentile(walls, 0.99) * 1e6,
        "max_ms": max(walls) * 1e3,
        "requests": len(walls),
        "full_collections": len(full.pauses),
        "longest_collection_ms": max(full.pauses, default=0.0) * 1e3,
    }
