"""The app's own cost: the WSGI callable called in-process (no HTTP, no sockets), in CPU
seconds per SendMessage, per message in SendMessageBatch(10) and per message in
ReceiveMessage(10)+DeleteMessageBatch(10), JSON and query. A pyperf program:

    python -m bench.figures.inprocess --fast                 # this checkout, alone
    python -m bench.figures.inprocess --profile send.prof    # cProfile of every figure

`python -m bench` runs it in rounds alternated with --baseline's checkout (bench/harness.py).
Each value uses a queue of its own, made and deleted outside the timing, so calibration and
warm-up values leave nothing behind for the next.
"""

from __future__ import annotations

import time
import uuid

import pyperf

from bench.in_process import BODY, HOST, Client
from emulator.server.build import Options, build

BATCH = [{"Id": str(i), "MessageBody": BODY} for i in range(10)]
_clients: dict[str, Client] = {}


def _client(wire: str) -> Client:
    """The app in `wire`'s protocol, built on first use: only pyperf's workers run a figure,
    so its master process never builds one."""
    if not _clients:
        app = build(Options(port=0, clock="manual"), listen=False).app
        _clients.update({w: Client(app, w) for w in ("json", "query")})
    return _clients[wire]


def _queue(client: Client) -> str:
    name = f"bench-{client.wire}-{uuid.uuid4().hex[:8]}"
    client.call("CreateQueue", {"QueueName": name})
    return f"http://{HOST}/000000000000/{name}"


def same_call(loops: int, wire: str, operation: str, params: dict) -> float:
    """One loop: the same call (SendMessage, or SendMessageBatch with inner_loops=10 for a value per message)."""
    client = _client(wire)
    url = _queue(client)
    params = {"QueueUrl": url, **params}
    started = time.process_time()
    for _ in range(loops):
        client.call(operation, params)
    took = time.process_time() - started
    client.call("DeleteQueue", {"QueueUrl": url})
    return took


def receive_delete(loops: int, wire: str) -> float:
    """`loops` x 10 messages sent untimed, then received 10 at a time and deleted in batches
    until all are gone (inner_loops=10: the value is per message)."""
    client = _client(wire)
    url = _queue(client)
    for _ in range(loops):
        client.call("SendMessageBatch", {"QueueUrl": url, "Entries": BATCH})
    left = loops * 10
    started = time.process_time()
    for _ in range(3 * loops + 10):  # bounded even if a receive keeps coming back short
        handles = client.handles(client.call("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10}))
        if handles:
            entries = [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]
            client.call("DeleteMessageBatch", {"QueueUrl": url, "Entries": entries})
            left -= len(handles)
        if left <= 0:
            break
    took = time.process_time() - started
    client.call("DeleteQueue", {"QueueUrl": url})
    if left > 0:
        raise RuntimeError(f"{left} messages were not received")
    return took


def time_each_figure(runner: pyperf.Runner, same_call, receive_delete) -> None:
    """The figures of both protocols, timed by these two callers (this module's, or answer.py's)."""
    for wire in ("json", "query"):
        runner.bench_time_func(f"{wire}_send", same_call, wire, "SendMessage", {"MessageBody": BODY})
        runner.bench_time_func(
            f"{wire}_batch_per_msg", same_call, wire, "SendMessageBatch", {"Entries": BATCH}, inner_loops=10
        )
        runner.bench_time_func(f"{wire}_recv_del_per_msg", receive_delete, wire, inner_loops=10)


def main() -> None:
    runner = pyperf.Runner(program_args=("-m", "bench.figures.inprocess"))
    runner.metadata["description"] = "CPU seconds per message, the app called in-process"
    time_each_figure(runner, same_call, receive_delete)


if __name__ == "__main__":
    main()
