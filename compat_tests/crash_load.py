"""The crash test's load (compat_tests/persistence/test_persistence_crash.py), also what the benchmark's
store_kill figure kills a server under (bench/figures/store_kill.py): boto3 clients that send,
receive and delete until the server goes away, noting when each send and delete was
acknowledged. It imports nothing of the tests' harness, so the benchmark can run it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

WORKERS = 4
HANG = 120  # seconds: only a load that stopped making progress takes this long
INTERVAL_MS = 100  # the --sync-interval-ms of the interval runs
# The window plus one commit's time on a slow, busy CI machine.
INTERVAL_MARGIN = INTERVAL_MS / 1000 + 0.5


class Load:
    """WORKERS threads, each with its own client from `make_client`, sending batches of 5 and
    (with `receive`) receiving 4 and deleting 3 of them, until the server goes away."""

    def __init__(self, make_client: Callable[[], Any], url: str, receive: bool):
        self.url = url
        self.sent: dict[str, float] = {}  # message id -> when its send was acknowledged
        self.deleted: dict[str, float] = {}  # message id -> when its delete was acknowledged
        self.deleting: set[str] = set()  # deletes asked for: the kill may cut one off after it happened
        self.held: set[str] = set()  # received and never to be deleted: a send they came from stays kept
        self._lock = threading.Lock()
        self._acked = threading.Condition(self._lock)  # notified at each acknowledgement
        self._make_client = make_client
        self._receive = receive
        self._threads = [threading.Thread(target=self._work, args=(n,)) for n in range(WORKERS)]

    def start(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def wait_until(self, enough: Callable[[Load], bool]) -> None:
        """Block until enough(self) holds, checked at each acknowledgement; fail if the load hangs."""
        with self._acked:
            if not self._acked.wait_for(lambda: enough(self), timeout=HANG):
                raise AssertionError("the load stopped making progress")

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=60)

    def _work(self, worker: int) -> None:
        sqs = self._make_client()
        n = 0
        try:
            while True:
                n += 1
                entries = [{"Id": str(i), "MessageBody": f"{worker}-{n}-{i}"} for i in range(5)]
                reply = sqs.send_message_batch(QueueUrl=self.url, Entries=entries)
                acked = time.monotonic()
                with self._lock:
                    # A reply the kill cut short may parse as empty: nothing in it was acknowledged.
                    self.sent.update((entry["MessageId"], acked) for entry in reply.get("Successful", []))
                    self._acked.notify_all()
                if not self._receive:
                    continue
                messages = sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=4).get("Messages", [])
                with self._lock:
                    self.held.update(message["MessageId"] for message in messages[3:])
                for message in messages[:3]:  # one stays in flight
                    with self._lock:
                        self.deleting.add(message["MessageId"])
                    sqs.delete_message(QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"])
                    acked = time.monotonic()
                    with self._lock:
                        self.deleted[message["MessageId"]] = acked
                        self._acked.notify_all()
        except (BotoCoreError, ClientError, OSError):
            return  # the server was killed


def drain(client, url: str) -> set[str]:
    """Receive and delete until the queue answers empty; the ids of what came."""
    left: set[str] = set()
    while True:
        messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return left
        left.update(m["MessageId"] for m in messages)
        client.delete_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
        )
