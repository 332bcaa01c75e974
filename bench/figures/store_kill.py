"""store_kill: what a SIGKILL under load costs (run only when asked: `--only store_kill`).

A server on a fresh data dir, under the crash test's load (compat_tests/crash_load.py: 4 boto3
clients sending batches of 5, receiving 4 and deleting 3), is SIGKILLed once --kill-acknowledged
sends and a delete were acknowledged, started again on the same data dir, its manual clock moved
past every visibility timeout, and drained; what came back is counted against what the clients
were told: acknowledged sends lost (those whose delete was asked for are not counted) and
acknowledged deletes resurrected, each also among those acknowledged before the last
INTERVAL_MARGIN seconds (the interval window and one commit's time). --kill-rounds kills under
each of --sync always and interval (every INTERVAL_MS).
"""

from __future__ import annotations

import shutil
import tempfile
import time

from bench.processes import EMULATOR_CMD, Server
from bench.wire import advance_clock, make_client
from compat_tests.crash_load import INTERVAL_MARGIN, INTERVAL_MS, WORKERS, Load, drain

POLICIES = ("always", "interval")


def run(args, log_dir: str) -> dict:
    out: dict = {"acknowledged": args.kill_acknowledged, "margin_s": INTERVAL_MARGIN}
    for sync in POLICIES:
        kills = []
        for number in range(1, args.kill_rounds + 1):
            kills.append(kill_once(sync, args.kill_acknowledged, log_dir))
            print("  " + describe(sync, number, kills[-1], INTERVAL_MARGIN), flush=True)
        out[sync] = {"kills": kills, "lost": sum(k["lost"] for k in kills)}
        out[sync]["resurrected"] = sum(k["resurrected"] for k in kills)
    return out


def kill_once(sync: str, acknowledged: int, log_dir: str) -> dict:
    data_dir = tempfile.mkdtemp(prefix=f"sqs-bench-kill-{sync}-")
    options = f" --clock manual --data-dir {data_dir} --sync {sync}"
    if sync == "interval":
        options += f" --sync-interval-ms {INTERVAL_MS}"
    server = Server(f"kill-{sync}", EMULATOR_CMD + options, log_dir)
    server.start()
    try:
        url = make_client(server).create_queue(QueueName="load", Attributes={"VisibilityTimeout": "3600"})["QueueUrl"]
        clients = iter([make_client(server) for _ in range(WORKERS)])  # made here: boto3.client is not thread-safe
        load = Load(lambda: next(clients), url, receive=True).start()
        load.wait_until(lambda load: len(load.sent) >= acknowledged and bool(load.deleted))
        killed_at = time.monotonic()
        server.kill()
        load.join()
        server.start()  # on a port of its own: the queue's URL is asked again
        advance_clock(server, 7200)  # every message still there is visible again
        client = make_client(server)
        try:
            left = drain(client, client.get_queue_url(QueueName="load")["QueueUrl"])
        except client.exceptions.QueueDoesNotExist:
            left = set()  # under --sync interval the queue too was made within the last interval
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    settled = killed_at - INTERVAL_MARGIN  # acknowledged before the window (and a commit's time)
    lost = load.sent.keys() - load.deleting - left
    resurrected = load.deleted.keys() & left
    return {
        "sends": len(load.sent),
        "deletes": len(load.deleted),
        "came_back": len(left),
        "lost": len(lost),
        "lost_before_margin": sum(load.sent[m] < settled for m in lost),
        "resurrected": len(resurrected),
        "resurrected_before_margin": sum(load.deleted[m] < settled for m in resurrected),
        "sends_in_margin": sum(t >= settled for t in load.sent.values()),
    }


def describe(sync: str, number: int, kill: dict, margin_s: float) -> str:
    return (
        f"{sync:<8} kill {number}: {kill['sends']:,} sends and {kill['deletes']:,} deletes acknowledged, "
        f"{kill['came_back']:,} messages came back; lost {kill['lost']} sends ({kill['lost_before_margin']} "
        f"acknowledged before the last {margin_s:.1f} s), resurrected {kill['resurrected']} deletes "
        f"({kill['resurrected_before_margin']} before it); acknowledged in that last stretch: "
        f"{kill['sends_in_margin']} sends"
    )
