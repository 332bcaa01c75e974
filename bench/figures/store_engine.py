"""The persistence figure's in-process parts (bench/figures/store.py runs them, one program each):

    python -m bench.figures.store_engine seed MODE DIR THREADS   # the seed's workload, JSON timings
    python -m bench.figures.store_engine fill DIR COUNT          # a store holding COUNT messages

The seed's workload: 10,000 pushes, then 10,000 receive+delete, one at a time, in order (from
THREADS threads when more than one), through the api layer on a broker with a store: all
but HTTP. MODE is memory (no store) or a --sync policy.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from emulator import api
from emulator.engine.broker import Broker
from emulator.engine.clock import RealClock
from emulator.server.drivers import committed_here
from emulator.store import open_store

SEED = {"push_ms": 2633, "poll_ms": 7764, "count": 10_000}  # the seed (BerkeleyDB, synced every 1,000 operations)
BODY = "x" * 200


class Engine:
    """The api layer on a broker with a store."""

    def __init__(self, mode: str, data_dir: str):
        self.store = open_store(None if mode == "memory" else data_dir, "interval" if mode == "memory" else mode)
        self.broker = Broker(RealClock(), journal=self.store)
        self.store.recover(self.broker)
        self.ctx = api.Context(
            broker=self.broker,
            account="000000000000",
            region="us-east-1",
            base_url="http://localhost",
            default_region="us-east-1",
            sender_id="000000000000",
        )
        self.url = self.call("CreateQueue", QueueName="seed")["QueueUrl"]

    def call(self, operation: str, **params) -> dict:
        result = api.dispatch(self.ctx, operation, params)
        assert isinstance(result, dict)  # no call here waits for messages
        error = committed_here(self.store)  # what the server does before it replies
        if error is not None:
            raise error
        return result

    def close(self) -> None:
        self.broker.close()
        self.store.close()


def seed_workload(mode: str, data_dir: str, threads: int) -> dict:
    engine = Engine(mode, data_dir)
    count = SEED["count"]
    share = count // threads

    def push(first: int) -> None:
        for i in range(first, first + share):
            engine.call("SendMessage", QueueUrl=engine.url, MessageBody=str(i))

    def poll(first: int) -> None:
        for i in range(first, first + share):
            message = engine.call("ReceiveMessage", QueueUrl=engine.url, MaxNumberOfMessages=1)["Messages"][0]
            if threads == 1 and message["Body"] != str(i):  # the seed checks the order too
                raise AssertionError(f"expected {i}, got {message['Body']}")
            engine.call("DeleteMessage", QueueUrl=engine.url, ReceiptHandle=message["ReceiptHandle"])

    try:
        timings = {}
        for name, work in (("push_ms", push), ("poll_ms", poll)):
            workers = [threading.Thread(target=work, args=(n * share,)) for n in range(threads)]
            started = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            timings[name] = (time.perf_counter() - started) * 1000
    finally:
        engine.close()
    return {
        **timings,
        "push_x_seed": SEED["push_ms"] / timings["push_ms"],
        "poll_x_seed": SEED["poll_ms"] / timings["poll_ms"],
    }


def fill_store(data_dir: str, count: int) -> dict:
    """A store (queue "seed") holding `count` 200-byte messages; its size on disk."""
    engine = Engine("interval", data_dir)
    try:
        for start in range(0, count, 10):
            entries = [{"Id": str(i), "MessageBody": BODY} for i in range(min(10, count - start))]
            engine.call("SendMessageBatch", QueueUrl=engine.url, Entries=entries)
    finally:
        engine.close()
    return {"bytes": sum(os.path.getsize(os.path.join(data_dir, name)) for name in os.listdir(data_dir))}


def main() -> None:
    command, *rest = sys.argv[1:]
    if command == "seed":
        mode, data_dir, threads = rest
        print(json.dumps(seed_workload(mode, data_dir, int(threads))))
    else:
        data_dir, count = rest
        print(json.dumps(fill_store(data_dir, int(count))))


if __name__ == "__main__":
    main()
