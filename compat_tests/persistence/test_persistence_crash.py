"""What a SIGKILL may lose: nothing acknowledged with --sync always, at most the
window with --sync interval. A load of concurrent boto3 clients (crash_load.py,
which the benchmark's store_kill figure runs too) runs while the server is
killed; the restarted server is drained and compared with what the clients were
told. The load is sized by what the clients were told (enough acknowledgements
before the kill), never by a fixed time: a slow machine only makes it run longer."""

import time

import pytest

from compat_tests.conftest import TARGET
from compat_tests.crash_load import INTERVAL_MARGIN, INTERVAL_MS, Load, drain
from compat_tests.helpers import sqs_client
from compat_tests.restartable import Emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own data dir")

ACKNOWLEDGED = 100  # sends acknowledged before the kill, for the comparisons to mean something


def _run_and_kill(tmp_path, sync_options, receive: bool, enough):
    """Kill the server once enough(load) holds, while the load runs on the real clock
    (that is what a crash interrupts); then start it again on the same data dir."""
    emulator = Emulator(tmp_path, *sync_options).start()
    url = emulator.client.create_queue(QueueName="load", Attributes={"VisibilityTimeout": "3600"})["QueueUrl"]
    load = Load(lambda: sqs_client(emulator.server.url), url, receive).start()
    load.wait_until(enough)
    killed_at = time.monotonic()
    emulator.kill()
    load.join()
    emulator.start()
    emulator.advance(7200)  # every message still there is visible again
    return emulator, url, load, killed_at


def test_sync_always_loses_no_acknowledged_send_and_resurrects_no_acknowledged_delete(tmp_path):
    emulator, url, load, _ = _run_and_kill(
        tmp_path,
        ("--sync", "always"),
        receive=True,
        enough=lambda load: len(load.sent) >= ACKNOWLEDGED and load.deleted,
    )
    try:
        left = drain(emulator.client, url)
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
        left = drain(emulator.client, url)
        settled = killed_at - INTERVAL_MARGIN
        kept = {mid for mid, acked in load.sent.items() if acked < settled} - load.deleting
        gone = {mid for mid, acked in load.deleted.items() if acked < settled}
        assert len(kept) >= ACKNOWLEDGED
        assert kept <= left, f"{len(kept - left)} sends acknowledged before the window were lost"
        assert not gone & left, f"{len(gone & left)} deletes acknowledged before the window came back"
    finally:
        emulator.stop()
