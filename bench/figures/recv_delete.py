"""recv_delete: a queue filled over raw HTTP, then ReceiveMessage(10) + DeleteMessageBatch from
one boto3 client until it is drained; server CPU per message."""

from __future__ import annotations

import time

from bench.processes import Meter, Server
from bench.wire import delete_entries, drop_queue, fill, new_queue, per_msg, warm_up

REPEATED, WHO, RESTARTS = True, "storing", False


def run(server: Server, client, args) -> dict:
    url = new_queue(client, "recv")
    try:
        warm_up(client, url)
        filled = fill(server, url, args.batch_n, deadline=time.monotonic() + args.phase_budget)
        received = empty_in_a_row = 0
        deadline = time.monotonic() + args.phase_budget
        with Meter(server) as meter:
            for _ in range(filled // 10 * 3 + 50):  # bounded even if the server misbehaves
                if time.monotonic() > deadline or empty_in_a_row >= 3:
                    break
                messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=300).get(
                    "Messages", []
                )
                if not messages:
                    empty_in_a_row += 1
                    continue
                empty_in_a_row = 0
                client.delete_message_batch(QueueUrl=url, Entries=delete_entries(messages))
                received += len(messages)
        out = per_msg(meter, received)
        if received != args.batch_n:
            out["note"] = (
                f"filled {filled:,} of {args.batch_n:,} ({args.phase_budget:.0f} s budget), drained {received:,}"
            )
        return out
    finally:
        drop_queue(client, url)
