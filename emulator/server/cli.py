"""`sqs-emulator` / `python -m emulator`: serve the emulator on a threaded HTTP/1.1 server."""

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from urllib.parse import urlsplit

from werkzeug.serving import WSGIRequestHandler, make_server

from emulator.engine import receipts
from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock, RealClock
from emulator.inspect import cli as inspect_cli
from emulator.server import config
from emulator.server.app import EmulatorApp
from emulator.server.identity import valid_account_id
from emulator.store import SYNC_MODES, StoreError, open_store


class _NothingLeft:
    def read(self, size: int = -1) -> bytes:
        return b""


class KeepAliveHandler(WSGIRequestHandler):
    """HTTP/1.1 with keep-alive, which halves the server's CPU per request.

    werkzeug 3.1 closes every connection: after each response it drains the
    socket, which would swallow the client's next request. The app always
    reads the whole body itself, so the drain is given a reader with nothing
    left and the connection stays open unless the client asked to close it.
    """

    protocol_version = "HTTP/1.1"
    timeout = 300  # seconds an idle keep-alive connection may hold its thread

    def make_environ(self):
        environ = super().make_environ()  # wsgi.input keeps the real stream
        self._stream, self.rfile = self.rfile, _NothingLeft()
        return environ

    def run_wsgi(self):
        try:
            super().run_wsgi()
        finally:
            if isinstance(self.rfile, _NothingLeft):
                self.rfile = self._stream

    def send_header(self, keyword, value):
        if keyword.lower() == "connection" and value.lower() == "close" and not self.close_connection:
            return
        super().send_header(keyword, value)

    def setup(self):
        super().setup()
        # Without this, Nagle's algorithm meets delayed ACKs and each response stalls ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_request(self, code="-", size="-"):
        pass  # the app logs one line per request at debug level


def _option(parser, name, env, default, **kwargs):
    parser.add_argument(name, default=os.environ.get(env, default), help=f"(env {env}, default {default})", **kwargs)


def _valid_host(value: str) -> bool:
    try:
        parts = urlsplit(f"//{value}")
        parts.port  # raises on a port that is not a number
    except ValueError:
        return False
    return bool(parts.hostname) and parts.netloc == value and "@" not in value


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="sqs-emulator", description="A local Amazon SQS emulator.",
        epilog="To look inside a running emulator: sqs-emulator queues | peek QUEUE | advance SECONDS | reset "
               "(each with --help).")
    _option(parser, "--host", "SQS_EMULATOR_HOST", "127.0.0.1")
    _option(parser, "--port", "SQS_EMULATOR_PORT", 9324, type=int)
    _option(parser, "--account-id", "SQS_EMULATOR_ACCOUNT_ID", "000000000000")
    _option(parser, "--region", "SQS_EMULATOR_REGION", "us-east-1")
    # The host queue URLs carry (Docker, remote machines); default: the request's Host header.
    _option(parser, "--hostname", "SQS_EMULATOR_HOSTNAME", None)
    _option(parser, "--log-level", "SQS_EMULATOR_LOG_LEVEL", "info", choices=["debug", "info", "warning", "error"])
    _option(parser, "--clock", "SQS_EMULATOR_CLOCK", "real", choices=["real", "manual"])
    # AWS allows one PurgeQueue per 60 s and no re-created name for 60 s after DeleteQueue;
    # 0 turns a rule off for test suites that purge or recreate quickly.
    _option(parser, "--purge-cooldown", "SQS_EMULATOR_PURGE_COOLDOWN", 60.0, type=float)
    _option(parser, "--recreate-cooldown", "SQS_EMULATOR_RECREATE_COOLDOWN", 60.0, type=float)
    # What an earlier receipt handle of a standard queue's message may still do (emulator/engine/receipts.py).
    _option(parser, "--receipts", "SQS_EMULATOR_RECEIPTS", "aws", choices=list(receipts.MODES))
    # Persistence: without a data dir, everything stays in memory.
    _option(parser, "--data-dir", "SQS_EMULATOR_DATA_DIR", None)
    _option(parser, "--sync", "SQS_EMULATOR_SYNC", "interval", choices=list(SYNC_MODES))
    _option(parser, "--sync-interval-ms", "SQS_EMULATOR_SYNC_INTERVAL_MS", 100, type=int)
    _option(parser, "--config", "SQS_EMULATOR_CONFIG", None)
    parser.add_argument("--auto-create", action="store_true",
                        default=os.environ.get("SQS_EMULATOR_AUTO_CREATE", "").lower() in ("1", "true", "yes"),
                        help="a request to a missing queue creates it (env SQS_EMULATOR_AUTO_CREATE)")
    args = parser.parse_args(argv)
    if not 1 <= args.sync_interval_ms <= 60_000:
        parser.error("--sync-interval-ms must be between 1 and 60000")
    if args.purge_cooldown < 0 or args.recreate_cooldown < 0:
        parser.error("cooldowns are seconds, 0 or more")
    if not valid_account_id(args.account_id):
        parser.error("--account-id must be 12 digits")
    if args.hostname is not None and not _valid_host(args.hostname):
        parser.error("--hostname must be a host name, optionally with :port")
    return args


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in inspect_cli.COMMANDS:  # queues, peek, advance, reset: the inspector
        sys.exit(inspect_cli.main(argv))
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        store = open_store(args.data_dir, args.sync, args.sync_interval_ms)
    except StoreError as error:
        sys.exit(f"sqs-emulator: {error}")
    broker = Broker(
        ManualClock(store.clock_time) if args.clock == "manual" else RealClock(),
        purge_cooldown=args.purge_cooldown,
        recreate_cooldown=args.recreate_cooldown,
        receipts=args.receipts,
        journal=store,
    )
    try:
        store.recover(broker)
        if args.config:
            config.apply(args.config, broker, args.account_id, args.region)
        app = EmulatorApp(broker, args.account_id, args.region, args.hostname, store, args.auto_create)
        server = make_server(args.host, args.port, app, threaded=True, request_handler=KeepAliveHandler)
    except (StoreError, config.ConfigError, OSError) as error:
        broker.close()
        store.close()
        sys.exit(f"sqs-emulator: {error}")

    def stop(signum, frame):
        # shutdown() waits for serve_forever to return, so it cannot run on the serving thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    # Before the banner: whoever waits for it may signal at once.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    endpoint = f"http://{args.host}:{server.server_port}"
    kept = f"data in {args.data_dir}, sync {args.sync}" if args.data_dir else "in memory"
    print(f"SQS emulator listening on {endpoint} (account {args.account_id}, region {args.region}, "
          f"{args.clock} clock, {kept})", flush=True)
    print(f"Point an SDK at it: export AWS_ENDPOINT_URL_SQS={endpoint}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        broker.close()
        store.close()  # everything reported is written before the process exits
        print("SQS emulator stopped", flush=True)
    sys.exit(0)
