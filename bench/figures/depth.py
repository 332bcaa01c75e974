"""depth: server CPU and wall time of one ReceiveMessage at growing depths of one queue, filled
step by step over raw HTTP. A depth is skipped when filling it would take longer than
--fill-budget (predicted from the fill rate so far, or seen when the fill runs past it)."""

from __future__ import annotations

import statistics
import time

from bench.processes import Meter, Server
from bench.stats import growth, percentile
from bench.wire import drop_queue, fill, new_queue, warm_up

REPEATED, WHO, RESTARTS = False, "storing", False
JUDGED = ("cpu_us_per_recv", "wall_ms_p99")  # the figures whose growth with depth is judged


def run(server: Server, client, args) -> dict:
    """{depth: result, f"{figure}_growth": the largest depth's over the smallest's, "largest_depth"}."""
    url = new_queue(client, "depth")
    results: dict = {}
    in_queue = 0
    fill_rate = None  # messages/s seen so far
    try:
        warm_up(client, url)
        for depth in sorted(args.depths):
            need = depth - in_queue
            if fill_rate and need / fill_rate > args.fill_budget:
                results[depth] = {
                    "skipped": f"filling {need:,} more at {fill_rate:,.0f}/s would take ~{need / fill_rate:.0f} s "
                    f"> the {args.fill_budget:.0f} s budget"
                }
                break
            started = time.monotonic()
            in_queue += fill(server, url, need, deadline=started + args.fill_budget)
            fill_s = time.monotonic() - started
            fill_rate = need / fill_s if fill_s > 0 else None
            if in_queue < depth:
                results[depth] = {"skipped": f"the fill passed {args.fill_budget:.0f} s at {in_queue:,} of {depth:,}"}
                break
            results[depth] = time_receives(server, client, url, args.k, args.receive_budget)
            results[depth]["fill_s"] = fill_s
        measured = {d: r for d, r in results.items() if "skipped" not in r}
        results["largest_depth"] = max(measured, default=0)
        for figure in JUDGED:
            results[f"{figure}_growth"] = growth({d: r[figure] for d, r in measured.items()})
        return results
    finally:
        drop_queue(client, url)


def time_receives(server: Server, client, url: str, k: int, budget_s: float) -> dict:
    """K receives of one message each; they stay in flight (a long visibility timeout), so
    each call must find a fresh visible message."""
    walls = []
    deadline = time.monotonic() + budget_s
    with Meter(server) as meter:
        for _ in range(k):
            started = time.perf_counter()
            answer = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1, VisibilityTimeout=3600)
            walls.append(time.perf_counter() - started)
            if not answer.get("Messages"):
                raise RuntimeError("a receive found no message at depth")
            if time.monotonic() > deadline:
                break
    out: dict = {
        "cpu_us_per_recv": meter.cpu * 1e6 / len(walls),
        "wall_ms_per_recv": statistics.mean(walls) * 1e3,
        "wall_ms_p50": statistics.median(walls) * 1e3,
        "wall_ms_p99": percentile(walls, 0.99) * 1e3,
        "receives": len(walls),
        "server_cpu_s": meter.cpu,
    }
    if len(walls) < k:
        out["note"] = f"only {len(walls)} of {k} receives within the {budget_s:.0f} s budget"
    return out
