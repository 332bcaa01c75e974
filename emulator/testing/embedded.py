"""The emulator in-process: a server on a background thread, for scripts and
test suites that do not use the pytest plugin.

    from emulator import serve

    with serve() as server:                     # 127.0.0.1, a free port, manual clock, in memory
        sqs = server.client()                   # a boto3 SQS client for it
        url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="hello")
        sqs.receive_message(QueueUrl=url)       # in flight for 30 s ...
        server.advance(31)                      # ... or not: time moves at once
        server.peek("jobs")                     # look without receiving
        server.event_source("jobs", handler)    # Lambda-style: handler(event, context) gets batches

Unlike the command line's defaults (AWS's), PurgeQueue may repeat and a deleted
queue's name may be re-created at once (purge_cooldown=0, recreate_cooldown=0):
test suites do both between tests. Pass 60 for AWS's rules.

Each keyword is the command line's option of that name (server/options.py), read
and refused alike. A `config` file's queues are created, and its `[server]`
options apply where no keyword is given, above serve()'s own defaults:

    with serve(config="queues.toml", long_poll_cap=0.1) as server: ...
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from emulator.errors import SqsError
from emulator.inspect.client import AdminApiError, AdminClient

if TYPE_CHECKING:
    from emulator.server.build import Options

HOST = "127.0.0.1"
# Where serve() differs from the command line: a free port, time moved by the test, no cooldowns.
# And the garbage collector left alone: the process is the caller's (serve(tune_gc=True) asks for it).
DEFAULTS = {"port": 0, "clock": "manual", "purge_cooldown": 0.0, "recreate_cooldown": 0.0, "tune_gc": False}
POLL_INTERVAL = 0.01  # seconds between two looks of wait_for_message


class EmulatorServer:
    """A running emulator; stop() (or leaving its `with` block) ends it."""

    def __init__(self, options: Options):
        # here, so that `from emulator import serve` stays light
        from emulator.server.build import build
        from emulator.server.options import cannot_listen

        try:
            self._emulator = build(options)
        except OSError as error:  # the bind's, whichever server raised it: one line naming the keyword
            raise OSError(error.errno, cannot_listen(error, options.host, options.port, _keyword)) from None
        self.options = options
        self.account_id = options.account_id
        self.region = options.region
        self.clock = options.clock
        self.broker = self._emulator.broker
        self.app = self._emulator.app
        server = self._emulator.http
        assert server is not None  # build() listens unless told not to
        self._server = server
        self.port = self._server.server_port
        self.endpoint_url = f"http://{HOST}:{self.port}"
        self.admin = AdminClient(self.endpoint_url)
        self._stopped = False
        try:
            self._thread = self._server.start(f"sqs-emulator:{self.port}")
        except BaseException:
            self._emulator.close()
            raise

    def __repr__(self) -> str:
        return f"<EmulatorServer {self.endpoint_url} {self.clock} clock>"

    def __enter__(self) -> EmulatorServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving, release long polls, close the socket. Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self._server.shutdown()  # returns once serve_forever has
        self._thread.join()
        self._emulator.close()

    # -- the admin API ------------------------------------------------------------

    def advance(self, seconds: float) -> float:
        """Move the manual clock forward; returns its new reading (epoch seconds)."""
        return self.admin.advance(seconds)

    def reset(self) -> None:
        """Delete every queue and all state (the clock keeps its time), then create the
        config file's queues again: each test starts from the file."""
        self.admin.reset()
        if self.options.config:
            from emulator.server import config

            config.apply(self.options.config, self.broker, self.account_id, self.region)

    def queues(self) -> list[dict]:
        return self.admin.queues()

    def peek(self, queue: str, state: str = "all", limit: int | None = 100) -> list[dict]:
        """A queue's messages (URL or name) without receiving them."""
        return self.admin.peek(queue, state, limit)

    def faults(self, queue: str, **fields) -> dict | None:
        """With fields (duplicate_delivery, lost_delete, delayed_visibility_seconds,
        loose, seed), set the queue's fault policy; returns the policy in force."""
        if fields:
            return self.admin.set_faults(queue, **fields)
        return self.admin.faults(queue)

    def clear_faults(self, queue: str | None = None) -> None:
        self.admin.clear_faults(queue)

    def error_rule(self, error: str, **fields) -> dict:
        """Answer matching SQS calls with AWS's `error` (RequestThrottled, InternalError,
        ServiceUnavailable, KmsDisabled, any error of SQS's model) instead of running them.
        Fields: queue, operation, probability, after, count, entries, seed, message (the
        admin API's, POST /_emulator/error-rules); returns the rule with its id."""
        return self.admin.add_error_rule(error, **fields)

    def error_rules(self) -> dict:
        """The error rules in force (each with `matched` and `fired`) and the KMS keys' states."""
        return self.admin.error_rules()

    def clear_error_rules(self, rule_id: int | None = None) -> None:
        self.admin.clear_error_rules(rule_id)

    def kms_key(self, key: str, state: str) -> dict:
        """Set a KMS key's state: sends and receives on the queues it encrypts answer its Kms* error."""
        return self.admin.set_kms_key(key, state)

    def history(self, message_id: str) -> list[dict]:
        """A message's story (sent, each receive, visibility changes, delete, dead-letter
        move, injected faults ...), oldest event first, each event naming its `queue`;
        still there a while after the delete. AdminApiError 404 when no queue kept it."""
        return self.admin.history(message_id)

    def summary(self) -> dict:
        """What the plugin's end-of-test summary names: received_more_than_once,
        stale_deletes, dead_lettered, empty_short_polls."""
        return self.admin.history_summary()

    def wait_for_message(
        self,
        queue: str,
        predicate: Callable[[dict], bool] = lambda message: True,
        timeout: float = 5.0,
        state: str = "all",
    ) -> dict:
        """The first message of the queue (peeked, so not consumed) that matches
        `predicate`, once there is one; TimeoutError after `timeout` real seconds.
        For code under test that sends from another thread or process; a queue
        that does not exist yet counts as one without the message."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                for message in self.admin.iter_messages(queue, state):
                    if predicate(message):
                        return message
                missing = ""
            except AdminApiError as error:
                if error.status != 404:
                    raise
                missing = f" ({error.error})"  # the code under test may not have created it yet
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no matching message in {queue} after {timeout:g} s{missing}")
            time.sleep(POLL_INTERVAL)

    # -- event source mappings (emulator/events/) ------------------------------------

    def event_source(self, queue: str, handler, **fields) -> dict:
        """Poll `queue` (URL or name) and invoke `handler` with batches in Lambda's SQS
        event shape, as a Lambda event source mapping does. `handler` is a function
        (event, context), "package.module:function", an http(s) URL or a command list;
        `fields` are the admin API's (batch_size=10, batching_window_seconds=0,
        report_batch_item_failures=False, maximum_concurrency=None, filters=[],
        enabled=True, timeout_seconds=3). Returns the mapping, with its "id".
        Raises ValueError (MappingError) naming a bad field, LookupError for no queue."""
        name = queue.rstrip("/").rsplit("/", 1)[-1]
        account = queue.rstrip("/").rsplit("/", 2)[-2] if "://" in queue else self.account_id
        try:
            found = self.broker.get_queue(account, self.region, name)
        except SqsError:
            raise LookupError(f"no queue {queue}") from None
        return self._mapping(self.app.event_sources.create(found, {"target": handler, **fields}))

    def event_sources(self) -> list[dict]:
        """Every mapping, with its counters (invocations, records, failures, ...)."""
        return [self._mapping(mapping) for mapping in self.app.event_sources.all()]

    def _mapping(self, mapping) -> dict:
        return {"queue": f"{self.endpoint_url}/{mapping.queue.account}/{mapping.queue.name}", **mapping.describe()}

    def delete_event_source(self, mapping_id: str) -> None:
        self.app.event_sources.delete(mapping_id)

    def wait_for_event_source(self, mapping_id: str, predicate: Callable[[dict], bool], timeout: float = 5.0) -> dict:
        """The mapping's counters once predicate(counters) holds, e.g.
        ``lambda c: c["invocations"] >= 2``; TimeoutError after `timeout` real seconds.
        Its poller and invocations run on threads of their own."""
        deadline = time.monotonic() + timeout
        while True:
            counters = self.app.event_sources.get(mapping_id).stats.as_dict()
            if predicate(counters):
                return counters
            if time.monotonic() >= deadline:
                raise TimeoutError(f"event source {mapping_id}: no match after {timeout:g} s: {counters}")
            time.sleep(POLL_INTERVAL)

    def client(self, region: str | None = None):
        """A boto3 SQS client for this server (dummy credentials test/test)."""
        import boto3

        return boto3.session.Session().client(
            "sqs",
            endpoint_url=self.endpoint_url,
            region_name=region or self.region,
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )


def _keyword(option: str, value) -> str:
    return f"serve({option}={value!r})"


def serve(
    port: int | None = None,
    clock: str | None = None,
    account_id: str | None = None,
    region: str | None = None,
    purge_cooldown: float | None = None,
    recreate_cooldown: float | None = None,
    receipts: str | None = None,
    *,
    config: str | None = None,
    auto_create: bool | None = None,
    long_poll_cap: float | None = None,
    queue_urls: str | None = None,
    tune_gc: bool | None = None,
    loose: bool | None = None,
    loose_seed: int | None = None,
    histories: int | None = None,
) -> EmulatorServer:
    """Start the emulator on 127.0.0.1:`port` in a background thread, in memory; use it
    as a context manager, or call .stop(). A keyword left out (None) takes the config
    file's [server] value, else serve()'s default: port 0 (a free port), the manual
    clock, no cooldowns; else the command line's. long_poll_cap: the most real seconds
    an empty long poll waits; queue_urls: aws, path or host (docs/guides/usage.md, "How queue URLs are formed");
    tune_gc: apply the command line's garbage-collector policy to this process (off: the
    process is the caller's; emulator/server/collector.py); loose: standard queues as loose as
    AWS's, seeded with loose_seed (docs/guides/testing.md, "Loose standard queues"); histories: the stories kept per queue (0: none).
    Bad values raise ValueError
    (OptionError), a bad file ConfigError."""
    given = {
        "port": port,
        "clock": clock,
        "account_id": account_id,
        "region": region,
        "purge_cooldown": purge_cooldown,
        "recreate_cooldown": recreate_cooldown,
        "receipts": receipts,
        "config": config,
        "auto_create": auto_create,
        "long_poll_cap": long_poll_cap,
        "queue_urls": queue_urls,
        "tune_gc": tune_gc,
        "loose": loose,
        "loose_seed": loose_seed,
        "histories": histories,
    }
    return EmulatorServer(options_for({name: value for name, value in given.items() if value is not None}))


def options_for(given: dict[str, Any]) -> Options:
    """serve()'s options: `given` over the config file's [server] table over DEFAULTS;
    always on 127.0.0.1."""
    from emulator.server import config, options
    from emulator.server.build import Options

    path = given.get("config")
    in_file = options.from_table(config.server_table(path), f"{path}: [server]") if path else {}
    return Options(**{**DEFAULTS, **in_file, **given, "host": HOST})
