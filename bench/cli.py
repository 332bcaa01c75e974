"""`python -m bench`: its options, and one run from the figures without a server to the verdicts.

Usage:
  python -m bench                          # every figure but the persistence ones
  python -m bench --quick                  # a few minutes: smaller, see --help
  python -m bench --baseline /tmp/base     # another checkout measured beside this one
  python -m bench --only saturation        # the saturation phases alone (wrk)
  python -m bench --only latency           # one client, one call after another: raw and boto3
  python -m bench --only store             # persistence: seed, server, restart, ~5 min
  python -m bench --only store_app         # the app in process: memory, --sync interval, always
  python -m bench --only store_kill --kill-rounds 1   # what a SIGKILL under load loses
  python -m bench --targets moto,moto      # self-check of the harness
  python -m bench --json out.json --only send,batch_send
"""

from __future__ import annotations

import argparse
import functools
import os
import tempfile
import time
from pathlib import Path

from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError

from bench import harness, report, targets, thresholds
from bench.figures import (
    batch_send,
    depth,
    fifo,
    latency,
    long_poll,
    memory,
    recv_delete,
    rss_drain,
    rss_heartbeat,
    saturation,
    send,
    store,
    store_kill,
)
from bench.processes import EMULATOR_CMD, FAUXQS_CMD, THIS, Checkout, Server, allow_descriptors, run_program
from bench.results import Results
from bench.wire import make_client

LOCAL = ("inprocess", "engine", "tracemalloc", "local_depth")
ONE_CLIENT = {
    "send": send,
    "batch_send": batch_send,
    "recv_delete": recv_delete,
    "depth": depth,
    "long_poll": long_poll,
    "memory": memory,
    "fifo": fifo,
    "rss_drain": rss_drain,
    "rss_heartbeat": rss_heartbeat,
}
FRESH = (*latency.FIGURES, *saturation.FIGURES)  # each round on targets started for it
EVERY = (*LOCAL, *ONE_CLIENT, *FRESH)
PERSISTENCE = ("store", "store_app", "store_kill")  # run only when asked
GROUPS = {"latency": latency.FIGURES, "saturation": saturation.FIGURES}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="The SQS emulator's performance figures, side by side with other servers, and the verdicts "
        "of the targets in bench/thresholds.toml (docs/performance.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Usage:" + (__doc__ or "").split("Usage:")[1],
    )
    p.add_argument(
        "--targets", default="emulator,floor,fauxqs", help=f"servers compared, A, B, ...: {', '.join(targets.CHOICES)}"
    )
    p.add_argument(
        "--baseline",
        metavar="TREE",
        help="a second checkout (git worktree add /tmp/base <commit>), "
        "measured beside this one: in-process rounds alternated, and as the target `baseline`",
    )
    p.add_argument(
        "--only",
        help=f"comma-separated figures: {', '.join(EVERY + PERSISTENCE)}, or the groups {', '.join(GROUPS)}",
    )
    p.add_argument("--json", metavar="PATH", help="also write everything, every round, as JSON")
    p.add_argument("--quick", action="store_true", help="smaller everywhere (the defaults in parentheses below)")
    p.add_argument("--emulator-cmd", default=EMULATOR_CMD, help="{python} and {port} are filled in")
    p.add_argument("--fauxqs-cmd", default=FAUXQS_CMD, help="(npm install fauxqs in /tmp/fauxqs)")
    sizes = p.add_argument_group("sizes (quick)")
    sizes.add_argument("-n", type=int, help="single SendMessage calls (2000; 300)")
    sizes.add_argument("--batch-n", type=int, help="messages of the batch and recv+delete figures (5 x -n)")
    sizes.add_argument("-k", type=int, help="receives timed at each server depth (1000; 200)")
    sizes.add_argument("-m", type=int, help="messages of the server memory figure (50000; 5000)")
    sizes.add_argument("--depths", help="server depths (1000,10000,100000,1000000; 1000,10000)")
    sizes.add_argument("--fifo-depths", help="the FIFO figure's depths (--depths up to 100,000)")
    sizes.add_argument("--local-depths", help="in-process depths (1000,10000,100000,1000000; to 100000)")
    sizes.add_argument("--rounds", type=int, help="send+receive+delete rounds at each in-process depth (3000; 1000)")
    sizes.add_argument("--tracemalloc-n", type=int, help="messages of the tracemalloc figure (20000; 5000)")
    sizes.add_argument("--drain-count", type=int, help="messages of the rss_drain scenario (200000; 20000)")
    sizes.add_argument("--heartbeats", type=int, help="ChangeMessageVisibility calls of rss_heartbeat (100000; 10000)")
    sizes.add_argument("--polls", type=int, help="long-poll wake samples (100; 20)")
    sizes.add_argument("--repeat", type=int, help="alternated rounds of send, batch_send, recv_delete (4; 1)")
    stored = p.add_argument_group("persistence: store, store_app, store_kill (quick)")
    stored.add_argument(
        "--restart-counts", default="100000,1000000", help="stored messages of the store's restart figure"
    )
    stored.add_argument("--app-n", type=int, help="store_app: messages a phase (20000; 5000)")
    stored.add_argument("--app-rounds", type=int, help="store_app: rounds, the modes alternated (3; 1)")
    stored.add_argument(
        "--app-threads",
        type=int,
        default=32,
        help="store_app: callers of sendN, batchN; requests in flight of sendA, batchA (32)",
    )
    stored.add_argument("--kill-rounds", type=int, help="store_kill: kills under each --sync policy (3; 1)")
    stored.add_argument(
        "--kill-acknowledged", type=int, help="store_kill: sends acknowledged before each kill (2000; 500)"
    )
    lat = p.add_argument_group("latency: one client, each target fresh each round (quick)")
    lat.add_argument("--latency-n", type=int, help="timed calls of each latency figure, a round (2000; 200)")
    lat.add_argument("--latency-rounds", type=int, help="rounds, the targets alternated (4; 2)")
    budgets = p.add_argument_group("budgets in seconds (quick)")
    budgets.add_argument("--phase-budget", type=float, help="a send / batch / recv+delete loop (30; 15)")
    budgets.add_argument("--fill-budget", type=float, help="a depth's fill, or the depth is skipped (120; 30)")
    budgets.add_argument("--receive-budget", type=float, help="the timed receives at one depth (60; 10)")
    budgets.add_argument("--memory-budget", type=float, help="the memory figure's fill (60; 15)")
    pyperf = p.add_argument_group("in-process figures on pyperf (bench/harness.py; quick)")
    pyperf.add_argument("--inprocess-rounds", type=int, help="pyperf runs per checkout, alternated (3; 1)")
    pyperf.add_argument("--pyperf-processes", type=int, help="worker processes per run (1)")
    pyperf.add_argument("--pyperf-values", type=int, default=3, help="values per worker (3)")
    pyperf.add_argument("--pyperf-warmups", type=int, default=1, help="warm-up values per worker, dropped (1)")
    pyperf.add_argument("--pyperf-loops", type=int, default=0, help="operations per value; 0: calibrated (0)")
    sat = p.add_argument_group("saturation (wrk; quick)")
    sat.add_argument("--phase-seconds", type=int, help="seconds of each measured run (8; 2)")
    sat.add_argument("--drain-seconds", type=int, default=3, help="seconds of each drain run (3)")
    sat.add_argument("--saturation-rounds", type=int, default=2, help="rounds, the targets alternated (2)")
    sat.add_argument("--saturation-warmup", type=int, default=1, help="seconds of warm-up before each run (1)")
    sat.add_argument("--drain-depth", type=int, help="the drain's queue depth at each run's start (300000; 30000)")
    sat.add_argument("--polls-held", type=int, default=2000, help="long polls waiting during saturation_send_polls")
    sat.add_argument(
        "--sync-policies",
        default="interval,always",
        help=f"--data-dir targets of send and batch ({', '.join(targets.SYNC_POLICIES)}; '' for none)",
    )
    args = p.parse_args(argv)
    _sizes(args)
    names = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not names or any(t not in targets.CHOICES for t in names):
        p.error(f"--targets takes one or more of: {', '.join(targets.CHOICES)}")
    args.labels = targets.labels(names, bool(args.baseline))
    if args.only:
        args.only = {name.strip() for name in args.only.split(",") if name.strip()}
        unknown = args.only - set(EVERY + PERSISTENCE) - set(GROUPS)
        if unknown:
            p.error(
                f"--only: unknown {', '.join(sorted(unknown))}; "
                f"choose from {', '.join(EVERY + PERSISTENCE)}, {', '.join(GROUPS)}"
            )
        args.only |= {figure for group in args.only & set(GROUPS) for figure in GROUPS[group]}
    args.sync_policies = [s for s in args.sync_policies.split(",") if s.strip()]
    if set(args.sync_policies) - set(targets.SYNC_POLICIES):
        p.error(f"--sync-policies takes {', '.join(targets.SYNC_POLICIES)}")
    return args


def _ints(text: str) -> list[int]:
    return [int(d) for d in text.split(",") if d.strip()]


def _sizes(args: argparse.Namespace) -> None:
    """Fill in every size the user left out, smaller with --quick."""
    quick = args.quick

    def pick(value, full, small):
        return value if value is not None else (small if quick else full)

    args.n = pick(args.n, 2000, 300)
    args.batch_n = pick(args.batch_n, 5 * args.n, 5 * args.n)
    args.k = pick(args.k, 1000, 200)
    args.m = pick(args.m, 50_000, 5_000)
    args.polls = pick(args.polls, 100, 20)
    args.repeat = pick(args.repeat, 4, 1)  # two rounds' ratios swung by up to 1.3x
    args.rounds = pick(args.rounds, 3000, 1000)
    args.tracemalloc_n = pick(args.tracemalloc_n, 20_000, 5_000)
    args.drain_count = pick(args.drain_count, 200_000, 20_000)
    args.heartbeats = pick(args.heartbeats, 100_000, 10_000)
    args.depths = _ints(pick(args.depths, "1000,10000,100000,1000000", "1000,10000"))
    args.fifo_depths = _ints(args.fifo_depths) if args.fifo_depths else [d for d in args.depths if d <= 100_000]
    args.local_depths = _ints(pick(args.local_depths, "1000,10000,100000,1000000", "1000,10000,100000"))
    args.restart_counts = _ints(args.restart_counts)
    args.app_n = pick(args.app_n, 20_000, 5_000)
    args.app_rounds = pick(args.app_rounds, 3, 1)
    args.kill_rounds = pick(args.kill_rounds, 3, 1)
    args.kill_acknowledged = pick(args.kill_acknowledged, 2000, 500)
    args.phase_budget = pick(args.phase_budget, 30.0, 15.0)
    args.fill_budget = pick(args.fill_budget, 120.0, 30.0)
    args.receive_budget = pick(args.receive_budget, 60.0, 10.0)
    args.memory_budget = pick(args.memory_budget, 60.0, 15.0)
    args.inprocess_rounds = pick(args.inprocess_rounds, 3, 1)
    args.pyperf_processes = pick(args.pyperf_processes, 1, 1)
    args.phase_seconds = pick(args.phase_seconds, 8, 2)
    args.latency_n = pick(args.latency_n, 2000, 200)
    args.latency_rounds = pick(args.latency_rounds, 4, 2)
    args.drain_depth = pick(args.drain_depth, 300_000, 30_000)


def chosen(args, figure: str) -> bool:
    return figure in args.only if args.only else figure in EVERY


def run_local(args, results: Results) -> None:
    """The figures without a server, each in interpreters of its own (bench/harness.py, run_program)."""
    rounds = harness.Rounds(
        args.inprocess_rounds, args.pyperf_processes, args.pyperf_values, args.pyperf_warmups, args.pyperf_loops
    )
    checkouts = measured_checkouts(args)

    def inprocess() -> dict[str, dict]:
        measured = harness.alternated("bench.figures.inprocess", checkouts, rounds)
        return {
            label: {f"{name}_us": s["median_s"] * 1e6 for name, s in b.items()} | {"pyperf": b}
            for label, b in measured.items()
        }

    def engine() -> dict[str, dict]:
        measured = harness.alternated("bench.figures.engine", {"emulator": THIS}, rounds)["emulator"]
        per_s = {
            "triples_per_s_batch10": 1 / measured["triple_batch10"]["median_s"],
            "triples_per_s_single": 1 / measured["triple_single"]["median_s"],
            "queue_Queue_put_get_per_s": 1 / measured["queue_Queue_put_get"]["median_s"],
        }
        return {"emulator": per_s | {"pyperf": measured}}

    def traced() -> dict[str, dict]:
        return {"emulator": run_program("bench.figures.traced_memory", ["-n", str(args.tracemalloc_n)])}

    def local_depth() -> dict[str, dict]:
        depths = ",".join(map(str, args.local_depths))
        out = run_program("bench.figures.local_depth", ["--depths", depths, "--rounds", str(args.rounds)])
        return {"emulator": out | {"largest_depth": max(args.local_depths)}}

    for name, work in (
        ("inprocess", inprocess),
        ("engine", engine),
        ("tracemalloc", traced),
        ("local_depth", local_depth),
    ):
        if not chosen(args, name):
            continue
        started = time.monotonic()
        try:
            measured = work()
        except Exception as e:
            measured = {"emulator": {"error": f"{type(e).__name__}: {e}"}}
        for label, value in measured.items():
            results.add(name, label, value)
            print(f"  {name:<14} {label:<10} {time.monotonic() - started:6.1f} s  {brief(value)[:300]}", flush=True)


def measured_checkouts(args) -> dict[str, Checkout]:
    return {"emulator": THIS} | ({"baseline": Checkout(Path(args.baseline).resolve())} if args.baseline else {})


def run_persistence(args, log_dir: str, results: Results) -> None:
    """The persistence figures asked for, in order; a figure's error is its result."""
    figures = {
        "store": lambda: {"emulator": store.run(args, log_dir)},
        "store_app": lambda: store.run_app(args, measured_checkouts(args)),
        "store_kill": lambda: {"emulator": store_kill.run(args, log_dir)},
    }
    for name, work in figures.items():
        if not (args.only and name in args.only):
            continue
        print(f"{name}:", flush=True)
        try:
            measured = work()
        except Exception as e:  # what the other figures measured is still reported
            measured = {"emulator": {"error": f"{type(e).__name__}: {e}"}}
        for label, value in measured.items():
            results.add(name, label, value)


def run_one_client(name: str, servers: list[Server], clients: dict, args, results: Results) -> None:
    """One figure on every server that can answer it, in order (A, B, ...). A server that timed
    out or dropped a connection is marked down; its later figures are errors without running."""
    module = ONE_CLIENT[name]
    for server in servers:
        if module.WHO == "storing" and not targets.can(server.label, "stores"):
            continue
        if module.WHO == "emulators" and not targets.can(server.label, "emulator"):
            continue
        started = time.monotonic()
        if server.down_reason:
            value = {"error": f"not run: {server.down_reason}"}
        else:
            try:
                value = module.run(server, clients[server.label], args)
                if module.RESTARTS:  # a new port: a new client
                    clients[server.label] = make_client(server)
            except (ReadTimeoutError, EndpointConnectionError, ConnectionClosedError) as e:
                server.down_reason = f"stopped answering in {name}: {type(e).__name__}"
                value = {"error": f"{type(e).__name__}: {e}"}
            except Exception as e:  # the figure's error is its cell; the others still run
                value = {"error": f"{type(e).__name__}: {e}"}
        results.add(name, server.label, value)
        print(f"  {name:<14} {server.label:<10} {time.monotonic() - started:6.1f} s  {brief(value)}", flush=True)


def brief(value) -> str:
    if not isinstance(value, dict):
        return ""
    if "error" in value:
        return "ERROR " + str(value["error"])[:200]
    parts = []
    for k, v in value.items():
        if k in ("pyperf", "by_line"):
            continue
        if isinstance(v, dict):
            parts.append(f"{k}:{{{brief(v)}}}")
        elif isinstance(v, float):
            parts.append(f"{k}={v:.3g}")
        else:
            parts.append(f"{k}={v}")
    return " ".join(parts)


def main(argv=None) -> int:
    args = parse_args(argv)
    checks = thresholds.load()  # a broken thresholds file fails before ten minutes of measuring
    log_dir = tempfile.mkdtemp(prefix="sqs-bench-")
    results = Results()
    load_before = os.getloadavg()
    started = time.monotonic()
    allow_descriptors(args.polls_held * 2 + 1024)  # before any server starts: they inherit the limit
    args.servers_ran = any(chosen(args, name) for name in ONE_CLIENT)
    record = functools.partial(_fresh_done, results)
    code = 0
    try:
        run_local(args, results)
        if args.servers_ran:
            run_servers(args, log_dir, results)
        if any(chosen(args, name) for name in latency.FIGURES):
            latency.run(args.labels, args, log_dir, args.only, record)
        if any(chosen(args, name) for name in saturation.FIGURES):
            saturation.run(args.labels, args, log_dir, args.only, record)
        run_persistence(args, log_dir, results)
    except KeyboardInterrupt:
        print("interrupted; printing what was measured", flush=True)
    except RuntimeError as e:
        print(f"error: {e}", flush=True)
        code = 2
    load_after = os.getloadavg()
    elapsed = time.monotonic() - started
    header = (
        f"Finished in {elapsed:.0f} s; load average (1, 5, 15 min) {_loads(load_before)} before, "
        f"{_loads(load_after)} after, on {os.cpu_count()} CPUs. Ratios: {args.labels[0]} / each other target; "
        "server CPU from psutil (10 ms ticks); in-process CPU from the process clock, medians of pyperf's values."
    )
    verdicts = thresholds.judge(checks, results)
    text = report.render(results, args.labels, verdicts, args, header)
    print("\n" + text)
    if args.json:
        extra = {"elapsed_s": elapsed, "load_average": {"before": load_before, "after": load_after}, "text": text}
        report.write_json(args.json, results, args.labels, verdicts, args, extra)
        print(f"\nwrote {args.json}")
    return code


def run_servers(args, log_dir: str, results: Results) -> None:
    """The one-client figures, on servers started once for all of them and stopped after."""
    servers = [targets.server(label, log_dir, args) for label in args.labels]
    try:
        for server in servers:
            server.start()
            print(f"started {server.label} on port {server.port} (pid {server.pid}), log {server.log_path}", flush=True)
        clients = {server.label: make_client(server) for server in servers}
        for name, module in ONE_CLIENT.items():
            if chosen(args, name):
                for _ in range(args.repeat if module.REPEATED else 1):
                    run_one_client(name, servers, clients, args, results)
    finally:
        for server in servers:
            server.stop()


def _fresh_done(results: Results, figure: str, label: str, value: dict) -> None:
    results.add(figure, label, value)
    print(f"  {figure:<22} {label:<18} {brief(value)[:200]}", flush=True)


def _loads(loads: tuple[float, float, float]) -> str:
    return ", ".join(f"{load:.2f}" for load in loads)
