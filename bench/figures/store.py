"""store: the persistence figures, the emulator in memory beside --sync off, interval and always
(run only when asked: `--only store`, about 5 minutes).

  seed      in-process engine+store, the seed's own workload (bench/figures/store_engine.py),
            and with --sync always also from 8 threads, where group commit applies,
            beside the seed's 2,633 ms / 7,764 ms
  server    throughput and server CPU per message through boto3, 1 and 8 concurrent
            clients: single SendMessage, then ReceiveMessage(10) + DeleteMessageBatch until drained
  restart   start-up time of a server whose store holds 100,000 and 1,000,000 messages
            (--restart-counts), and the store's disk bytes per message

store_app (`--only store_app`): the WSGI app called in process (no HTTP; issue 32 item 6),
messages per second and process CPU per message (the store's writer thread included) in
memory, --sync interval and always, each phase on a fresh emulator in an interpreter of its
own (bench/figures/store_app.py), rounds alternated (and checkouts, with --baseline).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time

from bench.processes import EMULATOR_CMD, Checkout, Meter, Server, run_program
from bench.wire import BODY, delete_entries, make_client, new_queue, per_msg, warm_up

MODES = ("memory", "off", "interval", "always")
APP_MODES = ("memory", "interval", "always")
# phase -> (operation, messages per call, concurrent callers): one caller in a loop, and the
# concurrent callers of a loaded server, where --sync always groups commits (None: --app-threads).
# Callers 0: an event loop's entry (issue 32): one thread keeps --app-threads requests in flight,
# each answered when Store.when_durable says (at once unless --sync always).
APP_PHASES = {
    "send1": ("SendMessage", 1, 1),
    "batch1": ("SendMessageBatch", 10, 1),
    "sendN": ("SendMessage", 1, None),
    "batchN": ("SendMessageBatch", 10, None),
    "sendA": ("SendMessage", 1, 0),
    "batchA": ("SendMessageBatch", 10, 0),
}
APP_KEYS = ("msgs_per_s", "cpu_us", "request_us", "other_us")


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


def run_app(args, checkouts: dict[str, Checkout]) -> dict[str, dict]:
    """Every phase in every mode (and checkout), the modes alternated within each round; prints
    each round's figures with the ratio to memory. Per checkout and `{mode}_{phase}`: the medians
    of the rounds (x_memory: of each round's ratio to memory's rate), with every round's figures."""
    runs: dict[tuple[str, str, str], list[dict]] = {}
    for number in range(1, args.app_rounds + 1):
        for phase in APP_PHASES:
            for label, checkout in checkouts.items():
                for mode in APP_MODES:
                    argv = [mode, phase, "-n", str(args.app_n), "--threads", str(args.app_threads)]
                    try:
                        measured = run_program("bench.figures.store_app", argv, checkout)
                    except RuntimeError as e:  # a checkout without this phase's API: the others still run
                        measured = {"error": str(e)}
                    runs.setdefault((label, mode, phase), []).append(measured)
                shown = f" {label}" if len(checkouts) > 1 else ""
                cells = [(mode, runs[label, mode, phase][-1], runs[label, "memory", phase][-1]) for mode in APP_MODES]
                print(f"round {number} {phase:<7}{shown}" + "".join(f"  {app_cell(*c)}" for c in cells), flush=True)
    out: dict[str, dict] = {}
    for label in checkouts:
        out[label] = {"messages": args.app_n, "rounds": args.app_rounds, "threads": args.app_threads}
        for phase in APP_PHASES:
            for mode in APP_MODES:
                out[label][f"{mode}_{phase}"] = app_medians(runs[label, mode, phase], runs[label, "memory", phase])
    return out


def app_cell(mode: str, run: dict, memory: dict) -> str:
    """One mode's figures in a round: rate, CPU per message [callers' + writer's], ratio to memory."""
    if "error" in run:
        return f"{mode} error"
    ratio = run["msgs_per_s"] / memory["msgs_per_s"] if "error" not in memory else None
    return (
        f"{mode} {run['msgs_per_s']:7.0f}/s {run['cpu_us']:5.1f} us [{run['request_us']:.0f}+{run['other_us']:.0f}]"
        + (f" ({ratio:.2f}x)" if ratio is not None else "")
    )


def app_medians(runs: list[dict], memory: list[dict]) -> dict:
    """The medians of one mode's rounds; `memory` the same rounds in memory."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return {"error": runs[0]["error"], "runs": runs}
    out = {key: statistics.median(r[key] for r in good) for key in APP_KEYS}
    pairs = [(r, m) for r, m in zip(runs, memory, strict=True) if "error" not in r and "error" not in m]
    ratios = [r["msgs_per_s"] / m["msgs_per_s"] for r, m in pairs]
    out["x_memory"] = statistics.median(ratios) if ratios else None
    if len(good) < len(runs):
        out["note"] = (
            f"{len(runs) - len(good)} of {len(runs)} rounds failed: {next(r for r in runs if 'error' in r)['error']}"
        )
    return out | {"runs": runs}
