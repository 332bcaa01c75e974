"""The writer: changes to one message coalesce while they wait, a purge or delete
ends that, every batch is one commit, and close writes what is pending."""

import threading

import pytest
from engine_support import ACCOUNT, REGION, T0, make_message, send
from store_support import close, durable, open_broker, rows

from emulator.engine.clock import ManualClock
from emulator.store.opening import open_database
from emulator.store.rows import (
    SKIPPED,
    AddMessage,
    ChangeMessage,
    EmptyQueue,
    RemoveMessage,
    SaveQueue,
)
from emulator.store.writer import Writer

QUEUE = SaveQueue(1, ACCOUNT, REGION, "q", 0, "{}", "{}", 0, 0, None, None)


@pytest.fixture
def writer(tmp_path):
    """A writer on a fresh file, its thread not started: what it holds can be looked at."""
    db = open_database(str(tmp_path / "sqs.db"), "off")
    writer = Writer(db, str(tmp_path / "sqs.db"), "interval", 3600)
    writer.report(QUEUE)
    yield writer
    writer.close()
    db.close()


def written(writer, tmp_path, sql):
    writer.start(ManualClock(T0))
    writer.close()  # writes the batch
    return rows(tmp_path, sql)


def stored(seq: int):
    """A visible message as a queue numbered it."""
    message = make_message(str(seq))
    message.seq = seq
    return message


def test_a_change_before_the_insert_is_written_rewrites_the_insert(writer, tmp_path):
    writer.message_added(AddMessage(1, stored(1)))
    writer.message_changed(1, 1, ("inflight", 1, T0, "n", T0, T0 + 30))
    assert [type(change) for change in writer._changes] == [SaveQueue, AddMessage]
    assert written(writer, tmp_path, "SELECT seq, state, receive_count, nonce FROM messages") == [
        (1, "inflight", 1, "n")
    ]


def test_changes_of_a_written_message_coalesce_and_a_delete_takes_their_place(writer, tmp_path):
    writer.message_changed(1, 7, ("inflight", 1, T0, "a", T0, T0 + 30))
    writer.message_changed(1, 7, ("inflight", 2, T0, "b", T0, T0 + 30))
    (change,) = writer._changes[1:]
    assert type(change) is ChangeMessage and change.params() == ("inflight", 2, T0, "b", T0, T0 + 30, 1, 7)
    writer.message_removed(1, 7)
    assert writer._changes[1:] == [RemoveMessage(1, 7)]


def test_a_message_added_and_removed_in_one_batch_writes_nothing_but_its_number(writer, tmp_path):
    writer.message_added(AddMessage(1, stored(1)))
    writer.message_removed(1, 1)
    assert writer._changes[1:] == [SKIPPED]
    assert written(writer, tmp_path, "SELECT count(*) FROM messages") == [(0,)]
    assert rows(tmp_path, "SELECT seq FROM queues") == [(1,)]  # the number stays used


def test_after_a_purge_changes_no_longer_rewrite_what_came_before_it(writer, tmp_path):
    writer.message_added(AddMessage(1, stored(1)))
    writer.report_clearing(EmptyQueue(1), 1)
    writer.message_changed(1, 1, ("inflight", 1, T0, "n", T0, T0 + 30))
    writer.message_removed(1, 1)
    assert [type(change) for change in writer._changes] == [SaveQueue, AddMessage, EmptyQueue, RemoveMessage]
    assert writer._changes[1].delivery[0] == "visible"
    assert written(writer, tmp_path, "SELECT count(*) FROM messages") == [(0,)]


def test_a_message_sent_and_deleted_before_a_write_never_reaches_the_file(tmp_path):
    broker, store = open_broker(tmp_path, "off", interval_ms=3_600_000)  # no write until close
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    kept = send(queue, "kept")
    send(queue, "gone")
    delivery = queue.receive(2, 30, 0)
    gone = next(d for d in delivery if d.message.body == "gone")
    queue.delete(gone.receipt_handle)
    pending = [type(change) for change in store._writer._changes]
    close(broker, store)
    assert pending.count(AddMessage) == 1 and type(SKIPPED) in pending and ChangeMessage not in pending
    assert rows(tmp_path, "SELECT id, state, receive_count FROM messages") == [(kept.id, "inflight", 1)]
    assert rows(tmp_path, "SELECT seq FROM queues") == [(2,)]  # the deleted message's number stays used


def test_sync_always_replies_wait_for_a_commit_and_concurrent_requests_share_one(tmp_path):
    broker, store = open_broker(tmp_path, "always")
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    durable(store)
    commits = []
    writer = store._writer
    write = writer._write

    def counted(changes, seqs):
        commits.append(len(changes))
        write(changes, seqs)

    writer._write = counted
    start = threading.Barrier(8)

    def request():
        start.wait()
        for _ in range(25):
            send(queue)
            durable(store)
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


@pytest.mark.parametrize("mode", ["always", "interval", "off"])
def test_close_writes_everything_pending_in_each_mode(tmp_path, mode):
    broker, store = open_broker(tmp_path, mode, interval_ms=3_600_000)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    for i in range(50):
        send(queue, str(i))
    close(broker, store)
    assert rows(tmp_path, "SELECT count(*) FROM messages") == [(50,)]
