"""`sqs-emulator` / `python -m emulator`: serve the emulator on its HTTP server (emulator/server/http/)."""

import argparse
import dataclasses
import ipaddress
import logging
import os
import shlex
import signal
import sys
import threading
from importlib import metadata
from urllib.parse import quote

from emulator.inspect import cli as inspect_cli
from emulator.logtext import EscapingFormatter
from emulator.server import config, options
from emulator.server.build import OptionError, Options, build
from emulator.store import StoreError

DEFAULTS = {field.name: field.default for field in dataclasses.fields(Options)}
PRECEDENCE = (
    "Each option can also come from its environment variable or from the [server] table of the "
    "--config file (same names, with underscores): a flag wins over the environment, the environment "
    "over the file, the file over the default. To look inside a running emulator: sqs-emulator "
    "queues | peek QUEUE | advance SECONDS | reset (each with --help)."
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        # One line, as every refusal of a value is; --help shows the usage.
        self.exit(2, f"{self.prog}: error: {message}\n")


def shown_default(default) -> str:
    if default is None:
        return "none"
    if isinstance(default, tuple):
        return ",".join(default) or "none"
    if isinstance(default, bool):
        return "false" if not default else "true"
    return f"{default:g}" if isinstance(default, float) else str(default)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sqs-emulator", description="A local Amazon SQS emulator.", epilog=PRECEDENCE)
    parser.add_argument("--version", action="version", version=f"sqs-emulator {metadata.version('sqs-emulator')}")
    for option in options.TABLE:
        # A bare --auto-create means true; --auto-create false is accepted too.
        bare: dict = {"nargs": "?", "const": "true"} if isinstance(option.kind, options.Flag) else {}
        parser.add_argument(
            option.flag,
            dest=option.name,
            default=argparse.SUPPRESS,  # absent: the environment, the file or the default decides
            metavar=option.kind.metavar,
            help=f"{option.help} (env {option.env}; default {shown_default(DEFAULTS[option.name])})",
            **bare,
        )
    return parser


def parse_args(argv=None, environ=None) -> argparse.Namespace:
    """The options from flags, environment and config file, read alike (server/options.py);
    a refused value is one line on stderr and exit code 2."""
    environ = os.environ if environ is None else environ
    parser = _parser()
    given = vars(parser.parse_args(argv))
    try:
        flags = options.from_flags(given)
        env = options.from_environ(environ)
        path = flags.get("config", env.get("config"))
        in_file = options.from_table(config.server_table(path), f"{path}: [server]") if path else {}
        values = {**in_file, **env, **flags}
        chosen = Options(**values)
    except OptionError as error:
        parser.error(str(error))
    except config.ConfigError as error:  # the file itself: as when its queues are applied
        sys.exit(f"sqs-emulator: {error}")
    for line in options.unknown_variables(environ):
        print(f"sqs-emulator: warning: {line}", file=sys.stderr)
    if chosen.data_dir is None and values.keys() & {"sync", "sync_interval_ms"}:
        print("sqs-emulator: warning: --sync and --sync-interval-ms apply only with --data-dir", file=sys.stderr)
    return argparse.Namespace(options=chosen)


def _flag(option: str, value) -> str:
    return f"--{option.replace('_', '-')} {value}"


def client_address(host: str) -> str:
    """An address a client can reach the server at: a wildcard bind is reached on loopback."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def exposure_warning(host: str, require_auth: bool) -> str | None:
    """What to tell someone who binds beyond loopback with no authentication."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback or require_auth:
        return None
    return (
        f"WARNING: listening on {host} without --require-auth: anyone who can reach this address "
        "can read, send, purge and delete every queue"
    )


def sdk_environment(endpoint: str, chosen: Options) -> str:
    """One line a user pastes into a shell to point an SDK at the server: an endpoint alone
    leaves boto3 without a region and credentials. Without --require-auth any key does
    (`test` is the default account); with it, the key must be one of the config file's."""
    variables = {"AWS_ENDPOINT_URL_SQS": endpoint}
    if not chosen.require_auth:
        variables |= {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
    variables["AWS_DEFAULT_REGION"] = chosen.region
    exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in variables.items())
    keys = f", with a key of {chosen.config}'s [[credentials]]" if chosen.require_auth else ""
    return f"export {exports}  # point an SDK at it{keys}"


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in inspect_cli.COMMANDS:  # queues, peek, advance, reset: the inspector
        sys.exit(inspect_cli.main(argv))
    chosen = parse_args(argv).options
    handler = logging.StreamHandler()
    handler.setFormatter(EscapingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=chosen.log_level.upper(), handlers=[handler])
    try:
        emulator = build(chosen)
    except (StoreError, config.ConfigError) as error:
        sys.exit(f"sqs-emulator: {error}")
    except OSError as error:
        sys.exit(f"sqs-emulator: {options.cannot_listen(error, chosen.host, chosen.port, _flag)}")
    server = emulator.http
    assert server is not None  # build() listens unless told not to
    try:
        serving = server.start()
    except Exception as error:  # granian could not listen after all (the port was taken meanwhile)
        emulator.close()
        sys.exit(f"sqs-emulator: --port {server.server_port}: cannot listen: {error}")

    def stop(signum, frame):
        # shutdown() waits for serve_forever to return: not on this (the main) thread's signal handler.
        threading.Thread(target=server.shutdown, daemon=True).start()

    # Before the banner: whoever waits for it may signal at once.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    endpoint = f"http://{client_address(chosen.host)}:{server.server_port}"
    kept = f"data in {chosen.data_dir}, sync {chosen.sync}" if chosen.data_dir else "in memory"
    print(
        f"SQS emulator listening on {endpoint} (account {chosen.account_id}, region {chosen.region}, "
        f"{chosen.clock} clock, {kept})",
        flush=True,
    )
    print(sdk_environment(endpoint, chosen), flush=True)
    if emulator.admin_token is not None:
        print(f"Requests must be signed by a key of {chosen.config}; admin token: {emulator.admin_token}", flush=True)
        print(f"Dashboard: {endpoint}/_emulator/ui/#token={quote(emulator.admin_token, safe='')}", flush=True)
    else:
        print(f"Dashboard: {endpoint}/_emulator/ui/", flush=True)
    if emulator.code_token is not None:
        print(
            "Command and module event-source targets over the admin API (--allow-code-targets) need "
            f"the header X-Emulator-Code-Token: {emulator.code_token}",
            flush=True,
        )
    warning = exposure_warning(chosen.host, chosen.require_auth)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    try:
        serving.join()
    finally:
        emulator.close()  # the store last: everything reported is written before the process exits
        print("SQS emulator stopped", flush=True)
    sys.exit(0)
