"""rss_drain (issue 17): on a fresh server, M messages sent, each received with
VisibilityTimeout 600 and deleted, then the queue deleted: RSS after, beside before."""

from __future__ import annotations

import time
import uuid

from bench.processes import Server
from bench.wire import MEMORY_BODY, Wire, drain_wire, fill, in_threads

REPEATED, WHO, RESTARTS = False, "emulators", True


def run(server: Server, client, args) -> dict:
    server.restart()
    wire = Wire(server)
    try:
        url = wire.call("CreateQueue", {"QueueName": f"bench-drain-{uuid.uuid4().hex[:8]}"})["QueueUrl"]
        fill(server, url, 100, body=MEMORY_BODY)
        in_threads(server, 100, lambda w, share, i: drain_wire(w, url))  # warm: first allocations out
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
