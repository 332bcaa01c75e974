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

Unlike the command line's defaults (AWS's), PurgeQueue may repeat and a deleted
queue's name may be re-created at once (purge_cooldown=0, recreate_cooldown=0):
test suites do both between tests. Pass 60 for AWS's rules.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from emulator.inspect.client import AdminApiError, AdminClient

HOST = "127.0.0.1"
POLL_INTERVAL = 0.01  # seconds between two looks of wait_for_message


class EmulatorServer:
    """A running emulator; stop() (or leaving its `with` block) ends it."""

    def __init__(
        self,
        port: int = 0,
        clock: str = "manual",
        account_id: str = "000000000000",
        region: str = "us-east-1",
        purge_cooldown: float = 0,
        recreate_cooldown: float = 0,
        receipts: str = "aws",
    ):
        from emulator.server.build import Options, build  # here, so that `from emulator import serve` stays light

        self._emulator = build(
            Options(
                host=HOST,
                port=port,
                account_id=account_id,
                region=region,
                clock=clock,
                purge_cooldown=purge_cooldown,
                recreate_cooldown=recreate_cooldown,
                receipts=receipts,
            )
        )
        self.account_id = account_id
        self.region = region
        self.clock = clock
        self.broker = self._emulator.broker
        self.app = self._emulator.app
        server = self._emulator.http
        assert server is not None  # build() listens unless told not to
        self._server = server
        self.port = self._server.server_port
        self.endpoint_url = f"http://{HOST}:{self.port}"
        self.admin = AdminClient(self.endpoint_url)
        self._stopped = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, name=f"sqs-emulator:{self.port}", daemon=True
        )
        self._thread.start()

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
        """Delete every queue and all state (the clock keeps its time)."""
        self.admin.reset()

    def queues(self) -> list[dict]:
        return self.admin.queues()

    def peek(self, queue: str, state: str = "all", limit: int | None = 100) -> list[dict]:
        """A queue's messages (URL or name) without receiving them."""
        return self.admin.peek(queue, state, limit)

    def faults(self, queue: str, **fields) -> dict | None:
        """With fields (duplicate_delivery, lost_delete, delayed_visibility_seconds,
        seed), set the queue's fault policy; returns the policy in force."""
        if fields:
            return self.admin.set_faults(queue, **fields)
        return self.admin.faults(queue)

    def clear_faults(self, queue: str | None = None) -> None:
        self.admin.clear_faults(queue)

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


def serve(
    port: int = 0,
    clock: str = "manual",
    account_id: str = "000000000000",
    region: str = "us-east-1",
    purge_cooldown: float = 0,
    recreate_cooldown: float = 0,
    receipts: str = "aws",
) -> EmulatorServer:
    """Start the emulator on 127.0.0.1:`port` (0: a free port) in a background
    thread, in memory; use it as a context manager, or call .stop()."""
    return EmulatorServer(port, clock, account_id, region, purge_cooldown, recreate_cooldown, receipts)
