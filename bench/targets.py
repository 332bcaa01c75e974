"""The servers the benchmark compares, what each is and what each can answer.

emulator     this checkout's `python -m emulator`
baseline     --baseline's checkout's `python -m emulator` (issue 32 calls it the landed code)
emulator-interval, emulator-always
             this checkout's emulator with --data-dir under that --sync policy (saturation only)
floor        a trivial app with canned answers on the emulator's own HTTP server
             (scripts/floor_app.py): what the server alone costs
floor-<server>  the same app on another server (werkzeug, waitress, cheroot, gunicorn, granian, uvicorn)
fauxqs       a Node SQS emulator, its request log off (bench/fauxqs.mjs)
moto         moto's server
"""

from __future__ import annotations

from pathlib import Path

from bench.processes import FLOOR_CMD, MOTO_CMD, Checkout, Server

FLOOR_SERVERS = ("werkzeug", "waitress", "cheroot", "gunicorn", "granian", "uvicorn")
CHOICES = ("emulator", "moto", "fauxqs", "floor", *(f"floor-{name}" for name in FLOOR_SERVERS))
SYNC_POLICIES = ("always", "interval", "off")  # the emulator's --sync choices

# What a kind of target answers beyond JSON-protocol sends: "stores" (it keeps messages: receive,
# depth and memory figures), "query" (the query protocol), "emulator" (the memory scenarios
# written for the emulator).
CAN = {
    "emulator": {"stores", "query", "emulator"},
    "moto": {"stores", "query"},
    "fauxqs": {"stores"},
    "floor": set(),
}


def kind(label: str) -> str:
    name = label.split("#")[0]
    if name == "baseline" or name.startswith("emulator"):
        return "emulator"
    if name.startswith("floor"):
        return "floor"
    return name


def can(label: str, what: str) -> bool:
    return what in CAN[kind(label)]


def on_disk(label: str) -> bool:
    """An emulator-<policy> target: this checkout's emulator with --data-dir."""
    return label.startswith("emulator-")


def server(label: str, log_dir: str, args) -> Server:
    """The server a target label names (a second of a kind is labelled "name#2")."""
    name = label.split("#")[0]
    if name == "baseline":
        return Server(label, args.emulator_cmd, log_dir, Checkout(Path(args.baseline).resolve()))
    if name.startswith("floor"):
        return Server(label, FLOOR_CMD + (f" --server {name[len('floor-') :]}" if name != "floor" else ""), log_dir)
    commands = {"emulator": args.emulator_cmd, "moto": MOTO_CMD, "fauxqs": args.fauxqs_cmd}
    return Server(label, commands[name], log_dir)


def with_data_dir(policy: str, data_dir: str, log_dir: str, args) -> Server:
    return Server(f"emulator-{policy}", f"{args.emulator_cmd} --data-dir {data_dir} --sync {policy}", log_dir)


def labels(names: list[str], baseline: bool) -> list[str]:
    """Each target's label in order, "baseline" after this checkout's emulator when given."""
    out: list[str] = []
    for name in names:
        out.append(name if name not in out else f"{name}#{sum(1 for o in out if o.split('#')[0] == name) + 1}")
        if name == "emulator" and baseline and "baseline" not in out:
            out.append("baseline")
    if baseline and "baseline" not in out:
        out.append("baseline")
    return out
