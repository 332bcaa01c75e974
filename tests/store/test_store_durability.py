"""Durability under --sync always: when_durable() tells a callback from the writer's
thread (durable() waits for it as the thread driver does); one commit answers every
caller waiting while it was being written; a failed write reaches every waiter."""

import queue as queues
import sqlite3
import threading

import pytest
from engine_support import ACCOUNT, REGION, send
from store_support import close, durable, open_broker, rows

from emulator.store import MEMORY, StoreError

HANG = 60  # seconds: only a writer that stopped takes this long


class Told:
    """A callback that notes what it was told, from which thread, and what the file held then."""

    def __init__(self, path=None):
        self.path = path  # None: the file is not looked at
        self.calls: queues.Queue = queues.Queue()

    def __call__(self, error):
        held = None if self.path is None else rows(self.path, "SELECT body FROM messages")
        self.calls.put((error, threading.current_thread().name, held))

    def next(self):
        return self.calls.get(timeout=HANG)


@pytest.fixture
def always(tmp_path):
    broker, store = open_broker(tmp_path, "always")
    queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
    durable(store)
    yield store, queue
    close(broker, store)


def test_memory_and_the_other_sync_policies_never_wait(tmp_path):
    told = Told(tmp_path)
    assert MEMORY.when_durable(told) is False
    for mode in ("interval", "off"):
        broker, store = open_broker(tmp_path / mode, mode, interval_ms=3_600_000)
        queue, _ = broker.create_queue(ACCOUNT, REGION, "q", {})
        send(queue)
        assert store.when_durable(told) is False
        durable(store)  # returns at once: nothing is written before close
        assert rows(tmp_path / mode, "SELECT count(*) FROM messages") == [(0,)]
        close(broker, store)
    assert told.calls.empty()


def test_the_callback_is_told_from_the_writer_once_the_change_is_in_the_file(tmp_path, always):
    store, queue = always
    told = Told(tmp_path)
    send(queue, "a")
    assert store.when_durable(told) is True
    assert told.next() == (None, "sqs-store-writer", [("a",)])
    assert store.when_durable(told) is False  # everything reported is committed: nothing to wait for
    assert told.calls.empty()


def test_one_commit_tells_every_caller_that_waited_while_the_one_before_was_written(tmp_path, always):
    store, queue = always
    writer = store._writer
    write, writing, release = writer._write, threading.Event(), threading.Event()
    commits = []

    def held(changes, seqs):  # the first write waits: what is reported meanwhile piles up
        commits.append(len(changes))
        writing.set()
        release.wait(HANG)
        write(changes, seqs)

    writer._write = held
    first = Told(tmp_path)
    send(queue, "first")
    assert store.when_durable(first) is True
    assert writing.wait(HANG)
    assert store.when_durable(first) is True  # nothing new: it waits for the batch being written
    others = Told(tmp_path)
    for i in range(20):
        send(queue, str(i))
        assert store.when_durable(others) is True
    release.set()
    assert first.next() == (None, "sqs-store-writer", [("first",)])
    assert first.next()[0] is None
    for _ in range(20):
        error, thread, bodies = others.next()
        assert (error, thread, len(bodies)) == (None, "sqs-store-writer", 21)
    assert commits == [1, 20]


def test_a_failed_write_reaches_the_waiting_callbacks_and_every_later_wait(tmp_path, always):
    store, queue = always
    with sqlite3.connect(tmp_path / "sqs.db") as other:
        other.execute("DROP TABLE messages")  # the writer's next insert fails
    told = Told()
    send(queue, "lost")
    assert store.when_durable(told) is True
    error, thread, _ = told.next()
    assert isinstance(error, StoreError) and "no such table: messages" in str(error) and thread == "sqs-store-writer"
    assert store.when_durable(told) is True  # told at once, before it returns
    assert isinstance(told.calls.get_nowait()[0], StoreError)
    with pytest.raises(StoreError, match="no such table"):
        durable(store)


def test_a_callback_that_raises_does_not_stop_the_writer(tmp_path, always, caplog):
    store, queue = always

    def broken(error):
        raise RuntimeError("a waiter's bug")

    send(queue, "a")
    assert store.when_durable(broken) is True
    told = Told(tmp_path)
    send(queue, "b")
    assert store.when_durable(told) is True
    assert told.next() == (None, "sqs-store-writer", [("a",), ("b",)])
    assert "durability callback failed" in caplog.text
