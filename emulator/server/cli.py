"""`sqs-emulator` / `python -m emulator`: serve the emulator on its HTTP/1.1 server (emulator/server/http.py)."""

import argparse
import dataclasses
import logging
import os
import signal
import sys
import threading

from emulator.engine import receipts
from emulator.inspect import cli as inspect_cli
from emulator.server import config
from emulator.server.build import CLOCKS, OptionError, Options, build
from emulator.store import SYNC_MODES, StoreError

DEFAULT = Options()


def _option(parser, name, env, default, **kwargs):
    parser.add_argument(name, default=os.environ.get(env, default), help=f"(env {env}, default {default})", **kwargs)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="sqs-emulator",
        description="A local Amazon SQS emulator.",
        epilog="To look inside a running emulator: sqs-emulator queues | peek QUEUE | advance SECONDS | reset "
        "(each with --help).",
    )
    _option(parser, "--host", "SQS_EMULATOR_HOST", DEFAULT.host)
    _option(parser, "--port", "SQS_EMULATOR_PORT", DEFAULT.port, type=int)
    _option(parser, "--account-id", "SQS_EMULATOR_ACCOUNT_ID", DEFAULT.account_id)
    _option(parser, "--region", "SQS_EMULATOR_REGION", DEFAULT.region)
    # The host queue URLs carry (Docker, remote machines); default: the request's Host header.
    _option(parser, "--hostname", "SQS_EMULATOR_HOSTNAME", None)
    _option(parser, "--log-level", "SQS_EMULATOR_LOG_LEVEL", "info", choices=["debug", "info", "warning", "error"])
    _option(parser, "--clock", "SQS_EMULATOR_CLOCK", DEFAULT.clock, choices=list(CLOCKS))
    # AWS allows one PurgeQueue per 60 s and no re-created name for 60 s after DeleteQueue;
    # 0 turns a rule off for test suites that purge or recreate quickly.
    _option(parser, "--purge-cooldown", "SQS_EMULATOR_PURGE_COOLDOWN", DEFAULT.purge_cooldown, type=float)
    _option(parser, "--recreate-cooldown", "SQS_EMULATOR_RECREATE_COOLDOWN", DEFAULT.recreate_cooldown, type=float)
    # What an earlier receipt handle of a standard queue's message may still do (emulator/engine/receipts.py).
    _option(parser, "--receipts", "SQS_EMULATOR_RECEIPTS", DEFAULT.receipts, choices=list(receipts.MODES))
    # Persistence: without a data dir, everything stays in memory.
    _option(parser, "--data-dir", "SQS_EMULATOR_DATA_DIR", None)
    _option(parser, "--sync", "SQS_EMULATOR_SYNC", DEFAULT.sync, choices=list(SYNC_MODES))
    _option(parser, "--sync-interval-ms", "SQS_EMULATOR_SYNC_INTERVAL_MS", DEFAULT.sync_interval_ms, type=int)
    _option(parser, "--config", "SQS_EMULATOR_CONFIG", None)
    # The front door (emulator/server/http.py): a larger body is refused (413) before it is read;
    # past max-connections the longest-idle keep-alive connection is closed; past max-waits a
    # long poll is answered empty at once; the timeouts are seconds.
    _option(parser, "--max-body-bytes", "SQS_EMULATOR_MAX_BODY_BYTES", DEFAULT.max_body_bytes, type=int)
    _option(parser, "--max-connections", "SQS_EMULATOR_MAX_CONNECTIONS", DEFAULT.max_connections, type=int)
    _option(parser, "--max-waits", "SQS_EMULATOR_MAX_WAITS", DEFAULT.max_waits, type=int)
    _option(parser, "--request-timeout", "SQS_EMULATOR_REQUEST_TIMEOUT", DEFAULT.request_timeout, type=float)
    _option(parser, "--idle-timeout", "SQS_EMULATOR_IDLE_TIMEOUT", DEFAULT.idle_timeout, type=float)
    parser.add_argument(
        "--auto-create",
        action="store_true",
        default=os.environ.get("SQS_EMULATOR_AUTO_CREATE", "").lower() in ("1", "true", "yes"),
        help="a request to a missing queue creates it (env SQS_EMULATOR_AUTO_CREATE)",
    )
    args = parser.parse_args(argv)
    fields = {field.name for field in dataclasses.fields(Options)}
    try:
        args.options = Options(**{name: value for name, value in vars(args).items() if name in fields})
    except OptionError as error:
        parser.error(error.command_line)
    return args


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in inspect_cli.COMMANDS:  # queues, peek, advance, reset: the inspector
        sys.exit(inspect_cli.main(argv))
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("waitress").setLevel(logging.WARNING)
    try:
        emulator = build(args.options)
    except (StoreError, config.ConfigError, OSError) as error:
        sys.exit(f"sqs-emulator: {error}")
    server = emulator.http
    assert server is not None  # build() listens unless told not to

    def stop(signum, frame):
        # shutdown() waits for serve_forever to return, so it cannot run on the serving thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    # Before the banner: whoever waits for it may signal at once.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    endpoint = f"http://{args.host}:{server.server_port}"
    kept = f"data in {args.data_dir}, sync {args.sync}" if args.data_dir else "in memory"
    print(
        f"SQS emulator listening on {endpoint} (account {args.account_id}, region {args.region}, "
        f"{args.clock} clock, {kept})",
        flush=True,
    )
    print(f"Point an SDK at it: export AWS_ENDPOINT_URL_SQS={endpoint}", flush=True)
    try:
        server.serve_forever()
    finally:
        emulator.close()  # the store last: everything reported is written before the process exits
        print("SQS emulator stopped", flush=True)
    sys.exit(0)
