"""saturation (issue 32): messages per second when the server is the bottleneck, and the
server's CPU per message beside it. Debian's wrk, one thread, 32 keep-alive connections,
a Lua script per phase (bench/wrk/), JSON protocol unless said, 256-byte messages:

  saturation_send        SendMessage
  saturation_batch       SendMessageBatch of 10
  saturation_drain       a queue 300,000 deep (--drain-depth): ReceiveMessage of 10, then
                         DeleteMessageBatch of the receipt handles that came, for --drain-seconds
  saturation_query_send  SendMessage in the query protocol (form in, XML out)
  saturation_send_polls  SendMessage while 2,000 long polls wait on another queue (bench/pollers.py);
                         the server's threads while they wait beside it

send and batch also run on this checkout's emulator with --data-dir under each --sync policy
(targets emulator-interval and emulator-always). Each phase runs its rounds with the targets
alternated (A, B, A, B); each run is on a server started for it (a fresh data dir for the
--data-dir targets) and stopped after, so no run inherits another's queues, heap or
connections; it has a warm-up of its own on the same queue first, and waits until the server
is idle. Messages are counted by the script (answered requests, or deleted
receipt handles); for servers that keep them, the queue's depth after a send run is checked
against that count (`stored`).
"""

from __future__ import annotations

import functools
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from bench import targets
from bench.processes import Helper, Meter, Server, on_fresh, run_wrk, settle
from bench.wire import Wire, fill

BODY_BYTES = 256
CONNECTIONS = 32
IN_FLIGHT_SLACK = CONNECTIONS * 10  # messages a run's last requests may store after wrk stops counting


@dataclass(frozen=True)
class Phase:
    figure: str
    script: str
    takes: Callable[[str], bool]  # which target labels run it
    seconds: str = "phase_seconds"  # the option that sets how long a run lasts
    deep: bool = False  # the drain: its queue filled to --drain-depth before the run
    polls: bool = False  # long polls held on another queue during the run


def _stores_in_memory(label: str) -> bool:
    return targets.can(label, "stores") and not targets.on_disk(label)


PHASES = (
    Phase("saturation_send", "send.lua", lambda label: True),
    Phase("saturation_batch", "batch.lua", lambda label: True),
    Phase("saturation_drain", "drain.lua", _stores_in_memory, seconds="drain_seconds", deep=True),
    Phase(
        "saturation_query_send",
        "query_send.lua",
        lambda label: targets.can(label, "query") and not targets.on_disk(label),
    ),
    Phase("saturation_send_polls", "send.lua", _stores_in_memory, polls=True),
)
FIGURES = tuple(phase.figure for phase in PHASES)


def run(labels: list[str], args, log_dir: str, only: set[str] | None, record) -> None:
    """Every chosen phase on every target that takes it, `args.saturation_rounds` rounds
    alternated, each run on a target started for it (and a fresh data dir for the --data-dir
    targets) and stopped after; `record(figure, label, result)` is called after each run."""
    phases = [p for p in PHASES if not only or p.figure in only]
    everyone = labels + [f"emulator-{policy}" for policy in args.sync_policies]
    for phase in phases:
        measure_phase = functools.partial(measure, phase, args=args)
        for _ in range(args.saturation_rounds):
            for label in (label for label in everyone if phase.takes(label)):
                with tempfile.TemporaryDirectory(prefix="sqs-bench-saturation-") as data:
                    record(phase.figure, label, on_fresh(_server(label, data, log_dir, args), measure_phase))


def _server(label: str, data: str, log_dir: str, args) -> Server:
    """The target a label names; an --data-dir one on `data`, a directory of its own."""
    if targets.on_disk(label):
        return targets.with_data_dir(label[len("emulator-") :], data, log_dir, args)
    return targets.server(label, log_dir, args)


def measure(phase: Phase, server: Server, args) -> dict:
    wire = Wire(server)
    try:
        url = wire.call("CreateQueue", {"QueueName": _name(phase.figure)})["QueueUrl"]
        script_args = [url, str(BODY_BYTES)]
        out: dict = {}
        if args.saturation_warmup:
            if phase.deep:  # the warm-up drains messages too, so every path it times is warm
                _top_up(server, wire, url, args.drain_depth)
            warm = run_wrk(phase.script, server.endpoint, args.saturation_warmup, CONNECTIONS, script_args)
            out["warm_up_messages"] = warm["messages"]
        if phase.deep:
            out["depth"] = _top_up(server, wire, url, args.drain_depth)
        stores = targets.can(server.label, "stores") and not phase.deep
        settle([server])  # the warm-up's last requests done before the depth is read
        before = wire.depth(url) if stores else 0
        helper = _hold_polls(server, wire, args) if phase.polls else None
        try:
            settle([server])
            with Meter(server) as meter:
                report = run_wrk(phase.script, server.endpoint, getattr(args, phase.seconds), CONNECTIONS, script_args)
            if helper is not None:
                out["polls"] = helper.ready
                out["server_threads"] = server.threads()
        finally:
            if helper is not None:
                helper.stop()
        out |= _figures(report, meter.cpu) | {"other_cores": meter.other_cores}
        if phase.deep and report["messages"] >= out["depth"] - IN_FLIGHT_SLACK:
            out["note"] = f"the queue ran dry: {report['messages']:,} of {out['depth']:,} drained (raise --drain-depth)"
        if stores:
            out["stored"] = wire.depth(url) - before
            if not report["messages"] <= out["stored"] <= report["messages"] + IN_FLIGHT_SLACK:
                out["note"] = f"stored {out['stored']:,} of the {report['messages']:,} messages counted"
        return out
    finally:
        wire.close()


def _figures(report: dict, cpu_s: float) -> dict:
    seconds = report["duration_us"] / 1e6
    messages = report["messages"]
    out = {
        "msgs_per_s": messages / seconds if seconds else None,
        "cpu_us_per_msg": cpu_s * 1e6 / messages if messages else None,
        "messages": messages,
        "seconds": seconds,
        "server_cpu_s": cpu_s,
        "latency_p99_ms": report["latency_p99_us"] / 1e3,
        "requests": report["requests"],
    }
    errors = {k: report[k] for k in ("status_errors", "socket_errors", "timeouts") if report[k]}
    if errors:
        out["error_counts"] = errors
    return out


def _top_up(server: Server, wire: Wire, url: str, depth: int) -> int:
    """Fill the drain's queue to `depth` visible messages; returns the depth reached."""
    now = wire.depth(url)
    if now < depth:
        fill(server, url, depth - now, body="x" * BODY_BYTES)
    return wire.depth(url)


def _hold_polls(server: Server, wire: Wire, args) -> Helper:
    url = wire.call("CreateQueue", {"QueueName": _name("polls")})["QueueUrl"]
    return Helper("bench.pollers", ["--port", str(server.port), "--queue-url", url, "--count", str(args.polls_held)])


def _name(what: str) -> str:
    return f"bench-{what.replace('_', '-')}-{uuid.uuid4().hex[:8]}"
