"""The in-process depth figure: a queue filled through the engine's send to each depth, then
rounds of SendMessage + ReceiveMessage + DeleteMessage through the app (no HTTP): CPU per
receive (median and mean), p99 per request in CPU and in wall time, the full collections
seen; standard, FIFO with 1 and with 1,000 groups.

    python -m bench.figures.local_depth --depths 1000,1000000 --rounds 3000   # JSON on stdout

Its own loop, not pyperf's: the figure is each request's cost and the tail of their
distribution (p99), where pyperf keeps only the mean time of each value's loops. The warm-up
is explicit (200 rounds before the first depth), and the smallest depth is measured again at
the end: the ratio to the largest takes the mean of the two.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time

from bench.in_process import BODY, App, engine_message
from bench.stats import growth, percentile
from emulator.api.ids import new_uuid_bytes

KINDS = (("standard", 0), ("fifo1", 1), ("fifo1000", 1000))
JUDGED = ("receive_cpu_us", "p99_cpu_us", "p99_us")  # the figures whose growth with depth is judged


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


def depth_figure(depths: list[int], rounds: int) -> dict:
    """{f"{kind}@{depth}": result, f"{kind}_{figure}_growth": ratio}: one queue per kind,
    filled step by step, the smallest depth again at the end as f"{kind}@{depth}#again"."""
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
            result = _rounds(app, url, groups, rounds, tag=key)
            result["fill_s"] = time.perf_counter() - started
            out[key] = result
            print(
                f"  local_depth    {key}: {result['receive_cpu_us']:.1f} us CPU per receive (median), "
                f"p99 {result['p99_cpu_us']:.0f} us CPU, {result['p99_us']:.0f} us wall",
                file=sys.stderr,
                flush=True,
            )
        for figure in JUDGED:
            again = out.get(f"{kind}@{min(depths)}#again", {}).get(figure)
            out[f"{kind}_{figure}_growth"] = growth({d: out[f"{kind}@{d}"][figure] for d in depths}, again)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", default="1000,10000,100000,1000000", help="comma-separated depths")
    parser.add_argument("--rounds", type=int, default=3000, help="send+receive+delete rounds at each depth")
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",") if d.strip()]
    print(json.dumps(depth_figure(depths, args.rounds)))


if __name__ == "__main__":
    main()
