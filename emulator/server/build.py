"""One emulator from one Options: every option's check, and the wiring of clock,
store, broker, app and HTTP server that the command line, `serve()` and the
scripts share.

    emulator = build(Options(port=0, clock="manual"))
    emulator.http.serve_forever()   # until another thread calls emulator.http.shutdown()
    emulator.close()
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from emulator import limits
from emulator.engine import receipts
from emulator.engine.broker import Broker
from emulator.engine.clock import Clock, ManualClock, RealClock
from emulator.engine.waits import DEFAULT_MAX_WAITS
from emulator.server import config
from emulator.server.app import EmulatorApp
from emulator.server.http import HttpServer, Limits
from emulator.server.identity import valid_account_id
from emulator.store import SYNC_MODES, Store, open_store

CLOCKS = ("real", "manual")
MAX_SYNC_INTERVAL_MS = 60_000
# The largest valid request: 1 MiB of message (a batch's entries together, attributes
# included) that its encoding may triple (query: %XX per byte; botocore's JSON: six bytes
# of \u escape for a two-byte character), plus 64 KiB for the rest of a batch of 10 (ids, names, the queue URL).
DEFAULT_MAX_BODY_BYTES = 3 * limits.MAX_MESSAGE_SIZE + 64 * 1024


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
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # a larger request body is refused, 413, before it is read
    max_connections: int = 10_000  # past it, the longest-idle keep-alive connection is closed
    max_waits: int = DEFAULT_MAX_WAITS  # concurrent long polls; one more is answered empty at once
    request_timeout: float = 30.0  # seconds a request may take to arrive, line to last body byte
    idle_timeout: float = 120.0  # seconds a keep-alive connection may wait for its next request

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
        for option in ("max_body_bytes", "max_connections", "max_waits", "request_timeout", "idle_timeout"):
            if getattr(self, option) <= 0:
                raise OptionError(option, "must be more than 0")


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


@dataclass
class Emulator:
    """The pieces build() wired; close() releases them, the store last so it writes everything."""

    store: Store
    broker: Broker
    app: EmulatorApp
    http: HttpServer | None  # None when built without listening

    def close(self) -> None:
        self.broker.close()  # first: it releases the long polls the server's threads are in
        if self.http is not None:
            self.http.server_close()
        self.store.close()


def build(options: Options, listen: bool = True) -> Emulator:
    """Open the store, put back what it kept, apply the config file, and (with
    `listen`) bind the HTTP server (emulator/server/http.py). Raises StoreError,
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
        max_waits=options.max_waits,
    )
    try:
        store.recover(broker)
        if options.config:
            config.apply(options.config, broker, options.account_id, options.region)
        app = EmulatorApp(broker, options.account_id, options.region, options.hostname, store, options.auto_create)
        http = HttpServer(app, options.host, options.port, http_limits(options)) if listen else None
    except BaseException:
        broker.close()
        store.close()
        raise
    return Emulator(store, broker, app, http)


def http_limits(options: Options) -> Limits:
    return Limits(
        options.max_body_bytes,
        options.max_connections,
        options.max_waits,
        options.request_timeout,
        options.idle_timeout,
    )
