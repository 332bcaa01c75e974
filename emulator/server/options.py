"""The server's options in one table, and the one way each value is read.

Each entry names an option, its kind (type, choices, range) and a sentence of
help. The rest is derived from the name: the flag (`sync_interval_ms` is
`--sync-interval-ms`), the environment variable (`SQS_EMULATOR_SYNC_INTERVAL_MS`)
and the config file's key (`[server] sync_interval_ms`); the default is the
`Options` field's (build.py). A value is read by its kind whatever its source,
so a flag, the environment, the config file and Python (`Options(...)`,
`serve(...)`) accept and refuse alike, and a refusal names the source:

    --port must be from 0 to 65535, not 70000
    SQS_EMULATOR_CLOCK must be one of real, manual, not 'sundial'
    emulator.toml: [server] sync must be one of always, interval, off, not 'never'

Precedence: flag > environment > config file > default.

Adding an option: a field on `Options` (build.py) and one `Option(...)` line in TABLE.
"""

from __future__ import annotations

import difflib
import errno
import ipaddress
import math
import os
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol
from urllib.parse import urlsplit

from emulator.api import queue_urls
from emulator.engine import receipts
from emulator.server.admin import token
from emulator.server.identity import valid_account_id
from emulator.store import SYNC_MODES

CLOCKS = ("real", "manual")
COOLDOWNS = ("aws", "off")  # off: both cooldowns 0, for suites that purge and re-create names (as on moto, ElasticMQ)
LOG_LEVELS = ("debug", "info", "warning", "error")
MAX_SYNC_INTERVAL_MS = 60_000
ENV_PREFIX = "SQS_EMULATOR_"
TRUE = ("true", "1", "yes", "on")
FALSE = ("false", "0", "no", "off")


class OptionError(ValueError):
    """An option's value is refused. `option` is its name (None: the problem says what it is
    about); `source` how the user gave it (a flag, an environment variable, a file's key);
    str() names the source, else the option as Python code does."""

    def __init__(self, option: str | None, problem: str, source: str | None = None):
        self.option = option
        self.problem = problem
        self.source = source
        where = source or option
        super().__init__(f"{where} {problem}" if where else problem)

    @property
    def command_line(self) -> str:
        return f"--{self.option.replace('_', '-')} {self.problem}" if self.option else self.problem


# -- kinds: each reads a value from a string (flag, environment, ini) or from a
# TOML or Python value, and returns it typed, or raises ValueError(problem). --


class Kind(Protocol):
    @property
    def metavar(self) -> str: ...

    def parse(self, value: Any) -> Any: ...


@dataclass(frozen=True)
class Text:
    metavar: str = "TEXT"
    valid: Any = None  # a predicate, with `problem` said when it fails
    problem: str = ""

    def parse(self, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {value!r}")
        if self.valid is not None and not self.valid(value):
            raise ValueError(f"{self.problem}, not {value!r}")
        return value


@dataclass(frozen=True)
class Choice:
    choices: tuple[str, ...]

    @property
    def metavar(self) -> str:
        return "{" + ",".join(self.choices) + "}"

    def parse(self, value: Any) -> str:
        if isinstance(value, str) and value.strip().lower() in self.choices:
            return value.strip().lower()
        raise ValueError(f"must be one of {', '.join(self.choices)}, not {value!r}")


@dataclass(frozen=True)
class Integer:
    low: int
    high: int
    metavar: str = "N"

    def parse(self, value: Any) -> int:
        number = value
        if isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, int):
            raise ValueError(f"must be a whole number from {self.low} to {self.high}, not {value!r}")
        if not self.low <= number <= self.high:
            raise ValueError(f"must be from {self.low} to {self.high}, not {number}")
        return number


@dataclass(frozen=True)
class Seconds:
    """A number of seconds, 0 or more (fractions allowed); with `positive`, more than 0."""

    metavar: str = "SECONDS"
    positive: bool = False

    def parse(self, value: Any) -> float:
        number = value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
            raise ValueError(f"must be a number of seconds, not {value!r}")
        if number < 0 or (self.positive and number == 0):
            raise ValueError(f"must be {'more than 0' if self.positive else '0 or more'} seconds, not {number:g}")
        return float(number)


@dataclass(frozen=True)
class Flag:
    metavar: str = "BOOL"

    def parse(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE + FALSE:
            return value.strip().lower() in TRUE
        raise ValueError(f"must be true or false (also 1/0, yes/no, on/off), not {value!r}")


@dataclass(frozen=True)
class Names:
    """A list, written with commas in a flag or the environment (a list in a file or Python);
    each item passes `valid`, or `problem` is said."""

    valid: Any
    problem: str
    metavar: str = "A,B,..."

    def parse(self, value: Any) -> tuple[str, ...]:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not all(isinstance(item, str) for item in items):
            raise ValueError(f"{self.problem}, not {value!r}")
        names = tuple(item.strip() for item in items if item.strip())
        if not all(self.valid(name) for name in names):
            raise ValueError(f"{self.problem}, not {value!r}")
        return names


HOST_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")  # --allowed-hosts: names, no ports


def _valid_origin(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and _valid_host(parts.netloc) and parts.path in ("", "/")


def _valid_host(value: str) -> bool:
    try:
        parts = urlsplit(f"//{value}")
        _ = parts.port  # raises on a port that is not a number
    except ValueError:
        return False
    return bool(parts.hostname) and parts.netloc == value and "@" not in value


def _listenable(value: str) -> bool:
    """An IP address, or a name this machine resolves: checked here, so that a typo
    (`locahost`, `999.1.1.1`) is one line rather than the HTTP server's traceback."""
    try:
        ipaddress.ip_address(value)
        return True
    except ValueError:
        pass
    try:
        socket.getaddrinfo(value, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        return False
    return True


def _directory(value: str) -> bool:
    """A directory, or a path where one can be made: a file there is refused here, in words
    (the store would say only "File exists")."""
    return bool(value) and not (os.path.exists(value) and not os.path.isdir(value))


def cannot_listen(error: OSError, host: str, port: int, naming) -> str:
    """Why the server could not listen on host:port (its bind's OSError, whichever server
    raised it), naming the option that chose each: `naming(option, value)` says it as its
    caller's user gave it (`--port 9324`, `port=9324`, `ini option sqs_emulator_port = 9324`)."""
    if error.errno == errno.EADDRINUSE:
        return f"{naming('port', port)}: address already in use ({naming('port', 0)} picks a free port)"
    if error.errno == errno.EACCES:
        return f"{naming('port', port)}: permission denied (ports below 1024 need privileges)"
    # Not an address of this machine (negative: getaddrinfo's codes, a name that stopped resolving).
    reason = os.strerror(error.errno) if error.errno and error.errno > 0 else "no such host"
    return f"{naming('host', host)}: cannot listen there: {reason}"


@dataclass(frozen=True)
class Option:
    name: str  # the Options field
    kind: Kind
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


TABLE = (
    Option(
        "host",
        Text("ADDRESS", _listenable, "must be an IP address or a name this machine resolves (127.0.0.1, 0.0.0.0, ::)"),
        "the address to listen on; the loopback default admits this machine only",
    ),
    Option("port", Integer(0, 65535, "PORT"), "the TCP port to listen on; 0 picks a free one"),
    Option(
        "account_id",
        Text("ID", valid_account_id, "must be 12 digits"),
        "the account of requests without a 12-digit access key, and of the config file's queues",
    ),
    Option("region", Text("REGION"), "the region of requests without a SigV4 scope (their queue URLs are short)"),
    Option(
        "hostname",
        Text("HOST[:PORT]", _valid_host, "must be a host name, optionally with :port"),
        "the host queue URLs carry (Docker, other machines); without it, the request's Host header",
    ),
    Option("log_level", Choice(LOG_LEVELS), "how much the server logs; debug: a line per request"),
    Option("clock", Choice(CLOCKS), "manual: time moves only when told (sqs-emulator advance SECONDS)"),
    Option("purge_cooldown", Seconds(), "seconds between two purges of a queue, as on AWS; 0: no limit"),
    Option(
        "recreate_cooldown", Seconds(), "seconds before a deleted queue's name is free again, as on AWS; 0: at once"
    ),
    Option("cooldowns", Choice(COOLDOWNS), "off: both cooldowns 0, for suites written for moto or ElasticMQ"),
    Option(
        "receipts",
        Choice(receipts.MODES),
        "aws: every receipt handle of a standard queue's message acts on it, as on AWS; strict: only the latest",
    ),
    Option(
        "histories",
        Integer(0, 1_000_000),
        "each queue keeps the story of this many messages at most, the oldest dropped and counted "
        "(a deleted one's stays a while); 0: none, at no cost",
    ),
    Option(
        "data_dir",
        Text("DIR", _directory, "must name a directory (an existing one or one to create)"),
        "keep everything in this directory, back on the next start; without it, all is in memory",
    ),
    Option(
        "sync",
        Choice(SYNC_MODES),
        "with --data-dir: reply after the disk has it (always), or at once with changes committed every --sync-interval-ms, fsynced (interval) or not (off)",
    ),
    Option(
        "sync_interval_ms",
        Integer(1, MAX_SYNC_INTERVAL_MS),
        "with --sync interval: the most milliseconds of changes a crash may lose",
    ),
    Option(
        "config",
        Text("FILE", bool, "must name a file"),
        "a TOML file ([[queues]] created at start when missing, [server] options) or ElasticMQ's HOCON file (.conf)",
    ),
    Option(
        "queue_urls",
        Choice(queue_urls.FORMS),
        "aws: /<account>/<name> in every region; path: the region in the path; host: sqs.<region>.<host>",
    ),
    Option(
        "allowed_hosts",
        Names(lambda name: name == "*" or HOST_NAME.fullmatch(name), "lists host names (or *), separated by commas"),
        "host names requests may name besides loopback names, IP addresses and --hostname (*: any; Docker: the service)",
    ),
    Option(
        "cors_origins",
        Names(_valid_origin, "lists origins such as http://localhost:3000, separated by commas"),
        "web origins that may call it from a browser, answered with CORS headers (none by default)",
    ),
    Option(
        "allow_code_targets",
        Flag(),
        "take command and module event-source targets over the admin API too, from requests carrying the "
        "token the banner prints (never from a web page); without it they come from the config file or Python",
    ),
    Option(
        "require_auth",
        Flag(),
        "check SigV4 signatures against the config file's [[credentials]], keep accounts apart, token the admin API",
    ),
    Option(
        "max_body_bytes",
        Integer(1, 2**31, "BYTES"),
        "a request body larger than this is refused (413) before it is read (default: the largest valid request of its protocol)",
    ),
    Option(
        "max_connections",
        Integer(1, 1_000_000),
        "open connections at most; at the cap the oldest idle one is closed for a newcomer",
    ),
    Option("max_waits", Integer(1, 1_000_000), "concurrent long polls at most; one more is answered empty at once"),
    Option(
        "request_timeout",
        Seconds(positive=True),
        "seconds a request's line and headers may take to arrive, and then as many for its body",
    ),
    Option(
        "idle_timeout",
        Seconds(positive=True),
        "seconds a keep-alive connection may wait for its next request (at most --request-timeout)",
    ),
    Option(
        "write_timeout",
        Seconds(positive=True),
        "seconds an answer may take to be read whole by its client before the connection is closed",
    ),
    Option("auto_create", Flag(), "a request to a missing queue creates it (a .fifo name: a FIFO queue)"),
    Option(
        "long_poll_cap",
        Seconds(),
        "the most real seconds an empty long poll waits, whatever its WaitTimeSeconds (test suites: 0.1)",
    ),
    Option(
        "loose",
        Flag(),
        "standard queues as loose as AWS's: a receive may answer out of send order and a short poll sees a "
        "sample (some or none of the messages waiting); FIFO queues keep their order",
    ),
    Option(
        "loose_seed", Integer(0, 2**32 - 1, "SEED"), "with --loose: the seed of each queue's choices (a run repeats)"
    ),
)
BY_NAME = {option.name: option for option in TABLE}
NOT_IN_A_FILE = ("config",)  # the file cannot name itself


def parse(option: Option, value: Any, source: str | None = None) -> Any:
    try:
        return option.kind.parse(value)
    except ValueError as error:
        raise OptionError(option.name, str(error), source) from None


def checked(values: Any) -> dict[str, Any]:
    """The Options dataclass `values`' table fields, each read by its kind; None stays
    None where it is the default (no directory, no file, no cap)."""
    defaults = {field.name: field.default for field in fields(values)}
    out = {}
    for option in TABLE:
        value = getattr(values, option.name)
        if not (value is None and defaults[option.name] is None):
            out[option.name] = parse(option, value)
    return out


def from_flags(given: Mapping[str, Any]) -> dict[str, Any]:
    """The flags given (by option name), read."""
    return {name: parse(BY_NAME[name], value, BY_NAME[name].flag) for name, value in given.items()}


def from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    return {option.name: parse(option, environ[option.env], option.env) for option in TABLE if option.env in environ}


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """A line for each SQS_EMULATOR_* variable that nothing reads, with the nearest name that
    something does: a misspelt variable would otherwise be ignored without a word."""
    known = [option.env for option in TABLE] + [token.VARIABLE]
    # Compared without the prefix they share, which would make every name look close.
    suffixes = [name.removeprefix(ENV_PREFIX) for name in known]
    lines = []
    for name in sorted(environ):
        if name.startswith(ENV_PREFIX) and name not in known:
            nearest = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), suffixes, n=1)
            hint = f"did you mean {ENV_PREFIX}{nearest[0]}?" if nearest else "sqs-emulator --help names each variable"
            lines.append(f"{name} is not a variable sqs-emulator reads ({hint})")
    return lines


def from_table(table: Mapping[str, Any], where: str, names: Iterable[str] | None = None) -> dict[str, Any]:
    """A table of options by name (a config file's [server], pytest's ini, a marker's
    keywords); `where` prefixes each key in a refusal. Dashes in a key read as underscores."""
    known = [option.name for option in TABLE if option.name not in NOT_IN_A_FILE] if names is None else list(names)
    values = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in known:
            raise OptionError(None, f"{where} unknown key {key!r} (known: {', '.join(known)})")
        values[name] = parse(BY_NAME[name], value, f"{where} {key}")
    return values
