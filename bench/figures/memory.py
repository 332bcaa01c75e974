"""memory: a freshly started server's RSS growth per queued 256-byte message."""

from __future__ import annotations

import time

from bench.processes import Server
from bench.wire import MEMORY_BODY, drop_queue, fill, make_client, new_queue, warm_up, within_budget

REPEATED, WHO, RESTARTS = False, "storing", True


def run(server: Server, client, args) -> dict:
    server.restart()
    client = make_client(server)
    url = new_queue(client, "mem")
    try:
        warm_up(client, url)
        fill(server, url, 100, body=MEMORY_BODY)  # first allocations of the data structures
        time.sleep(0.2)
        rss0 = server.rss_bytes()
        started = time.monotonic()
        sent = fill(server, url, args.m, deadline=started + args.memory_budget, body=MEMORY_BODY)
        time.sleep(0.2)
        rss1 = server.rss_bytes()
        out: dict = {
            "bytes_per_msg": (rss1 - rss0) / sent if sent else None,
            "messages": sent,
            "rss_before_mb": rss0 / 2**20,
            "rss_after_mb": rss1 / 2**20,
            "fill_s": time.monotonic() - started,
        }
        return within_budget(out, sent, args.m, args.memory_budget, "the fill")
    finally:
        drop_queue(client, url)
