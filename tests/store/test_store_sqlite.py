"""Engine + SQLite store, in process: the journal's reports reach the file as the
engine made them, and come back on a restart. The parts alone are in
test_store_rows.py, test_store_writer.py and test_store_recovery.py; the same
behaviour through real clients and restarts is in compat_tests/test_persistence*.py."""

import os

import pytest
from engine_support import ACCOUNT, REGION, make_message, send
from store_support import close, open_broker, rows

from emulator.engine.message import State
from emulator.store import SqliteStore, StoreError


def test_binary_attributes_and_every_delivery_field_come_back(tmp_path):
    broker, store = open_broker(tmp_path)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {"VisibilityTimeout": "100"})
    message = make_message("b")
    message.attributes = {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\xff"}}
    queue.send([(message, 0)])
    queue.receive(1, 100, 0)
    close(broker, store)
    broker, store = open_broker(tmp_path)
    restored = broker.get_queue(ACCOUNT, REGION, "q")._messages[message.seq]
    assert restored.attributes == {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\xff"}}
    assert (restored.state, restored.receive_count, restored.nonce, restored.due) == (
        State.INFLIGHT,
        1,
        message.nonce,
        message.due,
    )
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


def test_a_reset_empties_the_file_and_later_queues_take_new_ids(tmp_path):
    broker, store = open_broker(tmp_path)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    send(queue)
    broker.reset()
    queue, _ = broker.create_queue(ACCOUNT, REGION, "after", {})
    send(queue, "kept")
    close(broker, store)
    assert rows(tmp_path, "SELECT id, name FROM queues") == [(2, "after")]
    assert rows(tmp_path, "SELECT queue_id, body FROM messages") == [(2, "kept")]


def test_a_failed_chmod_is_a_store_error_not_an_os_error(tmp_path, monkeypatch):
    # An OSError reached the command line, which reports OSError as a bad --host ("cannot listen there").
    close(*open_broker(tmp_path))
    (tmp_path / "sqs.db").chmod(0o644)  # as an older version left it

    def refuse(path, mode):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chmod", refuse)
    with pytest.raises(StoreError, match=r"cannot make .*sqs.db private \(chmod 600\): Operation not permitted"):
        SqliteStore(str(tmp_path))
