"""Engine + SQLite store, in process: what reaches the file, coalescing, group
commit, and recovery. The same behaviour through real clients and restarts is
in compat_tests/test_persistence*.py."""

import sqlite3
import threading

import pytest
from engine.engine_support import ACCOUNT, REGION, T0, counts, make_message, send

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.engine.message import State
from emulator.store import sqlite
from emulator.store.sqlite import SqliteStore


def open_broker(path, sync="interval"):
    store = SqliteStore(str(path), sync, interval_ms=10)
    broker = Broker(ManualClock(store.clock_time or T0), journal=store)
    store.recover(broker)
    return broker, store


def close(broker, store):
    broker.close()
    store.close()


def rows(path, sql):
    with sqlite3.connect(path / "sqs.db") as db:
        return db.execute(sql).fetchall()


def test_a_message_sent_and_deleted_before_a_write_never_reaches_the_file(tmp_path):
    broker, store = open_broker(tmp_path, "off")
    store._interval = 3600  # no write until close
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    kept = send(queue, "kept")
    send(queue, "gone")
    delivery = queue.receive(2, 30, 0)
    gone = next(d for d in delivery if d.message.body == "gone")
    queue.delete(gone.receipt_handle)
    pending = [change[0] for change in store._changes]
    close(broker, store)
    assert pending.count(sqlite.ADD) == 1 and sqlite.SKIP in pending and sqlite.CHANGE not in pending
    assert rows(tmp_path, "SELECT id, state, receive_count FROM messages") == [(kept.id, "inflight", 1)]
    assert rows(tmp_path, "SELECT seq FROM queues") == [(2,)]  # the deleted message's number stays used


def test_binary_attributes_and_every_delivery_field_come_back(tmp_path):
    broker, store = open_broker(tmp_path)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {"VisibilityTimeout": "100"})
    message = make_message("b")
    message.attributes = {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\xff"}}
    queue.send([(message, 0)])
    queue.receive(1, 100, 0)
    close(broker, store)
    broker, store = open_broker(tmp_path)
    restored = broker.get_queue(ACCOUNT, REGION, "q")._messages[message.id]
    assert restored.attributes == {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\xff"}}
    assert (restored.state, restored.receive_count, restored.nonce, restored.due) == (
        State.INFLIGHT, 1, message.nonce, message.due)
    close(broker, store)


def test_reports_for_a_deleted_queue_do_not_bring_it_back(tmp_path):
    broker, store = open_broker(tmp_path)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    broker.delete_queue(queue)
    store.queue_saved(queue)  # as a request that raced the delete would
    store.message_added(queue, send(broker.create_queue(ACCOUNT, REGION, "other", {})[0]))
    close(broker, store)
    broker, store = open_broker(tmp_path)
    assert [q.name for q in broker.all_queues()] == ["other"]
    close(broker, store)


def test_sync_always_replies_wait_for_a_commit_and_concurrent_requests_share_one(tmp_path):
    broker, store = open_broker(tmp_path, "always")
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    store.durable()
    commits = []
    write = store._write

    def counted(changes, seqs):
        commits.append(len(changes))
        write(changes, seqs)

    store._write = counted
    start = threading.Barrier(8)

    def request():
        start.wait()
        for _ in range(25):
            send(queue)
            store.durable()
            # durable() returned: the change is in the file, as another connection sees it
            assert rows(tmp_path, "SELECT count(*) FROM messages")[0][0] >= 1

    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert rows(tmp_path, "SELECT count(*) FROM messages") == [(200,)]
    assert sum(commits) == 200 and len(commits) < 200  # some commits carried several requests
    close(broker, store)


def test_recovery_on_a_later_clock_ends_visibility_and_delays_and_drops_expired_messages(tmp_path):
    broker, store = open_broker(tmp_path)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {"MessageRetentionPeriod": "600"})
    send(queue, "old")
    broker.clock.advance(300)
    send(queue, "delayed", delay=60)
    queue.receive(1, 30, 0)  # "old" in flight for 30 s
    close(broker, store)
    broker, store = open_broker(tmp_path)
    queue = broker.get_queue(ACCOUNT, REGION, "q")
    assert counts(queue) == (0, 1, 1)
    broker.clock.advance(301)  # old's retention (600 s) is over; delayed is visible
    assert counts(queue) == (1, 0, 0)
    close(broker, store)
    assert [r[0] for r in rows(tmp_path, "SELECT body FROM messages")] == ["delayed"]


@pytest.mark.parametrize("mode", ["always", "interval", "off"])
def test_close_writes_everything_pending_in_each_mode(tmp_path, mode):
    broker, store = open_broker(tmp_path, mode)
    store._interval = 3600
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    for i in range(50):
        send(queue, str(i))
    close(broker, store)
    assert rows(tmp_path, "SELECT count(*) FROM messages") == [(50,)]
