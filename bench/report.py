"""What a run prints and writes: the one-client table (the targets side by side, with the first
one's ratio to each other), the saturation table, the in-process figures, the persistence
figures (store, store_app, store_kill), and every target's verdict; with --json, all of it
and every round."""

from __future__ import annotations

import json

from bench.figures.saturation import FIGURES as SATURATION
from bench.figures.store import APP_MODES, APP_PHASES
from bench.figures.store_kill import POLICIES, describe
from bench.results import Results, dig
from bench.thresholds import COMPARISONS, Verdict

# The in-process figures: (results key, title).
INPROCESS = (
    ("send_us", "SendMessage"),
    ("batch_per_msg_us", "per message in SendMessageBatch(10)"),
    ("recv_del_per_msg_us", "per message in ReceiveMessage(10)+DeleteMessageBatch(10)"),
)
ENGINE = (
    ("triples_per_s_batch10", "engine triples per CPU second, batches of 10"),
    ("triples_per_s_single", "engine triples per CPU second, one at a time"),
    ("queue_Queue_put_get_per_s", "queue.Queue put+get per CPU second"),
)
BUSY_CORES = 0.25  # the rest of the machine's CPU during a run above which the run is noted
DEPTH_KEYS = ("receive_cpu_us", "receive_cpu_mean_us", "p99_cpu_us", "p50_us", "p99_us", "full_collections")
KINDS = ("standard", "fifo1", "fifo1000")


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.2f}"


def ratio(a, b) -> str:
    numbers = isinstance(a, int | float) and isinstance(b, int | float)
    return f"{a / b:.3g}x" if numbers and a >= 0 and b > 0 else "-"  # no ratio of a negative latency


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)), "-+-".join("-" * w for w in widths)]
    for r in rows:
        lines.append(" | ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]))
    return "\n".join(lines)


def lines(title: str, pairs: list[tuple[str, str]]) -> str:
    width = max((len(a) for a, _ in pairs), default=0)
    return "\n".join([title, "-" * len(title), *(f"{a.ljust(width)}  {b}" for a, b in pairs)])


def _cell(results: Results, figure: str, label: str, key: str):
    runs = results.runs(figure, label)
    if not runs:
        return "not run"
    if all("error" in r for r in runs):
        return "error"
    parent = key.rpartition(".")[0]  # a depth's result, which may say it was skipped
    if parent and any("skipped" in (dig(r, parent) or {}) for r in runs):
        return "skipped"
    return results.mean(figure, label, key)


def one_client_rows(args) -> list[tuple[str, str, str, str]]:
    """(title, figure, key, better) of the one-client table."""
    rows = [
        (f"send: msgs/s (N={args.n})", "send", "msgs_per_s", "higher"),
        ("send: server CPU us/msg", "send", "cpu_us_per_msg", "lower"),
        ("batch send: msgs/s", "batch_send", "msgs_per_s", "higher"),
        ("batch send: server CPU us/msg", "batch_send", "cpu_us_per_msg", "lower"),
        ("recv+delete batch: msgs/s", "recv_delete", "msgs_per_s", "higher"),
        ("recv+delete batch: server CPU us/msg", "recv_delete", "cpu_us_per_msg", "lower"),
    ]
    for d in sorted(args.depths):
        rows.append((f"receive @ depth {d:,}: server CPU us", "depth", f"{d}.cpu_us_per_recv", "lower"))
        rows.append((f"receive @ depth {d:,}: wall ms", "depth", f"{d}.wall_ms_per_recv", "lower"))
        rows.append((f"receive @ depth {d:,}: wall p99 ms", "depth", f"{d}.wall_ms_p99", "lower"))
    rows += [
        ("long poll wake: median ms", "long_poll", "median_ms", "lower"),
        ("long poll wake: p99 ms", "long_poll", "p99_ms", "lower"),
        ("long poll wake: max ms", "long_poll", "max_ms", "lower"),
        ("long poll wake: median ms from send start", "long_poll", "median_ms_from_send_start", "lower"),
        (f"memory: RSS bytes per 256-byte msg (M={args.m:,})", "memory", "bytes_per_msg", "lower"),
        (f"drain {args.drain_count:,}, delete queue: RSS growth MiB", "rss_drain", "growth_mib", "lower"),
        (f"{args.heartbeats:,} ChangeMessageVisibility: RSS growth MiB", "rss_heartbeat", "growth_mib", "lower"),
    ]
    for kind in ("standard", "fifo"):
        rows.append((f"{kind}: batch send server CPU us/msg", "fifo", f"{kind}_send_cpu_us", "lower"))
        rows.append((f"{kind}: recv+delete server CPU us/msg", "fifo", f"{kind}_recv_delete_cpu_us", "lower"))
    for kind, title in (("standard", "standard"), ("fifo1", "fifo, 1 group"), ("fifo1000", "fifo, 1,000 groups")):
        for d in sorted(args.fifo_depths):
            rows.append(
                (
                    f"{title} @ depth {d:,}: receive+delete server CPU us",
                    "fifo",
                    f"{kind}@{d}.cpu_us_per_round",
                    "lower",
                )
            )
    return rows


LATENCY_ROWS = (
    ("one connection, raw SendMessage: wall p50 us", "latency_raw", "send_p50_us"),
    ("one connection, raw SendMessage: wall p99 us", "latency_raw", "send_p99_us"),
    ("one connection, raw SendMessage: server CPU us/request", "latency_raw", "send_cpu_us"),
    ("boto3 SendMessage: wall p50 ms/call", "latency_boto3", "send_p50_ms"),
    ("boto3 SendMessage: wall p99 ms/call", "latency_boto3", "send_p99_ms"),
    ("boto3 SendMessage: server CPU us/call", "latency_boto3", "send_cpu_us"),
    ("boto3 ReceiveMessage+DeleteMessage: wall p50 ms/message", "latency_boto3", "recv_delete_p50_ms"),
    ("boto3 ReceiveMessage+DeleteMessage: wall p99 ms/message", "latency_boto3", "recv_delete_p99_ms"),
    ("boto3 ReceiveMessage+DeleteMessage: server CPU us/message", "latency_boto3", "recv_delete_cpu_us"),
    ("the rest of the machine meanwhile: CPU cores (raw)", "latency_raw", "other_cores"),
    ("the rest of the machine meanwhile: CPU cores (boto3 sends)", "latency_boto3", "other_cores"),
)


def latency_table(results: Results, labels: list[str], args) -> str:
    rows = [(title, figure, key, "lower") for title, figure, key in LATENCY_ROWS]
    title = f"One client, each target fresh each round (mean of {args.latency_rounds} alternated rounds)"
    return side_by_side(results, labels, rows, title)


def one_client_table(results: Results, labels: list[str], args) -> str:
    return side_by_side(results, labels, one_client_rows(args), "figure")


def side_by_side(results: Results, labels: list[str], chosen_rows, title: str) -> str:
    """The targets' figures side by side, and the first target's ratio to each other."""
    header = [title, *labels, *(f"{labels[0]}/{other}" for other in labels[1:]), "better"]
    rows = []
    for row_title, figure, key, better in chosen_rows:
        cells = [_cell(results, figure, label, key) for label in labels]
        if all(cell == "not run" for cell in cells):
            continue
        rows.append([row_title, *(fmt(c) for c in cells), *(ratio(cells[0], other) for other in cells[1:]), better])
    return table(header, rows) if rows else ""


def saturation_table(results: Results) -> str:
    """msgs/s (mean of the rounds, their range) and server CPU per message, per phase and target."""
    labels = results.labels(SATURATION)
    rows = []
    for figure in SATURATION:
        if figure not in results.rounds:
            continue
        name = figure[len("saturation_") :]
        rate, cpu = [f"{name}: msgs/s"], [f"{name}: server CPU us/msg"]
        for label in labels:
            mean, spread = results.mean(figure, label, "msgs_per_s"), results.spread(figure, label, "msgs_per_s")
            if spread and spread[0] != spread[1]:
                rate.append(f"{fmt(mean)} ({fmt(spread[0])}-{fmt(spread[1])})")
            else:
                rate.append(fmt(_cell(results, figure, label, "msgs_per_s")))
            cpu.append(fmt(_cell(results, figure, label, "cpu_us_per_msg")))
        others = [f"{name}: the rest of the machine, CPU cores"]
        others += [fmt(results.mean(figure, label, "other_cores")) for label in labels]
        rows += [rate, cpu, others]
        if figure == "saturation_send_polls":
            rows.append(
                [
                    f"{name}: server threads, polls waiting",
                    *(fmt(results.mean(figure, label, "server_threads")) for label in labels),
                ]
            )
    return table(["saturation (mean of rounds, their range)", *labels], rows) if rows else ""


def inprocess_lines(results: Results, args) -> list[tuple[str, str]]:
    out = []
    for wire in ("json", "query") if results.runs("inprocess", "emulator") else ():
        for key, title in INPROCESS:
            out.append((f"app {wire}: CPU us {title}", fmt(results.value(f"inprocess/emulator/{wire}_{key}"))))
            if args.baseline:
                out.append((f"    baseline {args.baseline}", fmt(results.value(f"inprocess/baseline/{wire}_{key}"))))
    if results.runs("engine", "emulator"):
        out += [(title, fmt(results.value(f"engine/emulator/{key}"))) for key, title in ENGINE]
    memory = (results.runs("tracemalloc", "emulator") or [{}])[0]
    if memory:
        title = f"tracemalloc bytes per queued 256-byte message (N={args.tracemalloc_n:,})"
        out.append((title, fmt(memory.get("bytes_per_msg"))))
    for row in memory.get("by_line", [])[:5]:
        out.append((f"    {row['where']}", f"{row['bytes_per_msg']:.1f} B"))
    low = min(args.local_depths, default=0)
    steps = [(f"{d:,}", str(d)) for d in args.local_depths] + [(f"{low:,} again", f"{low}#again")]
    for kind in KINDS:
        for shown, key in steps:
            title = f"{kind} @ {shown}: receive CPU median/mean us, request p99 CPU us, p50/p99 wall us, full GCs"
            values = [results.value(f"local_depth/emulator/{kind}@{key}.{k}") for k in DEPTH_KEYS]
            if any(v is not None for v in values):
                out.append((title, " / ".join(fmt(v) for v in values)))
    return out


def store_lines(results: Results) -> list[tuple[str, str]]:
    store = (results.runs("store", "emulator") or [{}])[0]
    out = []
    for label, f in store.get("seed", {}).items():
        out.append(
            (
                f"seed workload, {label}",
                f"push {f['push_ms']:.0f} ms ({f['push_x_seed']:.1f}x the seed), "
                f"receive+delete {f['poll_ms']:.0f} ms ({f['poll_x_seed']:.1f}x the seed)",
            )
        )
    for label, f in store.get("server", {}).items():
        out.append(
            (
                f"server {label}",
                f"send {fmt(f['send_msgs_per_s'])}/s {fmt(f['send_cpu_us'])} us CPU/msg, "
                f"recv+delete {fmt(f['recv_delete_msgs_per_s'])}/s {fmt(f['recv_delete_cpu_us'])} us CPU/msg",
            )
        )
    for label, f in store.get("restart", {}).items():
        out.append(
            (
                f"restart with {label}",
                f"started in {f['start_s']:.2f} s, {f['disk_bytes_per_msg']:.0f} disk "
                f"bytes/msg, RSS {f['rss_mb']:.0f} MB",
            )
        )
    return out


def store_app_section(results: Results) -> str:
    """Per phase (and checkout): each mode's median rate, CPU per message and ratio to memory."""
    per_label = {label: runs[0] for label, runs in results.rounds.get("store_app", {}).items()}
    measured = {label: value for label, value in per_label.items() if "error" not in value}  # errors: the notes
    if not measured:
        return ""
    pairs = []
    for label, value in measured.items():
        for phase in APP_PHASES:
            cells = []
            for mode in APP_MODES:
                f = value[f"{mode}_{phase}"]
                shown = (
                    "error"
                    if "error" in f
                    else f"{f['msgs_per_s']:7.0f}/s {f['cpu_us']:5.1f} us ({fmt(f['x_memory'])}x)"
                )
                cells.append(f"{mode} {shown}")
            pairs.append((phase + (f" {label}" if len(per_label) > 1 else ""), "  ".join(cells)))
    sizes = next(iter(measured.values()))
    title = (
        f"Persistence: the app in process (--only store_app), medians of {sizes['rounds']} round(s), "
        f"{sizes['messages']:,} messages a phase, {sizes['threads']} callers (N) or requests in flight (A)"
    )
    return lines(title, pairs)


def store_kill_lines(results: Results) -> list[tuple[str, str]]:
    value = (results.runs("store_kill", "emulator") or [{}])[0]
    out = []
    for sync in POLICIES:
        for number, kill in enumerate(value.get(sync, {}).get("kills", []), 1):
            head, _, rest = describe(sync, number, kill, value["margin_s"]).partition(": ")
            out.append((head, rest))
    return out


def verdict_lines(verdicts: list[Verdict]) -> list[tuple[str, str]]:
    out = []
    for v in verdicts:
        t = v.threshold
        shown = "-" if v.figure is None else f"{fmt(v.figure)}{t.unit}"
        out.append(
            (
                f"[{t.issue}] {t.says}",
                f"{shown}  target {COMPARISONS[t.comparison]} {fmt(t.limit)}{t.unit}: {v.verdict}",
            )
        )
    return out


def notes(results: Results) -> list[str]:
    """Every note, skip and error a figure left, with where it came from."""
    out = []

    def walk(figure: str, label: str, value, where: str = "") -> None:
        if not isinstance(value, dict):
            return
        for key in ("skipped", "note", "error"):
            if key in value:
                out.append(f"{figure}{where} [{label}]: {key}: {value[key]}")
        for k, v in value.items():
            if isinstance(v, dict):
                walk(figure, label, v, f" @ {k:,}" if isinstance(k, int) else f" {k}")

    for figure, per_label in results.rounds.items():
        for label, runs in per_label.items():
            for run in runs:
                walk(figure, label, run)
            busy = [run["other_cores"] for run in runs if run.get("other_cores", 0) > BUSY_CORES]
            if busy:
                out.append(
                    f"{figure} [{label}]: beside other work in {len(busy)} of {len(runs)} runs (up to {max(busy):.2f} cores)"
                )
    return out


def render(results: Results, labels: list[str], verdicts: list[Verdict], args, header: str) -> str:
    parts = [header]
    if args.servers_ran:
        parts.append(one_client_table(results, labels, args))
    parts.append(latency_table(results, labels, args))
    parts.append(saturation_table(results))
    inprocess = inprocess_lines(results, args)
    if any(value != "-" for _, value in inprocess):
        parts.append(lines("In-process (no HTTP; CPU per operation)", inprocess))
    if results.runs("store", "emulator"):
        parts.append(lines("Persistence (--only store)", store_lines(results)))
    parts.append(store_app_section(results))
    if results.runs("store_kill", "emulator"):
        parts.append(lines("Persistence: SIGKILL under load (--only store_kill)", store_kill_lines(results)))
    found = notes(results)
    if found:
        parts.append("Notes:\n" + "\n".join(f"  - {n}" for n in found))
    # A target whose figure this run did not measure at all (left out by --only) is counted, not listed.
    shown = [v for v in verdicts if v.verdict != "not measured" or v.threshold.value.split("/")[0] in results.rounds]
    title = "Targets (bench/thresholds.toml)"
    if len(shown) < len(verdicts):
        title += f"; {len(verdicts) - len(shown)} more whose figures this run left out"
    parts.append(lines(title, verdict_lines(shown)))
    return "\n\n".join(part for part in parts if part)


def write_json(path: str, results: Results, labels: list[str], verdicts: list[Verdict], args, extra: dict) -> None:
    with open(path, "w") as f:
        json.dump(
            {
                "targets": labels,
                "options": {k: sorted(v) if isinstance(v, set) else v for k, v in vars(args).items() if k != "json"},
                **extra,
                "results": results.as_json(),
                "verdicts": [
                    {
                        "issue": v.threshold.issue,
                        "target": v.threshold.says,
                        "figure": v.figure,
                        "limit": f"{COMPARISONS[v.threshold.comparison]} {v.threshold.limit:g}{v.threshold.unit}",
                        "verdict": v.verdict,
                    }
                    for v in verdicts
                ],
            },
            f,
            indent=2,
        )
