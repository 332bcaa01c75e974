"""One emulator from one Options: every option's check, and the wiring of clock,
store, broker, app and HTTP server that the command line, `serve()` and the
scripts share.

    emulator = build(Options(port=0, clock="manual"))
    emulator.http.serve_forever()   # until another thread calls emulator.http.shutdown()
    emulator.close()
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass

from emulator import limits
from emulator.engine.broker import Broker
from emulator.engine.clock import Clock, ManualClock, RealClock
from emulator.engine.waits import DEFAULT_MAX_WAITS
from emulator.events.registry import EventSources
from emulator.server import config
from emulator.server.app import EmulatorApp
from emulator.server.auth import Verifier
from emulator.server.collector import CollectorPolicy
from emulator.server.guard import Guard
from emulator.server.http import HttpServer, Limits
from emulator.server.options import CLOCKS, OptionError, checked
from emulator.store import Store, open_store

__all__ = ["CLOCKS", "Emulator", "OptionError", "Options", "build"]  # CLOCKS, OptionError: from options.py


@dataclass(frozen=True)
class Options:
    """What one emulator is built from; refused (OptionError) at construction if any value is bad.

    Each field the command line offers has its kind and help in options.TABLE, which
    checks it here too; a value given as a string (the environment's, an ini file's) is
    read as the flag's would be. The defaults are the command line's, which are AWS's
    (serve() turns the cooldowns off)."""

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
    histories: int = 1_000  # each queue keeps the stories of this many messages (engine/history.py); 0: none
    data_dir: str | None = None  # None: everything in memory
    sync: str = "interval"
    sync_interval_ms: int = 100
    config: str | None = None  # a TOML file of queues (emulator/server/config.py)
    auto_create: bool = False
    cooldowns: str = "aws"  # "off" overrides purge_cooldown and recreate_cooldown with 0
    long_poll_cap: float | None = None  # real seconds an empty long poll may wait at most; None: no cap
    loose: bool = False  # standard queues as loose as AWS's (emulator/engine/loose.py)
    loose_seed: int = 0  # with loose: each standard queue's policy is seeded with it
    queue_urls: str = "aws"  # the form of queue URLs: aws, path or host (emulator/api/queue_urls.py)
    # Host names requests may name besides loopback, IP addresses and --hostname ("*": any).
    allowed_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()  # web origins (scheme://host[:port]) that may call it, with CORS
    require_auth: bool = False  # SigV4 with the config file's [[credentials]]; the admin API needs a token
    # Command and module event-source targets over the admin API too, with a per-start token (the banner's).
    allow_code_targets: bool = False
    # a larger request body is refused, 413, before it is read; None: the largest valid request of
    # its protocol (emulator/server/http/limits.py: JSON's 3 MiB and 64 KiB, the query protocol's 4 MiB and 64 KiB)
    max_body_bytes: int | None = None
    # open connections at most (at the cap an idle one is closed for a newcomer); with the bodies'
    # and the answers' budgets it bounds what clients can make the server hold
    max_connections: int = 4096
    max_waits: int = DEFAULT_MAX_WAITS  # concurrent long polls; one more is answered empty at once
    request_timeout: float = 30.0  # seconds for a request's head to arrive, and as many for its body
    idle_timeout: float = 120.0  # seconds a keep-alive connection may wait for its next request
    write_timeout: float = 30.0  # seconds an answer may lie unread before its connection is closed
    log_level: str = "info"  # the command line's; build() leaves logging to its caller
    # The garbage-collector policy (server/collector.py), the process's: the command line's;
    # serve() leaves it off. Python only (no flag).
    tune_gc: bool = True

    def __post_init__(self):
        # One refusal at a time: the first bad value in the table's order.
        for name, value in checked(self).items():
            object.__setattr__(self, name, value)  # as read: "MANUAL" is "manual", "9324" is 9324
        if not isinstance(self.tune_gc, bool):
            raise OptionError("tune_gc", f"must be True or False, not {self.tune_gc!r}")
        if self.require_auth and not self.config:
            raise OptionError("require_auth", "needs --config with [[credentials]] (access_key, secret_key, account)")


@dataclass
class Emulator:
    """The pieces build() wired; close() releases them, the store last so it writes everything."""

    store: Store
    broker: Broker
    app: EmulatorApp
    http: HttpServer | None  # None when built without listening
    admin_token: str | None = None  # with require_auth: what the admin API asks for
    code_token: str | None = None  # with allow_code_targets: what a command or module target over HTTP carries
    collector: CollectorPolicy | None = None  # with tune_gc: the process's collector policy

    def close(self) -> None:
        self.app.event_sources.clear()  # before the queues close: no poller outlives its queue
        self.broker.close()  # then: it releases the long polls the server's threads are in
        if self.http is not None:
            self.http.server_close()
        self.store.close()
        if self.collector is not None:
            self.collector.stop()


def build(options: Options, listen: bool = True) -> Emulator:
    """Open the store, put back what it kept, apply the config file, and (with
    `listen`) claim the HTTP server's port (emulator/server/http/). Raises StoreError,
    ConfigError or OSError; whatever was opened is closed again first."""
    store = open_store(options.data_dir, options.sync, options.sync_interval_ms)
    clock: Clock
    if options.clock == "manual":
        start = store.clock_time if options.clock_start is None else options.clock_start
        clock = ManualClock(start, wait_cap=options.long_poll_cap)
    else:
        clock = RealClock(wait_cap=options.long_poll_cap)
    cooling = options.cooldowns != "off"
    collector = CollectorPolicy() if options.tune_gc else None
    broker = Broker(
        clock,
        purge_cooldown=options.purge_cooldown if cooling else 0,
        recreate_cooldown=options.recreate_cooldown if cooling else 0,
        receipts=options.receipts,
        journal=store,
        max_waits=options.max_waits,
        observer=collector,
        loose_seed=options.loose_seed if options.loose else None,
        histories=options.histories,
    )
    code_token = secrets.token_urlsafe(24) if options.allow_code_targets else None
    event_sources = EventSources(clock, code_token)
    try:
        with collector.paused() if collector is not None else contextlib.nullcontext():
            store.recover(broker)
        if options.config:
            config.apply(options.config, broker, options.account_id, options.region, event_sources)
        verifier, admin_token = _authentication(options)
        guard = Guard(options.hostname, options.allowed_hosts, options.cors_origins)
        app = EmulatorApp(
            broker,
            options.account_id,
            options.region,
            options.hostname,
            store,
            options.auto_create,
            event_sources,
            options.queue_urls,
            guard=guard,
            verifier=verifier,
            admin_token=admin_token,
        )
        http = HttpServer(app, options.host, options.port, http_limits(options)) if listen else None
    except BaseException:
        event_sources.clear()
        broker.close()
        store.close()
        raise
    if collector is not None:
        collector.start()  # what start-up loaded (modules, the service model, recovered queues) stays
    return Emulator(store, broker, app, http, admin_token, code_token, collector)


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


def http_limits(options: Options) -> Limits:
    return Limits(
        options.max_body_bytes,
        options.max_connections,
        options.max_waits,
        options.request_timeout,
        options.idle_timeout,
        options.write_timeout,
    )
