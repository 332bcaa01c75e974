"""fifo: FIFO beside standard on the same server and client. Batch send and recv+delete as
in batch_send and recv_delete, then, at each depth, K rounds of receive(1) + delete: with one
group a receive can only take the group's head once the one before is deleted, so every
round pays for both calls, in each kind of queue alike."""

from __future__ import annotations

import statistics
import time

from bench.processes import Meter, Server
from bench.wire import delete_entries, drop_queue, fill, new_queue, send_batches

REPEATED, WHO, RESTARTS = False, "storing", False


def run(server: Server, client, args) -> dict:
    out: dict = {}
    for kind, groups in (("standard", 0), ("fifo", 10)):
        url = new_queue(client, f"k-{kind}", fifo=bool(groups))
        try:
            with Meter(server) as meter:
                sent = send_batches(client, url, args.n, deadline=time.monotonic() + args.phase_budget, groups=groups)
            out[f"{kind}_send_cpu_us"] = meter.cpu * 1e6 / sent if sent else None
            received = 0
            with Meter(server) as meter:
                while received < sent:
                    messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
                    if not messages:
                        break
                    client.delete_message_batch(QueueUrl=url, Entries=delete_entries(messages))
                    received += len(messages)
            out[f"{kind}_recv_delete_cpu_us"] = meter.cpu * 1e6 / received if received else None
        finally:
            drop_queue(client, url)
    for kind, groups in (("standard", 0), ("fifo1", 1), ("fifo1000", 1000)):
        url = new_queue(client, f"d-{kind}", fifo=bool(groups))
        in_queue = 0
        try:
            for depth in sorted(args.fifo_depths):
                started = time.monotonic()
                in_queue += fill(server, url, depth - in_queue, deadline=started + args.fill_budget, groups=groups)
                if in_queue < depth:
                    out[f"{kind}@{depth}"] = {"skipped": f"the fill passed {args.fill_budget:.0f} s at {in_queue:,}"}
                    break
                out[f"{kind}@{depth}"] = _receive_deletes(server, client, url, args.k, args.receive_budget)
                in_queue -= out[f"{kind}@{depth}"]["receives"]
        finally:
            drop_queue(client, url)
    return out


def _receive_deletes(server: Server, client, url: str, k: int, budget_s: float) -> dict:
    walls = []
    deadline = time.monotonic() + budget_s
    with Meter(server) as meter:
        for _ in range(k):
            started = time.perf_counter()
            messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1).get("Messages", [])
            walls.append(time.perf_counter() - started)
            if not messages:
                raise RuntimeError("a receive found no message at depth")
            client.delete_message(QueueUrl=url, ReceiptHandle=messages[0]["ReceiptHandle"])
            if time.monotonic() > deadline:
                break
    return {
        "cpu_us_per_round": meter.cpu * 1e6 / len(walls),
        "receive_wall_ms": statistics.mean(walls) * 1e3,
        "receives": len(walls),
    }
