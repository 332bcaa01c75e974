"""Queues from a TOML file (--config), or ElasticMQ's HOCON file (emulator/server/elasticmq.py):
created at start when missing.

    [[queues]]
    name = "orders-dlq"
    [[queues]]
    name = "orders"                    # optional: account, region (default --account-id, --region)
    attributes = { VisibilityTimeout = 60, RedrivePolicy = { deadLetterTargetArn = "orders-dlq", maxReceiveCount = 5 } }
    tags = { team = "payments" }

With --require-auth, the keys that may sign requests, each acting as one account,
and optionally the admin API's token (default: a random one, in the startup banner):

    [[credentials]]
    access_key = "AKIDLOCAL1"
    secret_key = "a-long-secret"
    account = "123456789012"           # optional: default --account-id
    [admin]
    token = "another-long-secret"

Each queue goes through CreateQueue itself, so its attributes meet AWS's
validation word for word. A dead-letter target may be a queue's name (of the
same account and region); a queue of the file is created after the queue it
names. A queue that exists already (kept by --data-dir) is left as it is; where
its attributes differ from the file's, a warning says so. `faults = {...}` sets
the queue's fault policy, with the fields of PUT /_emulator/faults.

    [[event_sources]]                  # Lambda-style consumers (emulator/events/)
    queue = "orders"                   # a name or URL; optional: account, region
    target = "myapp.handlers:handle"   # or an http(s) URL, or ["command", "args"]
    batch_size = 10                    # and the other fields of POST /_emulator/event-sources

Event sources are created after the queues, each checked as the admin API checks
it; a bad one stops the start naming the file, the entry and the field.

AWS's errors by rule and KMS keys' states (emulator/engine/error_rules.py), with the fields
of POST /_emulator/error-rules and PUT /_emulator/kms-keys, set after the queues:

    [[error_rules]]
    error = "RequestThrottled"
    queue = "orders"                   # optional: every call; and operation, probability, after, count, entries, seed
    operation = "SendMessage"
    [kms_keys]
    "alias/aws/sqs" = "disabled"

A `[server]` table gives options by the command line's names (server/options.py),
below flags and the environment:

    [server]
    clock = "manual"
    purge_cooldown = 0
"""

import json
import logging
import tomllib

from emulator import api
from emulator.engine import attributes as queue_attributes
from emulator.engine import redrive
from emulator.errors import SqsError
from emulator.events.spec import FIELDS as EVENT_SOURCE_FIELDS
from emulator.events.spec import MappingError
from emulator.server import elasticmq
from emulator.server.admin.error_rules import error_rule
from emulator.server.admin.routes import fault_policy
from emulator.server.auth import Credential
from emulator.server.identity import valid_account_id

log = logging.getLogger(__name__)

QUEUE_KEYS = {"name", "account", "region", "attributes", "tags", "faults"}
EVENT_SOURCE_KEYS = {"queue", "account", "region", *EVENT_SOURCE_FIELDS}
DOCUMENT_KEYS = ("admin", "credentials", "error_rules", "event_sources", "kms_keys", "queues", "server")
CREDENTIAL_KEYS = {"access_key", "secret_key", "account"}
JSON_ATTRIBUTES = ("RedrivePolicy", "RedriveAllowPolicy", "Policy")


class ConfigError(Exception):
    """The file cannot be applied; the message names the file, the queue and the key."""


class _Entry:
    def __init__(self, path: str, number: int, raw, account: str, region: str):
        where = f"{path}: queues[{number}]"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: each [[queues]] entry is a table")
        unknown = sorted(raw.keys() - QUEUE_KEYS)
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(QUEUE_KEYS))})")
        for key in ("name", "account", "region"):
            if key in raw and not isinstance(raw[key], str):
                raise ConfigError(f"{where}: {key} must be a string")
        if "name" not in raw:
            raise ConfigError(f"{where}: a queue needs a name")
        self.name, self.account, self.region = raw["name"], raw.get("account", account), raw.get("region", region)
        self.where = f"{path}: queue {self.name!r}"
        self.tags = self._table(raw, "tags")
        faults = raw.get("faults")
        if faults is not None and not isinstance(faults, dict):
            raise ConfigError(f"{self.where}: faults must be a table")
        self.faults = (
            None
            if faults is None
            # A FIFO queue's name ends in .fifo (AWS's rule), so the name tells before it exists.
            else fault_policy(
                faults, lambda message: ConfigError(f"{self.where}: faults: {message}"), self.name.endswith(".fifo")
            )
        )
        self.attributes = {name: self._attribute(name, value) for name, value in self._table(raw, "attributes").items()}
        policy = self.attributes.get("RedrivePolicy")
        self.dead_letter_target = None
        if policy:
            try:
                parsed = json.loads(policy)
                target = parsed.get("deadLetterTargetArn") if isinstance(parsed, dict) else None
            except (ValueError, RecursionError):
                target = None  # CreateQueue gives AWS's error for it
            if isinstance(target, str) and target and not redrive.ARN.fullmatch(target):
                self.dead_letter_target = target  # a queue's name
                parsed["deadLetterTargetArn"] = f"arn:aws:sqs:{self.region}:{self.account}:{target}"
                self.attributes["RedrivePolicy"] = json.dumps(parsed)

    def _table(self, raw: dict, key: str) -> dict:
        value = raw.get(key, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{self.where}: {key} must be a table of names to values")
        return value

    def _attribute(self, name: str, value) -> str:
        if isinstance(value, dict) and name in JSON_ATTRIBUTES:
            return json.dumps(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int)):
            return str(value)
        raise ConfigError(f"{self.where}: attributes.{name} must be a string or a number")


def load(path: str, account: str, region: str) -> list[_Entry]:
    """The file's queues in the order they can be created (dead-letter targets first)."""
    return _queues(path, _read(path), account, region)


def _read(path: str, queues: bool = True) -> dict:
    """The file's document. An ElasticMQ file has only queues: read (and warned about) when
    `queues` asks, so that one start, which also reads [server], warns once."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it: {error.strerror}") from None
    if elasticmq.is_hocon(path, data):  # ElasticMQ's file, as it is
        return {"queues": elasticmq.queues(path, data, ConfigError)} if queues else {}
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    unknown = sorted(document.keys() - set(DOCUMENT_KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(DOCUMENT_KEYS)})")
    return document


def server_table(path: str) -> dict:
    """The file's [server] table of options, as written (options.from_table reads it)."""
    server = _read(path, queues=False).get("server", {})
    if not isinstance(server, dict):
        raise ConfigError(f"{path}: server must be a table, written [server]")
    return server


def credentials(path: str, default_account: str) -> tuple[dict[str, Credential], str | None]:
    """The file's access keys (by key) and its admin token, for --require-auth."""
    document = _read(path, queues=False)
    raw = document.get("credentials", [])
    if not isinstance(raw, list):
        raise ConfigError(f"{path}: credentials must be an array of tables, written [[credentials]]")
    keys: dict[str, Credential] = {}
    for number, entry in enumerate(raw):
        where = f"{path}: credentials[{number}]"
        if not isinstance(entry, dict) or entry.keys() - CREDENTIAL_KEYS:
            raise ConfigError(f"{where}: each entry is a table of {', '.join(sorted(CREDENTIAL_KEYS))}")
        values = {"account": default_account, **entry}
        if not all(isinstance(values.get(key), str) and values[key] for key in CREDENTIAL_KEYS):
            raise ConfigError(f"{where}: access_key and secret_key are non-empty strings")
        if not valid_account_id(values["account"]):
            raise ConfigError(f"{where}: account must be 12 digits")
        if values["access_key"] in keys:
            raise ConfigError(f"{where}: access_key {values['access_key']!r} is given twice")
        keys[values["access_key"]] = Credential(values["access_key"], values["secret_key"], values["account"])
    admin = document.get("admin", {})
    token = admin.get("token") if isinstance(admin, dict) else None
    if (
        not isinstance(admin, dict)
        or admin.keys() - {"token"}
        or not (token is None or (isinstance(token, str) and token))
    ):
        raise ConfigError(f"{path}: admin is a table with one key, token, a non-empty string")
    return keys, token


def _queues(path: str, document: dict, account: str, region: str) -> list[_Entry]:
    queues = document.get("queues", [])
    if not isinstance(queues, list):
        raise ConfigError(f"{path}: queues must be an array of tables, written [[queues]]")
    entries = [_Entry(path, number, raw, account, region) for number, raw in enumerate(queues)]
    return _dependency_order(entries)


def _dependency_order(entries: list[_Entry]) -> list[_Entry]:
    in_file = {(e.account, e.region, e.name) for e in entries}
    ordered, done, waiting = [], set(), list(entries)
    while waiting:
        ready = [
            e
            for e in waiting
            if e.dead_letter_target is None
            or (e.account, e.region, e.dead_letter_target) in done
            or (e.account, e.region, e.dead_letter_target) not in in_file
        ]
        if not ready:
            raise ConfigError(f"{waiting[0].where}: attributes.RedrivePolicy: dead-letter queues form a cycle")
        for entry in ready:
            ordered.append(entry)
            done.add((entry.account, entry.region, entry.name))
            waiting.remove(entry)
    return ordered


def apply(path: str, broker, account: str, region: str, event_sources=None) -> None:
    """Create the file's missing queues; leave existing ones, warning where they differ;
    set the fault policies the file gives; then start its event sources."""
    document = _read(path)
    sources = _event_source_tables(path, document)
    for entry in _queues(path, document, account, region):
        try:
            existing = broker.get_queue(entry.account, entry.region, entry.name)
        except SqsError:
            existing = None
        if existing is not None:
            try:
                queue_attributes.validate(entry.attributes, existing.fifo)
            except SqsError as error:
                raise ConfigError(f"{entry.where}: {error.name}: {error.message}") from None
            differing = existing.differing_attribute(entry.attributes)
            if differing:
                log.warning(
                    "%s: attributes.%s: the queue exists with %s = %r; kept it as it is",
                    entry.where,
                    differing,
                    differing,
                    existing.attributes.get(differing),
                )
        else:
            _create(entry, broker, region)
        if entry.faults is not None:
            broker.get_queue(entry.account, entry.region, entry.name).faults = entry.faults
    _set_errors(path, document, broker, account, region)
    for number, raw in enumerate(sources if event_sources is not None else ()):
        _start_event_source(f"{path}: event_sources[{number}]", raw, broker, account, region, event_sources)


def _set_errors(path: str, document: dict, broker, account: str, region: str) -> None:
    """The file's [[error_rules]] and [kms_keys], each checked as the admin API checks it."""
    tables = document.get("error_rules", [])
    if not isinstance(tables, list) or not all(isinstance(raw, dict) for raw in tables):
        raise ConfigError(f"{path}: error_rules must be an array of tables, written [[error_rules]]")
    keys = document.get("kms_keys", {})
    if not isinstance(keys, dict) or not all(isinstance(state, str) for state in keys.values()):
        raise ConfigError(f'{path}: kms_keys must be a table of keys to states, e.g. "alias/aws/sqs" = "disabled"')
    rules = [
        error_rule(
            raw,
            lambda message, number=number: ConfigError(f"{path}: error_rules[{number}]: {message}"),
            lambda: _context(broker, account, region, region),
        )
        for number, raw in enumerate(tables)
    ]

    def set_all(errors) -> None:
        for rule in rules:
            errors.add(rule)
        for key, state in keys.items():
            try:
                errors.set_key(key, state)
            except ValueError as problem:
                raise ConfigError(f"{path}: kms_keys.{key}: {problem}") from None

    broker.errors(set_all)


def _event_source_tables(path: str, document: dict) -> list[dict]:
    sources = document.get("event_sources", [])
    if not isinstance(sources, list) or not all(isinstance(raw, dict) for raw in sources):
        raise ConfigError(f"{path}: event_sources must be an array of tables, written [[event_sources]]")
    for number, raw in enumerate(sources):
        where = f"{path}: event_sources[{number}]"
        unknown = sorted(raw.keys() - EVENT_SOURCE_KEYS)
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(EVENT_SOURCE_KEYS))})")
        for key in ("queue", "account", "region"):
            if key in raw and not isinstance(raw[key], str):
                raise ConfigError(f"{where}: {key} must be a string")
        if not raw.get("queue"):
            raise ConfigError(f"{where}: queue: an event source needs a queue (a name or URL)")
    return sources


def _start_event_source(where: str, raw: dict, broker, account: str, region: str, event_sources) -> None:
    ctx = _context(broker, raw.get("account", account), raw.get("region", region), region)
    try:
        queue = ctx.queue(raw["queue"])
    except SqsError:
        raise ConfigError(f"{where}: queue: no queue {raw['queue']!r}") from None
    fields = {key: value for key, value in raw.items() if key not in ("queue", "account", "region")}
    try:
        event_sources.create(queue, fields)
    except MappingError as error:
        raise ConfigError(f"{where}: {error}") from None
    log.info("%s: polling %s", where, queue.name)


def _context(broker, account: str, region: str, default_region: str) -> api.Context:
    return api.Context(
        broker=broker,
        account=account,
        region=region,
        base_url="http://localhost",
        default_region=default_region,
        sender_id=account,
    )


def _create(entry: _Entry, broker, region: str) -> None:
    ctx = _context(broker, entry.account, entry.region, region)
    params = {"QueueName": entry.name, "Attributes": entry.attributes, "tags": entry.tags}
    try:
        api.dispatch(ctx, "CreateQueue", params)
    except SqsError as error:
        hint = ""
        if entry.name.endswith(".fifo") and entry.attributes.get("FifoQueue", "").lower() != "true":
            hint = " (a .fifo name is a FIFO queue's: add attributes = { FifoQueue = true })"
        raise ConfigError(f"{entry.where}: {error.name}: {error.message}{hint}") from None
    log.info("%s: created", entry.where)
