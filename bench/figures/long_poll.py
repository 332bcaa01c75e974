"""long_poll: a thread blocks in ReceiveMessage(WaitTimeSeconds=10); the main thread sends
0.1 s later. The wake latency is the receive's return minus the send's return: it can be
below 0 when the poller's answer is parsed before the sender's, so it is also given from
the start of the send call."""

from __future__ import annotations

import statistics
import threading
import time

from bench.processes import Server
from bench.wire import BODY, drop_queue, make_client, new_queue, warm_up

REPEATED, WHO, RESTARTS = False, "storing", False


def run(server: Server, client, args) -> dict:
    url = new_queue(client, "poll")
    poller = make_client(server)
    latencies, from_start, misses = [], [], 0
    try:
        warm_up(client, url)
        warm_up(poller, url)
        for _ in range(args.polls):
            box: dict = {}
            thread = threading.Thread(target=_wait_for_message, args=(poller, url, box), daemon=True)
            thread.start()
            time.sleep(0.1)
            send_start = time.perf_counter()
            client.send_message(QueueUrl=url, MessageBody=BODY)
            sent_at = time.perf_counter()
            thread.join(timeout=15)
            if thread.is_alive() or not box.get("messages"):
                misses += 1
                _drain(client, url)
                continue
            latencies.append((box["at"] - sent_at) * 1e3)
            from_start.append((box["at"] - send_start) * 1e3)
            client.delete_message(QueueUrl=url, ReceiptHandle=box["messages"][0]["ReceiptHandle"])
        out: dict = {"misses": misses, "samples": len(latencies)}
        if latencies:
            out["median_ms"] = statistics.median(latencies)
            out["p99_ms"] = (
                statistics.quantiles(latencies, n=100, method="inclusive")[98] if len(latencies) > 1 else latencies[0]
            )
            out["max_ms"] = max(latencies)
            out["median_ms_from_send_start"] = statistics.median(from_start)
        return out
    finally:
        drop_queue(client, url)


def _wait_for_message(poller, url: str, box: dict) -> None:
    try:
        answer = poller.receive_message(QueueUrl=url, WaitTimeSeconds=10, MaxNumberOfMessages=1)
        box["at"] = time.perf_counter()
        box["messages"] = answer.get("Messages", [])
    except Exception as e:  # counted as a miss
        box["error"] = repr(e)


def _drain(client, url: str) -> None:
    for _ in range(10):
        messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return
        for message in messages:
            client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
