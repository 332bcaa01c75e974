"""The inspector: `sqs-emulator queues|peek|advance|reset` against a running
emulator's admin API (emulator/inspect/client.py).

    sqs-emulator queues                          every queue, with counts and totals
    sqs-emulator peek QUEUE [--state S] [--limit N]
                                                 messages without receiving them
    sqs-emulator advance SECONDS                 move a manual clock
    sqs-emulator reset                           delete every queue and all state

Each takes --endpoint URL (default $AWS_ENDPOINT_URL_SQS, else
http://127.0.0.1:$SQS_EMULATOR_PORT, else http://127.0.0.1:9324) and --json (the
admin API's answer instead of a table or a sentence). A server that does not
answer, or refuses, is one line on stderr and exit code 1. Output into a pipe
that closes early (`sqs-emulator queues | head -1`) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime

from emulator.inspect.client import AdminApiError, AdminClient, EmulatorUnreachable

COMMANDS = ("queues", "peek", "advance", "reset")
DEFAULT_ENDPOINT = "http://127.0.0.1:9324"
BODY_WIDTH = 60  # characters of a message body the peek table shows


def parse_args(argv: list[str], environ: Mapping[str, str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="sqs-emulator", description="Inspect a running SQS emulator.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--endpoint",
        help="the emulator's URL (default $AWS_ENDPOINT_URL_SQS, else http://127.0.0.1:$SQS_EMULATOR_PORT, "
        f"else {DEFAULT_ENDPOINT})",
    )
    common.add_argument("--json", action="store_true", help="the admin API's JSON instead of a table or a sentence")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("queues", parents=[common], help="every queue, with counts and totals")

    peek = commands.add_parser("peek", parents=[common], help="a queue's messages, without receiving them")
    peek.add_argument("queue", metavar="QUEUE", help="queue URL or name")
    peek.add_argument("--state", default="all", choices=["all", "visible", "inflight", "delayed"])
    peek.add_argument("--limit", type=_positive, default=100, help="most messages to show (default 100)")
    peek.add_argument("--account", help="the queue's account, for a name of another account than the default")
    peek.add_argument("--region", help="the queue's region, for a name of another region than the default")

    advance = commands.add_parser("advance", parents=[common], help="move the server's manual clock forward")
    advance.add_argument("seconds", metavar="SECONDS", type=_seconds)

    commands.add_parser("reset", parents=[common], help="delete every queue and all state")
    args = parser.parse_args(argv)
    if args.endpoint is None:
        args.endpoint = _endpoint(os.environ if environ is None else environ, parser)
    return args


def _endpoint(environ: Mapping[str, str], parser: argparse.ArgumentParser) -> str:
    """$AWS_ENDPOINT_URL_SQS, else the port the server's own SQS_EMULATOR_PORT gives it."""
    if environ.get("AWS_ENDPOINT_URL_SQS"):
        return environ["AWS_ENDPOINT_URL_SQS"]
    port = environ.get("SQS_EMULATOR_PORT")
    if not port:
        return DEFAULT_ENDPOINT
    # The server's own check (server/options.py), which this leaf package may not import.
    if not (port.strip().isdigit() and 1 <= int(port) <= 65535):
        parser.error(f"SQS_EMULATOR_PORT must be a port from 1 to 65535, not {port!r}")
    return f"http://127.0.0.1:{int(port)}"


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not number >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError("time only moves forward: 0 or more seconds")
    return number


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")  # any body prints, whatever the terminal's encoding
    try:
        print(_run(args, AdminClient(args.endpoint)), flush=True)
    except (AdminApiError, EmulatorUnreachable) as error:
        print(f"sqs-emulator {args.command}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader left (`| head`): say nothing more. Python's own recipe: point stdout at
        # devnull so the flush at exit does not raise again (docs.python.org, signal, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def _run(args: argparse.Namespace, client: AdminClient) -> str:
    """What the command prints: with --json the answer as JSON, else a table or a sentence."""
    if args.command == "queues":
        queues = client.queues()
        return _json(queues) if args.json else queue_table(queues)
    if args.command == "peek":
        messages = client.peek(args.queue, args.state, args.limit, args.account, args.region)
        return _json(messages) if args.json else message_table(messages)
    if args.command == "advance":
        now = client.advance(args.seconds)
        if args.json:
            return _json({"advanced": args.seconds, "now": now})
        return f"clock advanced {args.seconds:g} s; now {_iso(now)} ({now:.3f})"
    client.reset()
    if args.json:
        return _json({"reset": True, "endpoint": client.endpoint})
    return f"reset: every queue and message of {client.endpoint} deleted"


def _json(answer) -> str:
    return json.dumps(answer, indent=2)


# -- tables ---------------------------------------------------------------------------


QUEUE_COLUMNS = [  # (heading, value, right-aligned)
    ("NAME", lambda q: q["name"], False),
    ("TYPE", lambda q: q["type"], False),
    ("ACCOUNT", lambda q: q["account"], False),
    ("REGION", lambda q: q["region"], False),
    ("VISIBLE", lambda q: q["visible"], True),
    ("IN FLIGHT", lambda q: q["inflight"], True),
    ("DELAYED", lambda q: q["delayed"], True),
    ("SENT", lambda q: q["totals"].get("sent", 0), True),
    ("RECEIVED", lambda q: q["totals"].get("received", 0), True),
    ("DELETED", lambda q: q["totals"].get("deleted", 0), True),
    ("DEAD-LETTERED", lambda q: q["totals"].get("dead_lettered", 0), True),
]

MESSAGE_COLUMNS = [
    ("CURSOR", lambda m: m["cursor"], True),
    ("ID", lambda m: m["id"], False),
    ("STATE", lambda m: m["state"], False),
    ("RECEIVES", lambda m: m["receive_count"], True),
    ("GROUP", lambda m: m.get("group_id") or "-", False),
    ("BODY", lambda m: _truncate(m["body"]), False),
]


def queue_table(queues: list[dict]) -> str:
    return table(QUEUE_COLUMNS, queues) if queues else "no queues"


def message_table(messages: list[dict]) -> str:
    return table(MESSAGE_COLUMNS, messages) if messages else "no messages"


def table(columns, rows: list[dict]) -> str:
    """Fixed-width columns, two spaces apart, each as wide as its widest cell."""
    cells = [[str(value(row)) for _, value, _ in columns] for row in rows]
    widths = [max([len(heading), *(len(line[i]) for line in cells)]) for i, (heading, _, _) in enumerate(columns)]
    lines = []
    for line in [[heading for heading, _, _ in columns], *cells]:
        padded = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, (_, _, right) in zip(line, widths, columns, strict=True)
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def _truncate(body: str) -> str:
    """One line: control characters escaped, at most BODY_WIDTH characters."""
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in body)
    return text if len(text) <= BODY_WIDTH else text[: BODY_WIDTH - 3] + "..."


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(round(epoch, 3), UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
