"""What a SIGKILL may lose: nothing acknowledged with --sync always, at most the
window with --sync interval. A load of concurrent boto3 clients runs while the
server is killed; the restarted server is drained and compared with what the
clients were told. The load is sized by what the clients were told (enough
acknowledgements before the kill), never by a fixed time: a slow machine only
makes it run longer."""

import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from compat_tests.conftest import TARGET
from compat_tests.helpers import sqs_client
from compat_tests.persistence import Emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own data dir")

WORKERS = 4
ACKNOWLEDGED = 100  # sends acknowledged before the kill, for the comparisons to mean something
HANG = 120  # seconds: only a load that stopped making progress takes this long
INTERVAL_MS = 100
# The window plus one commit's time on a slow, busy CI machine.
INTERVAL_MARGIN = INTERVAL_MS / 1000 + 0.5


class Load:
    """Workers that send, receive and delete until the server goes away, noting
    when each send and delete was acknowledged."""

    def __init__(self, endpoint: str, url: str, receive: bool):
        self.url = url
        self.sent: dict[str, float] = {}  # message id -> when its send was acknowledged
        self.deleted: dict[str, float] = {}  # message id -> when its delete was acknowledged
        self.deleting: set[str] = set()  # deletes asked for: the kill may cut one off after it happened
        self.held: set[str] = set()  # received and never to be deleted: a send they came from stays kept
        self._lock = threading.Lock()
        self._acked = threading.Condition(self._lock)  # notified at each acknowledgement
        self._endpoint = endpoint
        self._receive = receive
        self._threads = [threading.Thread(target=self._work, args=(n,)) for n in range(WORKERS)]

    def start(self) -> "Load":
        for thread in self._threads:
            thread.start()
        return self

    def wait_until(self, enough) -> None:
        """Block until enough(self) holds, checked at each acknowledgement; fail if the load hangs."""
        with self._acked:
            assert self._acked.wait_for(lambda: enough(self), timeout=HANG), "the load stopped making progress"

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=60)

    def _work(self, worker: int) -> None:
        sqs = sqs_client(self._endpoint)
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


def _run_and_kill(tmp_path, sync_options, receive: bool, enough):
    """Kill the server once enough(load) holds, while the load runs on the real clock
    (that is what a crash interrupts); then start it again on the same data dir."""
    emulator = Emulator(tmp_path, *sync_options).start()
    url = emulator.client.create_queue(QueueName="load", Attributes={"VisibilityTimeout": "3600"})["QueueUrl"]
    load = Load(emulator.server.url, url, receive).start()
    load.wait_until(enough)
    killed_at = time.monotonic()
    emulator.kill()
    load.join()
    emulator.start()
    emulator.advance(7200)  # every message still there is visible again
    return emulator, url, load, killed_at


def _drain(emulator, url) -> set[str]:
    left = set()
    while True:
        messages = emulator.client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return left
        left.update(m["MessageId"] for m in messages)
        emulator.client.delete_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
        )


def test_sync_always_loses_no_acknowledged_send_and_resurrects_no_acknowledged_delete(tmp_path):
    emulator, url, load, _ = _run_and_kill(
        tmp_path,
        ("--sync", "always"),
        receive=True,
        enough=lambda load: len(load.sent) >= ACKNOWLEDGED and load.deleted,
    )
    try:
        left = _drain(emulator, url)
        lost = load.sent.keys() - load.deleting - left
        resurrected = load.deleted.keys() & left
        assert not lost, f"{len(lost)} acknowledged sends lost"
        assert not resurrected, f"{len(resurrected)} acknowledged deletes came back"
    finally:
        emulator.stop()


def test_sync_interval_loses_at_most_the_window(tmp_path):
    options = ("--sync", "interval", "--sync-interval-ms", str(INTERVAL_MS))

    def enough(load) -> bool:
        # Held messages never join `deleting`: those acknowledged a window ago stay in `kept` below.
        settled = time.monotonic() - INTERVAL_MARGIN
        return sum(1 for mid in load.held if load.sent.get(mid, settled) < settled) >= ACKNOWLEDGED

    emulator, url, load, killed_at = _run_and_kill(tmp_path, options, receive=True, enough=enough)
    try:
        left = _drain(emulator, url)
        settled = killed_at - INTERVAL_MARGIN
        kept = {mid for mid, acked in load.sent.items() if acked < settled} - load.deleting
        gone = {mid for mid, acked in load.deleted.items() if acked < settled}
        assert len(kept) >= ACKNOWLEDGED
        assert kept <= left, f"{len(kept - left)} sends acknowledged before the window were lost"
        assert not gone & left, f"{len(gone & left)} deletes acknowledged before the window came back"
    finally:
        emulator.stop()
