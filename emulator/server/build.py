"""One emulator from one Options: every option's check, and the wiring of clock,
store, broker, app and HTTP server that the command line, `serve()` and the
scripts share.

    emulator = build(Options(port=0, clock="manual"))
    emulator.http.serve_forever()   # until another thread calls emulator.http.shutdown()
    emulator.close()
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from werkzeug.serving import BaseWSGIServer, make_server

from emulator import limits
from emulator.engine import receipts
from emulator.engine.broker import Broker
from emulator.engine.clock import Clock, ManualClock, RealClock
from emulator.server import config
from emulator.server.app import EmulatorApp
from emulator.server.auth import Verifier
from emulator.server.guard import Guard
from emulator.server.http import KeepAliveHandler
from emulator.server.identity import valid_account_id
from emulator.store import SYNC_MODES, Store, open_store

CLOCKS = ("real", "manual")
MAX_SYNC_INTERVAL_MS = 60_000
HOST_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")  # --allowed-hosts: names, no ports


class OptionError(ValueError):
    """An option's value is refused. `option` is its field name (None: the message
    names what it is about); str() names it as Python code does, `command_line`
    as the command line does."""

    def __init__(self, option: str | None, problem: str):
        super().__init__(f"{option} {problem}" if option else problem)
        self.option = option
        self.problem = problem

    @property
    def command_line(self) -> str:
        return f"--{self.option.replace('_', '-')} {self.problem}" if self.option else self.problem


@dataclass(frozen=True)
class Options:
    """What one emulator is built from; refused (OptionError) at construction if any value is bad.

    The defaults are the command line's, which are AWS's (serve() turns the cooldowns off)."""

    host: str = "127.0.0.1"
    port: int = 9324  # 0: a free port
    account_id: str = "000000000000"
    region: str = "us-east-1"
    hostname: str | None = None  # the host queue URLs carry; None: the request's Host header
    clock: str = "real"
    clock_start: float | None = None  # the manual clock's first reading; None: the store's kept time, else now
    purge_cooldown: float = limits.PURGE_COOLDOWN_SECONDS
    recreate_cooldown: float = limits.RECREATE_COOLDOWN_SECONDS
    receipts: str = "aws"
    data_dir: str | None = None  # None: everything in memory
    sync: str = "interval"
    sync_interval_ms: int = 100
    config: str | None = None  # a TOML file of queues (emulator/server/config.py)
    auto_create: bool = False
    # Host names requests may name besides loopback, IP addresses and --hostname ("*": any).
    allowed_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()  # web origins (scheme://host[:port]) that may call it, with CORS
    require_auth: bool = False  # SigV4 with the config file's [[credentials]]; the admin API needs a token

    def __post_init__(self):
        # One refusal at a time, the first bad value in the order the command line has always checked.
        if not 0 <= self.port <= 65535:
            raise OptionError("port", "must be from 0 to 65535")
        _one_of("clock", self.clock, CLOCKS)
        _one_of("receipts", self.receipts, receipts.MODES)
        _one_of("sync", self.sync, SYNC_MODES)
        if not 1 <= self.sync_interval_ms <= MAX_SYNC_INTERVAL_MS:
            raise OptionError("sync_interval_ms", f"must be between 1 and {MAX_SYNC_INTERVAL_MS}")
        if self.purge_cooldown < 0 or self.recreate_cooldown < 0:
            raise OptionError(None, "cooldowns are seconds, 0 or more")
        if not valid_account_id(self.account_id):
            raise OptionError("account_id", "must be 12 digits")
        if self.hostname is not None and not _valid_host(self.hostname):
            raise OptionError("hostname", "must be a host name, optionally with :port")
        if self.data_dir == "":
            raise OptionError("data_dir", "must name a directory")
        if not all(name == "*" or HOST_NAME.fullmatch(name) for name in self.allowed_hosts):
            raise OptionError("allowed_hosts", "lists host names (or *), separated by commas")
        if not all(_valid_origin(origin) for origin in self.cors_origins):
            raise OptionError("cors_origins", "lists origins such as http://localhost:3000, separated by commas")
        if self.require_auth and not self.config:
            raise OptionError("require_auth", "needs --config with [[credentials]] (access_key, secret_key, account)")


def _one_of(option: str, value, choices) -> None:
    if value not in choices:
        raise OptionError(option, f"is one of {', '.join(choices)}, not {value!r}")


def _valid_host(value: str) -> bool:
    try:
        parts = urlsplit(f"//{value}")
        _ = parts.port  # raises on a port that is not a number
    except ValueError:
        return False
    return bool(parts.hostname) and parts.netloc == value and "@" not in value


def _valid_origin(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and _valid_host(parts.netloc) and parts.path in ("", "/")


@dataclass
class Emulator:
    """The pieces build() wired; close() releases them, the store last so it writes everything."""

    store: Store
    broker: Broker
    app: EmulatorApp
    http: BaseWSGIServer | None  # None when built without listening
    admin_token: str | None = None  # with require_auth: what the admin API asks for

    def close(self) -> None:
        if self.http is not None:
            self.http.server_close()
        self.broker.close()
        self.store.close()


def build(options: Options, listen: bool = True, handler=KeepAliveHandler) -> Emulator:
    """Open the store, put back what it kept, apply the config file, and (with
    `listen`) bind the HTTP server, threaded, with `handler`. Raises StoreError,
    ConfigError or OSError; whatever was opened is closed again first."""
    store = open_store(options.data_dir, options.sync, options.sync_interval_ms)
    clock: Clock
    if options.clock == "manual":
        clock = ManualClock(store.clock_time if options.clock_start is None else options.clock_start)
    else:
        clock = RealClock()
    broker = Broker(
        clock,
        purge_cooldown=options.purge_cooldown,
        recreate_cooldown=options.recreate_cooldown,
        receipts=options.receipts,
        journal=store,
    )
    try:
        store.recover(broker)
        if options.config:
            config.apply(options.config, broker, options.account_id, options.region)
        verifier, admin_token = _authentication(options)
        guard = Guard(options.hostname, options.allowed_hosts, options.cors_origins)
        app = EmulatorApp(
            broker,
            options.account_id,
            options.region,
            options.hostname,
            store,
            options.auto_create,
            guard=guard,
            verifier=verifier,
            admin_token=admin_token,
        )
        http = make_server(options.host, options.port, app, threaded=True, request_handler=handler) if listen else None
    except BaseException:
        broker.close()
        store.close()
        raise
    return Emulator(store, broker, app, http, admin_token)


def _authentication(options: Options) -> tuple[Verifier | None, str | None]:
    """With require_auth: the verifier of the config file's keys, and the admin token
    (the file's, else a random one). Raises ConfigError."""
    if not options.require_auth:
        return None, None
    assert options.config is not None  # Options refuses require_auth without it
    keys, admin_token = config.credentials(options.config, options.account_id)
    if not keys:
        raise config.ConfigError(f"{options.config}: --require-auth needs at least one [[credentials]] entry")
    return Verifier(keys), admin_token or secrets.token_urlsafe(24)
