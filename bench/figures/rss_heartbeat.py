"""rss_heartbeat (issue 17): on a fresh server, one message received, then H
ChangeMessageVisibility calls on it (VisibilityTimeout 600) and a delete: RSS after, beside before."""

from __future__ import annotations

import time
import uuid

from bench.processes import Server
from bench.wire import MEMORY_BODY, Wire, in_threads

REPEATED, WHO, RESTARTS = False, "emulators", True


def run(server: Server, client, args) -> dict:
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
