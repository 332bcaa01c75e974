#!/usr/bin/env python
"""Memory per queued message and request latency at depth, the app called in-process.

    PYTHONPATH=$PWD python3 scripts/bench_memory.py               # both figures
    PYTHONPATH=$PWD python3 scripts/bench_memory.py --memory 20000
    PYTHONPATH=$PWD python3 scripts/bench_memory.py --latency 1000000

memory: N 256-byte messages sent in SendMessageBatch calls of 10 through
werkzeug's test client (the whole WSGI app, no HTTP); tracemalloc's growth,
per message, with the lines that allocated it.

latency: a queue filled to each depth (the engine's send, fast), then SendMessage,
ReceiveMessage and DeleteMessage calls through the app: their p50, p99 and max.
A full cyclic collection over a million live objects takes about a second, so
without the tuning in emulator/engine/collector.py a request now and then waits on it.
"""

import argparse
import gc
import json
import time
import tracemalloc

from werkzeug.test import Client

from emulator.api.ids import new_uuid
from emulator.engine.message import Message
from emulator.server.build import Options, build

BODY = "x" * 256


class App:
    def __init__(self):
        self.emulator = build(Options(port=0), listen=False)
        self.client = Client(self.emulator.app)

    def call(self, op: str, **params) -> dict:
        headers = {"X-Amz-Target": f"AmazonSQS.{op}", "Content-Type": "application/x-amz-json-1.0"}
        response = self.client.post("/", data=json.dumps(params), headers=headers)
        return json.loads(response.get_data())


def memory(n: int) -> None:
    app = App()
    url = app.call("CreateQueue", QueueName="memory")["QueueUrl"]
    app.call("SendMessage", QueueUrl=url, MessageBody="warm")  # first-use allocations out of the figure
    gc.collect()
    tracemalloc.start(1)
    base = tracemalloc.take_snapshot()
    for _ in range(0, n, 10):
        entries = [{"Id": str(j), "MessageBody": BODY} for j in range(10)]
        app.call("SendMessageBatch", QueueUrl=url, Entries=entries)
    gc.collect()
    diff = tracemalloc.take_snapshot().compare_to(base, "lineno")
    tracemalloc.stop()
    print(f"memory: {sum(stat.size_diff for stat in diff) / n:.0f} B per queued {len(BODY)}-byte message ({n} sent)")
    for stat in diff[:10]:
        print(f"  {stat.size_diff / n:7.1f} B {stat.count_diff / n:5.2f} objects  {stat.traceback}")


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


def _percentiles(times: list[float]) -> str:
    times = sorted(times)
    p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
    return f"p50 {p50 * 1e6:6.0f} us  p99 {p99 * 1e6:6.0f} us  max {times[-1] * 1e3:7.1f} ms"


def latency(depths: list[int], calls: int) -> None:
    print(f"latency: a queue filled to each depth by the engine's send, 10 a call, then {calls} rounds")
    print("of SendMessage + ReceiveMessage + DeleteMessage through the app")
    for depth in depths:
        app = App()
        url = app.call("CreateQueue", QueueName="depth")["QueueUrl"]
        (queue,) = app.emulator.broker.all_queues()
        full = FullCollections()
        fill = []
        for _ in range(0, depth, 10):
            batch = [(Message(new_uuid(), BODY, {}, {}, "0" * 32, None, "bench"), 0) for _ in range(10)]
            began = time.perf_counter()
            queue.send(batch)
            fill.append(time.perf_counter() - began)
        times = []
        for _ in range(calls):
            for op, params in (("SendMessage", {"MessageBody": BODY}), ("ReceiveMessage", {"VisibilityTimeout": 600})):
                began = time.perf_counter()
                answer = app.call(op, QueueUrl=url, **params)
                times.append(time.perf_counter() - began)
            began = time.perf_counter()
            app.call("DeleteMessage", QueueUrl=url, ReceiptHandle=answer["Messages"][0]["ReceiptHandle"])
            times.append(time.perf_counter() - began)
        full.remove()
        longest = max(full.pauses, default=0.0)
        print(f"  depth {depth:>9,}: requests  {_percentiles(times)}")
        print(f"  {'':>16}  fill sends {_percentiles(fill[-len(fill) // 10 :])} (its last tenth)")
        print(f"  {'':>16}  {len(full.pauses)} full collections, longest {longest * 1e3:.1f} ms")
        app.emulator.broker.reset()  # thaws what a freeze kept
        del app, queue
        gc.collect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory", type=int, metavar="N", help="only the memory figure, N messages")
    parser.add_argument(
        "--latency", type=int, nargs="+", metavar="DEPTH", help="only the latency figure, at these depths"
    )
    parser.add_argument("--calls", type=int, default=3000, help="rounds per depth (default 3000)")
    args = parser.parse_args()
    if args.memory or not args.latency:
        memory(args.memory or 20000)
    if args.latency or not args.memory:
        latency(args.latency or [1000, 1000000], args.calls)


if __name__ == "__main__":
    main()
