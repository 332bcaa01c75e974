"""The persistence figures of scripts/bench.py (run with `python scripts/bench.py --store`).

In one run, side by side: the emulator in memory, and on a data dir with
--sync off, interval and always.

  1. seed      in-process engine+store, the seed's own workload: 10,000 pushes,
               then 10,000 receive+delete, one at a time, in order (and with
               --sync always also from 8 threads, where group commit applies),
               beside the seed's 2,633 ms / 7,764 ms
  2. server    throughput and server CPU per message through boto3, 1 and 8
               concurrent clients: single SendMessage, then ReceiveMessage(10)
               + DeleteMessageBatch until drained
  3. restart   start-up time of a server whose store holds 100,000 and
               1,000,000 messages, and the store's disk bytes per message
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from emulator import api
from emulator.engine.broker import Broker
from emulator.engine.clock import RealClock
from emulator.store import open_store

SEED = {"push_ms": 2633, "poll_ms": 7764, "count": 10_000}
MODES = ("memory", "off", "interval", "always")
BODY = "x" * 200


def _options(mode: str, data_dir: str) -> str:
    return "" if mode == "memory" else f"--data-dir {data_dir} --sync {mode}"


# -- 1. the seed's workload, in process -----------------------------------------


class Engine:
    """The api layer on a broker with a store: everything but HTTP."""

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
        self.store.durable()  # what the server does before it replies
        return result

    def close(self) -> None:
        self.broker.close()
        self.store.close()


def seed_workload(mode: str, data_dir: str, threads: int = 1) -> dict:
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


# -- 2. through the server --------------------------------------------------------


def server_load(bench, server, clients: int, count: int) -> dict:
    """`count` single sends spread over `clients` threads, then all of them received
    and deleted in batches by the same threads."""
    share = count // clients
    url = bench.new_queue(bench.make_client(server), "store")
    boto = [bench.make_client(server) for _ in range(clients)]
    bench.warm_up(boto[0], url)

    def send(client) -> None:
        for _ in range(share):
            client.send_message(QueueUrl=url, MessageBody=BODY)

    def receive_delete(client) -> None:
        while True:
            messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
            if not messages:
                return
            client.delete_message_batch(
                QueueUrl=url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)],
            )

    out = {}
    for name, work in (("send", send), ("recv_delete", receive_delete)):
        workers = [threading.Thread(target=work, args=(client,)) for client in boto]
        with bench.Meter(server) as meter:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        figures = bench.per_msg(meter, share * clients)
        out[f"{name}_msgs_per_s"] = figures["msgs_per_s"]
        out[f"{name}_cpu_us"] = figures["cpu_us_per_msg"]
    bench.drop_queue(boto[0], url)
    return out


# -- 3. restart ---------------------------------------------------------------------


def fill_store(data_dir: str, count: int) -> int:
    """A store holding `count` 200-byte messages; returns its size in bytes."""
    engine = Engine("interval", data_dir)
    try:
        for start in range(0, count, 10):
            engine.call(
                "SendMessageBatch",
                QueueUrl=engine.url,
                Entries=[{"Id": str(i), "MessageBody": BODY} for i in range(min(10, count - start))],
            )
    finally:
        engine.close()
    return sum(os.path.getsize(os.path.join(data_dir, name)) for name in os.listdir(data_dir))


def restart(bench, log_dir: str, data_dir: str, count: int) -> dict:
    size = fill_store(data_dir, count)
    server = bench.Server(f"restart-{count}", bench.EMULATOR_CMD + f" --data-dir {data_dir}", log_dir)
    started = time.perf_counter()
    server.start()  # returns once the port accepts connections, after recovery
    seconds = time.perf_counter() - started
    try:
        client = bench.make_client(server)
        url = client.get_queue_url(QueueName="seed")["QueueUrl"]
        depth = int(
            client.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"][
                "ApproximateNumberOfMessages"
            ]
        )
        if depth != count:
            raise AssertionError(f"restarted with {depth:,} of {count:,} messages")
        rss = server.rss_bytes()
    finally:
        server.stop()
    return {"start_s": seconds, "disk_bytes_per_msg": size / count, "rss_mb": rss / 2**20}


# -- the run ------------------------------------------------------------------------


def run(bench, args) -> int:
    log_dir = tempfile.mkdtemp(prefix="sqs-bench-store-")
    count = args.n
    rows = []
    try:
        print(f"1. seed workload in process ({SEED['count']:,} pushes, then receive+delete)", flush=True)
        for mode in MODES:
            for threads in (1, 8) if mode == "always" else (1,):
                data_dir = tempfile.mkdtemp(prefix=f"seed-{mode}-", dir=log_dir)
                figures = seed_workload(mode, data_dir, threads)
                label = f"{mode}" + (f", {threads} threads" if threads > 1 else "")
                rows.append(("seed", label, figures))
                print(
                    f"  {label:<20} push {figures['push_ms']:7.0f} ms ({figures['push_x_seed']:.1f}x the seed)"
                    f"   receive+delete {figures['poll_ms']:7.0f} ms ({figures['poll_x_seed']:.1f}x the seed)",
                    flush=True,
                )
        print(
            f"  seed (BerkeleyDB, synced every 1,000 operations): push {SEED['push_ms']} ms, poll {SEED['poll_ms']} ms",
            flush=True,
        )

        print(f"2. through the server: {count:,} single sends, then receive(10)+delete batches", flush=True)
        for mode in MODES:
            data_dir = tempfile.mkdtemp(prefix=f"server-{mode}-", dir=log_dir)
            server = bench.Server(mode, bench.EMULATOR_CMD + " " + _options(mode, data_dir), log_dir)
            server.start()
            try:
                for clients in (1, 8):
                    figures = server_load(bench, server, clients, count)
                    rows.append(("server", f"{mode}, {clients} clients", figures))
                    print(
                        f"  {mode:<9} {clients} clients: send {figures['send_msgs_per_s']:6.0f}/s "
                        f"{figures['send_cpu_us']:5.0f} us CPU/msg   recv+delete "
                        f"{figures['recv_delete_msgs_per_s']:6.0f}/s {figures['recv_delete_cpu_us']:5.0f} us "
                        f"CPU/msg",
                        flush=True,
                    )
            finally:
                server.stop()

        print("3. restart with a full store", flush=True)
        for stored in args.restart_counts:
            data_dir = tempfile.mkdtemp(prefix=f"restart-{stored}-", dir=log_dir)
            figures = restart(bench, log_dir, data_dir, stored)
            rows.append(("restart", f"{stored:,} messages", figures))
            print(
                f"  {stored:>9,} messages: started in {figures['start_s']:.2f} s, "
                f"{figures['disk_bytes_per_msg']:.0f} disk bytes/msg, RSS {figures['rss_mb']:.0f} MB",
                flush=True,
            )
            shutil.rmtree(data_dir, ignore_errors=True)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    if args.json:
        import json

        with open(args.json, "w") as file:
            json.dump([{"figure": f, "case": c, **v} for f, c, v in rows], file, indent=2)
    return 0
