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
  4. app       the WSGI app called in process (no HTTP; issue 32 item 6): messages/s
               and process CPU (the writer thread's included) per message, in
               memory vs --sync interval vs always, rounds alternated, each phase
               on a fresh emulator and timed until close() has written everything:
               SendMessage and SendMessageBatch(10) from one caller (send1,
               batch1), from --threads threads (sendN, batchN), and --threads
               requests in flight on one thread that waits with
               Store.when_durable, as an event loop's entry would (sendA, batchA)

The in-process figure runs alone, and can be profiled (the request thread with
cProfile; every thread with `py-spy record -f raw -o out -- python
scripts/bench_store.py --app --only interval:send1`):

  python scripts/bench_store.py --app [-n 20000] [--rounds 3] [--threads 16]
  python scripts/bench_store.py --app --only interval:send1 --profile tottime

  5. kill      (--kill N) a server under load SIGKILLed N times under each of
               --sync always and interval, started again, and what came back
               counted against what the clients were told
"""

from __future__ import annotations

import os
import queue
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


# -- 4. the app in process --------------------------------------------------------

APP_MODES = ("memory", "interval", "always")
# phase -> (operation, messages per call, concurrent callers): one caller in a loop,
# and the concurrent callers of a loaded server, where --sync always groups commits.
APP_PHASES = {
    "send1": ("SendMessage", 1, 1),
    "batch1": ("SendMessageBatch", 10, 1),
    "sendN": ("SendMessage", 1, None),
    "batchN": ("SendMessageBatch", 10, None),
    "sendA": ("SendMessage", 1, 0),
    "batchA": ("SendMessageBatch", 10, 0),
}
# Callers 0: an event loop's entry (issue 32): one thread keeps --threads requests in
# flight, each answered when Store.when_durable says (at once unless --sync always).


def app_phase(mode: str, phase: str, n: int, threads: int, profile: str | None = None) -> dict:
    """`n` messages sent through the WSGI app of a fresh emulator (on a fresh data dir
    unless in memory); timed from the first call until close() has written them all."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_inprocess import BODY as APP_BODY
    from bench_inprocess import HOST, Client

    from emulator.server.build import Options, build

    operation, per_call, callers = APP_PHASES[phase]
    in_flight = threads if callers == 0 else 0  # an event loop's entry: one thread, `threads` requests
    callers = threads if callers is None else max(callers, 1)
    data_dir = None if mode == "memory" else tempfile.mkdtemp(prefix=f"app-{mode}-")
    emulator = build(Options(data_dir=data_dir, sync="interval" if mode == "memory" else mode), listen=False)
    client = Client(emulator.app, "json")
    client.call("CreateQueue", {"QueueName": "app"})
    url = f"http://{HOST}/000000000000/app"
    if per_call == 1:
        params = {"QueueUrl": url, "MessageBody": APP_BODY}
    else:
        params = {"QueueUrl": url, "Entries": [{"Id": str(i), "MessageBody": APP_BODY} for i in range(per_call)]}
    calls = n // per_call // callers
    start = threading.Barrier(callers + 1)
    request_cpu: list[float] = []  # each caller's own CPU: the rest of the process's is the writer's

    def caller() -> None:
        start.wait()
        started = time.thread_time()
        if profiler is not None:
            profiler.enable()
        if in_flight:
            loop(calls)
        else:
            for _ in range(calls):
                client.call(operation, params)
        if profiler is not None:
            profiler.disable()
        request_cpu.append(time.thread_time() - started)

    def loop(calls: int) -> None:
        """What an event loop does with `in_flight` connections: the next request of a
        connection once its reply may go, which a commit tells from the writer's thread."""
        store = emulator.store
        store.durable = lambda: None  # the entry waits with when_durable instead
        ready: queue.SimpleQueue = queue.SimpleQueue()
        for connection in range(in_flight):
            ready.put(connection)
        for _ in range(calls):
            connection = ready.get()
            client.call(operation, params)
            if not store.when_durable(lambda error, c=connection: ready.put(c)):
                ready.put(connection)
        for _ in range(in_flight):  # every reply told
            ready.get()

    profiler = None
    if profile:  # of a caller's thread: the request's path
        import cProfile

        if callers > 1:
            raise SystemExit("--profile takes a phase of one caller")
        profiler = cProfile.Profile(time.thread_time)
    workers = [threading.Thread(target=caller) for _ in range(callers)]
    for worker in workers:
        worker.start()
    cpu, wall = time.process_time(), time.perf_counter()
    start.wait()
    for worker in workers:
        worker.join()
    answered = time.perf_counter()
    emulator.close()  # the writer has caught up: everything sent is written
    cpu, wall, answered = time.process_time() - cpu, time.perf_counter() - wall, answered - wall
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats(profile).print_stats(30)
    if data_dir is not None:
        shutil.rmtree(data_dir, ignore_errors=True)
    sent = calls * callers * per_call
    return {
        "msgs_per_s": sent / wall,
        "cpu_us": cpu / sent * 1e6,
        "request_us": sum(request_cpu) / sent * 1e6,  # the callers' threads
        "other_us": (cpu - sum(request_cpu)) / sent * 1e6,  # the writer's (and the scheduler's)
        "answered_s": answered,
        "wall_s": wall,
    }


def run_app(n: int, rounds: int, threads: int) -> dict:
    """Every phase in every mode, modes alternated within each round; prints each
    round's figures with the ratio to memory, then the medians."""
    import statistics

    results: dict = {(mode, phase): [] for mode in APP_MODES for phase in APP_PHASES}
    for round_ in range(rounds):
        for phase in APP_PHASES:
            for mode in APP_MODES:
                results[mode, phase].append(app_phase(mode, phase, n, threads))
            base = results["memory", phase][-1]
            print(
                f"round {round_ + 1} {phase:<7}"
                + "".join(
                    f"  {mode} {results[mode, phase][-1]['msgs_per_s']:7.0f}/s "
                    f"{results[mode, phase][-1]['cpu_us']:5.1f} us "
                    f"[{results[mode, phase][-1]['request_us']:.0f}+{results[mode, phase][-1]['other_us']:.0f}] "
                    f"({results[mode, phase][-1]['msgs_per_s'] / base['msgs_per_s']:.2f}x)"
                    for mode in APP_MODES
                ),
                flush=True,
            )
    medians: dict = {}
    print(f"medians of {rounds} rounds, {n:,} messages a phase, {threads} callers (N) or requests in flight (A):")
    for phase in APP_PHASES:
        memory = statistics.median(r["msgs_per_s"] for r in results["memory", phase])
        cells = []
        for mode in APP_MODES:
            rate = statistics.median(r["msgs_per_s"] for r in results[mode, phase])
            ratio = statistics.median(
                r["msgs_per_s"] / m["msgs_per_s"]
                for r, m in zip(results[mode, phase], results["memory", phase], strict=True)
            )
            cpu = statistics.median(r["cpu_us"] for r in results[mode, phase])
            medians[f"{mode}_{phase}"] = {"msgs_per_s": rate, "x_memory": ratio, "cpu_us": cpu}
            cells.append(f"{mode} {rate:7.0f}/s {cpu:5.1f} us ({ratio:.2f}x)")
        print(f"  {phase:<7} " + "  ".join(cells), f"  [memory {memory:.0f}/s]", flush=True)
    return medians


# -- 5. SIGKILL under load ------------------------------------------------------------


def kill_counts(rounds: int, acknowledged: int) -> None:
    """Kill a server under the crash test's load (compat_tests/test_persistence_crash.py:
    4 clients sending batches of 5, receiving and deleting) once `acknowledged` sends
    were acknowledged, start it again and count what came back, `rounds` times a policy."""
    from pathlib import Path

    from compat_tests.test_persistence_crash import INTERVAL_MARGIN, INTERVAL_MS, _drain, _run_and_kill

    for sync in ("always", "interval"):
        options = ("--sync", sync) + (("--sync-interval-ms", str(INTERVAL_MS)) if sync == "interval" else ())
        for round_ in range(rounds):
            data_dir = tempfile.mkdtemp(prefix=f"kill-{sync}-")
            emulator, url, load, killed_at = _run_and_kill(
                Path(data_dir), options, True, lambda load: len(load.sent) >= acknowledged and load.deleted
            )
            try:
                left = _drain(emulator, url)
            finally:
                emulator.stop()
                shutil.rmtree(data_dir, ignore_errors=True)
            settled = killed_at - INTERVAL_MARGIN  # acknowledged before the window (and a commit's time)
            lost = load.sent.keys() - load.deleting - left
            resurrected = load.deleted.keys() & left
            print(
                f"  {sync:<8} kill {round_ + 1}: {len(load.sent):,} sends and {len(load.deleted):,} deletes "
                f"acknowledged, {len(left):,} messages came back; lost {len(lost)} sends "
                f"({sum(load.sent[m] < settled for m in lost)} acknowledged before the last "
                f"{INTERVAL_MARGIN:.1f} s), resurrected {len(resurrected)} deletes "
                f"({sum(load.deleted[m] < settled for m in resurrected)} before it); acknowledged in "
                f"that last stretch: {sum(t >= settled for t in load.sent.values())} sends",
                flush=True,
            )


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", action="store_true", help="the in-process figure (4) only")
    parser.add_argument("--kill", type=int, metavar="N", help="SIGKILL a loaded server N times a policy (5)")
    parser.add_argument("--acknowledged", type=int, default=2000, help="with --kill: sends acknowledged before it")
    parser.add_argument("-n", type=int, default=20_000, help="messages a phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=int,
        default=32,
        help="concurrent callers in sendN and batchN, requests in flight in sendA and batchA",
    )
    parser.add_argument("--only", help="one MODE:PHASE, run once (for a profiler)")
    parser.add_argument(
        "--profile", choices=("tottime", "cumtime"), help="with --only: cProfile the request thread (its CPU time)"
    )
    args = parser.parse_args()
    if args.kill:
        kill_counts(args.kill, args.acknowledged)
        return 0
    if not args.app:
        parser.error("run the other figures through scripts/bench.py --store")
    if args.only:
        mode, phase = args.only.split(":")
        print(app_phase(mode, phase, args.n, args.threads, args.profile))
    else:
        run_app(args.n, args.rounds, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
