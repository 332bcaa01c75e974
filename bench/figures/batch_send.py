"""batch_send: messages in SendMessageBatch calls of 10 from one boto3 client; server CPU per message."""

from __future__ import annotations

import time

from bench.processes import Meter, Server
from bench.wire import drop_queue, new_queue, per_msg, send_batches, warm_up, within_budget

REPEATED, WHO, RESTARTS = True, "all", False


def run(server: Server, client, args) -> dict:
    url = new_queue(client, "batch")
    try:
        warm_up(client, url)
        with Meter(server) as meter:
            sent = send_batches(client, url, args.batch_n, deadline=time.monotonic() + args.phase_budget)
        return within_budget(per_msg(meter, sent), sent, args.batch_n, args.phase_budget, "batch sends")
    finally:
        drop_queue(client, url)
