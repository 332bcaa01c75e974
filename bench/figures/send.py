"""send: N single SendMessage calls from one boto3 client; server CPU per message."""

from __future__ import annotations

import time

from bench.processes import Meter, Server
from bench.wire import BODY, drop_queue, new_queue, per_msg, warm_up, within_budget

REPEATED, WHO, RESTARTS = True, "all", False


def run(server: Server, client, args) -> dict:
    url = new_queue(client, "send")
    try:
        warm_up(client, url)
        sent = 0
        deadline = time.monotonic() + args.phase_budget
        with Meter(server) as meter:
            while sent < args.n and time.monotonic() < deadline:
                client.send_message(QueueUrl=url, MessageBody=BODY)
                sent += 1
        return within_budget(per_msg(meter, sent), sent, args.n, args.phase_budget, "sends")
    finally:
        drop_queue(client, url)
