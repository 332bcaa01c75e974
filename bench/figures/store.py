"""store: the persistence figures, the emulator in memory beside --sync off, interval and always
(run only when asked: `--only store`, about 5 minutes).

  seed      in-process engine+store, the seed's own workload (bench/figures/store_engine.py),
            and with --sync always also from 8 threads, where group commit applies,
            beside the seed's 2,633 ms / 7,764 ms
  server    throughput and server CPU per message through boto3, 1 and 8 concurrent
            clients: single SendMessage, then ReceiveMessage(10) + DeleteMessageBatch until drained
  restart   start-up time of a server whose store holds 100,000 and 1,000,000 messages
            (--restart-counts), and the store's disk bytes per message
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time

from bench.processes import EMULATOR_CMD, Meter, Server, run_program
from bench.wire import BODY, delete_entries, make_client, new_queue, per_msg, warm_up

MODES = ("memory", "off", "interval", "always")


def data_dir_options(mode: str, data_dir: str) -> str:
    return "" if mode == "memory" else f" --data-dir {data_dir} --sync {mode}"


def run(args, log_dir: str) -> dict:
    out: dict = {"seed": {}, "server": {}, "restart": {}}
    work = tempfile.mkdtemp(prefix="sqs-bench-store-")
    try:
        for mode in MODES:
            for threads in (1, 8) if mode == "always" else (1,):
                data_dir = tempfile.mkdtemp(prefix=f"seed-{mode}-", dir=work)
                label = mode + (f", {threads} threads" if threads > 1 else "")
                out["seed"][label] = run_program("bench.figures.store_engine", ["seed", mode, data_dir, str(threads)])
        for mode in MODES:
            data_dir = tempfile.mkdtemp(prefix=f"server-{mode}-", dir=work)
            server = Server(f"store-{mode}", EMULATOR_CMD + data_dir_options(mode, data_dir), log_dir)
            server.start()
            try:
                for clients in (1, 8):
                    out["server"][f"{mode}, {clients} clients"] = server_load(server, clients, args.n)
            finally:
                server.stop()
        for stored in args.restart_counts:
            data_dir = tempfile.mkdtemp(prefix=f"restart-{stored}-", dir=work)
            out["restart"][f"{stored:,} messages"] = restart(log_dir, data_dir, stored)
            shutil.rmtree(data_dir, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def server_load(server: Server, clients: int, count: int) -> dict:
    """`count` single sends spread over `clients` threads, then all of them received and
    deleted in batches by the same threads."""
    share = count // clients
    url = new_queue(make_client(server), "store")
    boto = [make_client(server) for _ in range(clients)]
    warm_up(boto[0], url)

    def send(client) -> None:
        for _ in range(share):
            client.send_message(QueueUrl=url, MessageBody=BODY)

    def receive_delete(client) -> None:
        while messages := client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
            client.delete_message_batch(QueueUrl=url, Entries=delete_entries(messages))

    out = {}
    for name, work in (("send", send), ("recv_delete", receive_delete)):
        workers = [threading.Thread(target=work, args=(client,)) for client in boto]
        with Meter(server) as meter:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        figures = per_msg(meter, share * clients)
        out[f"{name}_msgs_per_s"] = figures["msgs_per_s"]
        out[f"{name}_cpu_us"] = figures["cpu_us_per_msg"]
    return out


def restart(log_dir: str, data_dir: str, count: int) -> dict:
    size = run_program("bench.figures.store_engine", ["fill", data_dir, str(count)])["bytes"]
    server = Server(f"restart-{count}", EMULATOR_CMD + f" --data-dir {data_dir}", log_dir)
    started = time.perf_counter()
    server.start()  # returns once the port accepts connections, after recovery
    seconds = time.perf_counter() - started
    try:
        client = make_client(server)
        url = client.get_queue_url(QueueName="seed")["QueueUrl"]
        attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
        depth = int(attributes["Attributes"]["ApproximateNumberOfMessages"])
        if depth != count:
            raise AssertionError(f"restarted with {depth:,} of {count:,} messages")
        rss = server.rss_bytes()
    finally:
        server.stop()
    return {"start_s": seconds, "disk_bytes_per_msg": size / count, "rss_mb": rss / 2**20}
