"""The SQLite store: everything under --data-dir, in one WAL-mode file, written by one thread
(opened and checked by opening.py).

The engine reports transitions under a queue's lock; each report becomes a
pending change in memory, and nothing else happens on the request's path. A
writer thread takes all pending changes at once and commits them in one
transaction, so one commit (one fsync) carries every request that arrived
while the previous one was being written: group commit.

Changes to one message coalesce while they wait: a receive after a send
rewrites the pending insert, and a delete of a message whose insert was not
written yet cancels both, so a message sent and deleted within one window
never reaches the disk.

Sync policies (--sync): `always` commits as soon as changes are pending and a
reply waits for its commit (durable()); `interval` commits every
--sync-interval-ms, so a crash loses at most that window; `off` commits on
the same interval without fsync, so the operating system decides and a power
cut may lose more (a killed process loses only the window).
"""

import base64
import gc
import itertools
import json
import logging
import os
import sqlite3
import threading
import weakref

from emulator.engine.message import Message, Sent, State
from emulator.store import SYNC_MODES, Store, StoreError, opening

log = logging.getLogger(__name__)

DB_FILE = "sqs.db"
PRUNE_EVERY = 60.0  # seconds (of the engine's clock) between deletes of expired dedup ids

# Kinds of pending change: the first item of each change list.
SKIP, QUEUE, DROP, EMPTY, ADD, CHANGE, REMOVE, DEDUP, TASK, RESET, CLOCK = range(11)
STATES = {state.value: state for state in State}
ADD_DELIVERY = 15  # where the delivery fields start in an ADD change
CHANGE_DELIVERY = 3  # and in a CHANGE change

MESSAGE_COLUMNS = (
    "queue_id, seq, id, body, attributes, system_attributes, md5_of_body, md5_of_attributes, group_id, "
    "dedup_id, sequence_number, sent_at, sender_id, dead_letter_source, "
    "state, receive_count, first_receive_at, nonce, received_at, due"
)

SQL = {
    QUEUE: [
        "INSERT INTO queues (id, account, region, name, fifo, attributes, tags, created_at, modified_at, purged_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET attributes = excluded.attributes, "
        "tags = excluded.tags, modified_at = excluded.modified_at, purged_at = excluded.purged_at"
    ],
    DROP: [
        "DELETE FROM messages WHERE queue_id = :id",
        "DELETE FROM dedup WHERE queue_id = :id",
        "DELETE FROM queues WHERE id = :id",
        "INSERT OR REPLACE INTO cooldowns VALUES (:account, :region, :name, :deleted_at)",
    ],
    EMPTY: ["DELETE FROM messages WHERE queue_id = ?", "DELETE FROM dedup WHERE queue_id = ?"],
    ADD: [f"INSERT OR REPLACE INTO messages ({MESSAGE_COLUMNS}) VALUES ({', '.join('?' * 20)})"],
    CHANGE: [
        "UPDATE messages SET state = ?, receive_count = ?, first_receive_at = ?, nonce = ?, received_at = ?, "
        "due = ? WHERE queue_id = ? AND seq = ?"
    ],
    REMOVE: ["DELETE FROM messages WHERE queue_id = ? AND seq = ?"],
    DEDUP: ["INSERT OR REPLACE INTO dedup VALUES (?, ?, ?, ?, ?)"],
    TASK: ["INSERT OR REPLACE INTO move_tasks VALUES (?, ?, ?)"],
    RESET: [f"DELETE FROM {table}" for table in ("messages", "dedup", "queues", "move_tasks", "cooldowns")],
    CLOCK: ["INSERT OR REPLACE INTO meta VALUES ('clock', ?)"],
}


def _params(change: list):
    """The SQL parameters of a pending change (its items after the kind)."""
    kind = change[0]
    if kind == CHANGE:
        return (*change[CHANGE_DELIVERY:], change[1], change[2])
    if kind == DROP:
        return dict(zip(("id", "account", "region", "name", "deleted_at"), change[1:]))
    return change[1:]


def _bytes_to_json(value):
    if isinstance(value, bytes):
        return {"$b64": base64.b64encode(value).decode()}
    raise TypeError(f"cannot store {type(value).__name__}")


def _json_to_bytes(obj: dict):
    # "$" is not allowed in a message attribute name, so no attribute is taken for a Binary value
    return base64.b64decode(obj["$b64"]) if obj.keys() == {"$b64"} else obj


def _dump(value) -> str | None:
    return json.dumps(value, default=_bytes_to_json, separators=(",", ":")) if value else None


def _load(text: str | None) -> dict:
    return json.loads(text, object_hook=_json_to_bytes) if text else {}


def _delivery(message: Message) -> tuple:
    return (message.state.value, message.receive_count, message.first_receive_at, message.nonce,
            message.received_at, message.due)


class SqliteStore(Store):
    def __init__(self, directory: str, sync: str = "interval", interval_ms: int = 100):
        if sync not in SYNC_MODES:
            raise ValueError(f"sync must be one of {SYNC_MODES}")
        self.directory = os.path.abspath(directory)
        self.path = os.path.join(self.directory, DB_FILE)
        self._sync = sync
        self._interval = interval_ms / 1000
        self._lock_file = opening.lock_directory(self.directory)
        try:
            self._db = opening.open_database(self.path, sync)
        except BaseException:
            self._lock_file.close()
            raise
        row = self._db.execute("SELECT value FROM meta WHERE key = 'clock'").fetchone()
        self.clock_time = row[0] if row else None
        self._clock = None
        self._mutex = threading.Lock()
        self._wake = threading.Condition(self._mutex)  # the writer waits on it for changes
        self._written = threading.Condition(self._mutex)  # durable() waits on it for commits
        self._changes: list[list] = []
        self._pending: dict[tuple[int, int], list] = {}  # (queue id, seq) -> its message's pending ADD or CHANGE
        self._seqs: dict[int, int] = {}  # queue id -> the highest arrival number reported since the last write
        self._reported = self._committed = 0  # changes reported, and reported before the last commit
        self._failure: Exception | None = None
        self._closing = False
        self._queue_ids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # queue -> id; None once dropped
        self._next_queue_id = 1
        self._pruned_at = 0.0
        self._writer = threading.Thread(target=self._run, name="sqs-store-writer", daemon=True)

    # -- recovery ------------------------------------------------------------

    def recover(self, broker) -> None:
        """Put back what the file holds into `broker`, built with this store as its
        journal and (on a manual clock) clock_time as its time."""
        self._clock = broker.clock
        collecting = gc.isenabled()
        gc.disable()  # recovery only creates objects: cyclic collections would rescan them all, again and again
        try:
            self._recover(broker)
        except sqlite3.DatabaseError as error:  # recovery reads every row: damage shows here
            raise opening.damaged(self.path, error) from None
        finally:
            if collecting:
                gc.enable()
        if broker.clock.manual:
            broker.clock.on_advance(lambda: self._report([CLOCK, broker.clock.now()]))
            self._report([CLOCK, broker.clock.now()])
        self._writer.start()

    def _recover(self, broker) -> None:
        db = self._db
        now = broker.clock.now()
        queues = {}
        for row in db.execute("SELECT id, account, region, name, fifo, attributes, tags, created_at, modified_at, "
                              "purged_at, seq FROM queues ORDER BY id"):
            queue_id, account, region, name, fifo, attributes, tags, created, modified, purged, seq = row
            queue = broker.restore_queue(account, region, name, bool(fifo), json.loads(attributes), json.loads(tags),
                                         created, modified, purged)
            self._queue_ids[queue] = queue_id
            self._next_queue_id = queue_id + 1
            queues[queue_id] = (queue, seq)
        orphans = set()  # rows a queue's last requests wrote as it was deleted
        restored = 0
        messages = db.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY queue_id, seq")
        for queue_id, rows in itertools.groupby(messages, key=lambda row: row[0]):
            if queue_id not in queues:
                orphans.add(queue_id)
                continue
            queue, seq = queues.pop(queue_id)
            kept = [_message(row) for row in rows]
            expired = queue.restore(seq, kept)
            restored += len(kept) - len(expired)
            for message in expired:
                self._report([REMOVE, queue_id, message.seq])
            queues[queue_id] = (queue, None)
        for queue, seq in queues.values():
            if seq is not None:  # a queue with no messages: its arrival counter still counts
                queue.restore(seq, ())
        for queue_id, key, message_id, sequence_number, expires_at in db.execute(
            "SELECT queue_id, key, message_id, sequence_number, expires_at FROM dedup WHERE expires_at > ? "
            "ORDER BY expires_at", (now,)
        ):
            if queue_id not in queues:
                orphans.add(queue_id)
                continue
            key = json.loads(key)
            queues[queue_id][0].restore_dedup([(tuple(key) if isinstance(key, list) else key,
                                                Sent(message_id, sequence_number), expires_at)])
        for queue_id in orphans:
            self._report([EMPTY, queue_id])
        by_arn = {queue.arn: queue for queue, _ in queues.values()}
        for source_arn, state in db.execute("SELECT source_arn, state FROM move_tasks"):
            if source_arn in by_arn:
                broker.restore_move_task(by_arn[source_arn], json.loads(state))
        for account, region, name, deleted_at in db.execute(
            "SELECT account, region, name, deleted_at FROM cooldowns WHERE deleted_at > ?",
            (now - broker.recreate_cooldown,),
        ):
            broker.restore_cooldown(account, region, name, deleted_at)
        log.info("store %s: %d queues and %d messages restored", self.path, len(queues), restored)

    # -- the journal: note each change, under the queue's lock -----------------

    def _report(self, change: list) -> None:
        with self._mutex:
            self._changes.append(change)
            self._reported += 1
            if self._sync == "always":
                self._wake.notify()

    def _id(self, queue) -> int | None:
        """The queue's row id (a new one for a new queue); None for a dropped queue,
        whose late reports must not bring it back."""
        queue_id = self._queue_ids.get(queue, 0)
        if queue_id == 0:
            with self._mutex:
                queue_id = self._queue_ids.setdefault(queue, self._next_queue_id)
                if queue_id == self._next_queue_id:
                    self._next_queue_id += 1
        return queue_id

    def queue_saved(self, queue) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._report([QUEUE, queue_id, queue.account, queue.region, queue.name, int(queue.fifo),
                          json.dumps(queue.attributes), json.dumps(queue.tags), queue.created_at,
                          queue.modified_at, queue.purged_at])

    def queue_deleted(self, queue, deleted_at: float) -> None:
        queue_id = self._id(queue)
        if queue_id is None:
            return
        with self._mutex:
            self._queue_ids[queue] = None
        self._forget_pending(queue_id)
        self._report([DROP, queue_id, queue.account, queue.region, queue.name, deleted_at])

    def queue_emptied(self, queue) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._forget_pending(queue_id)
            self._report([EMPTY, queue_id])

    def _forget_pending(self, queue_id: int) -> None:
        # Changes reported before a purge or delete stay in order before it; later
        # reports must not rewrite them.
        with self._mutex:
            for key in [key for key in self._pending if key[0] == queue_id]:
                del self._pending[key]

    def message_added(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is None:
            return
        change = [ADD, queue_id, message.seq, message.id, message.body, _dump(message.attributes),
                  _dump(message.system_attributes), message.md5_of_body, message.md5_of_attributes,
                  message.group_id, message.dedup_id, message.sequence_number, message.sent_at,
                  message.sender_id, message.dead_letter_source, *_delivery(message)]
        with self._mutex:
            self._pending[(queue_id, message.seq)] = change
            self._seqs[queue_id] = message.seq  # kept even if the message goes before it is written
        self._report(change)

    def message_changed(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is None:
            return
        fields = _delivery(message)
        with self._mutex:
            change = self._pending.get((queue_id, message.seq))
            if change is not None:  # still waiting to be written: rewrite it
                change[ADD_DELIVERY if change[0] == ADD else CHANGE_DELIVERY :] = fields
                return
            change = self._pending[(queue_id, message.seq)] = [CHANGE, queue_id, message.seq, *fields]
        self._report(change)

    def message_removed(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is None:
            return
        with self._mutex:
            change = self._pending.pop((queue_id, message.seq), None)
            if change is not None and change[0] == ADD:
                change[:] = [SKIP]  # never written, so nothing to delete
                return
            if change is not None:
                change[:] = [REMOVE, queue_id, message.seq]
                return
        self._report([REMOVE, queue_id, message.seq])

    def dedup_added(self, queue, key, sent, expires_at: float) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._report([DEDUP, queue_id, json.dumps(key), sent.message_id, sent.sequence_number, expires_at])

    def task_saved(self, task) -> None:
        self._report([TASK, task.handle, task.source.arn, json.dumps(task.state())])

    def reset(self) -> None:
        with self._mutex:
            for queue in list(self._queue_ids.keys()):
                self._queue_ids[queue] = None
            self._pending.clear()
        self._report([RESET])

    def durable(self) -> None:
        if self._sync != "always":
            return
        with self._mutex:
            target = self._reported
            while self._committed < target and self._failure is None:
                self._written.wait()
            if self._failure is not None:
                raise StoreError(f"writing {self.path} failed: {self._failure}")

    # -- the writer thread ---------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._mutex:
                if self._sync == "always":
                    while not self._changes and not self._closing:
                        self._wake.wait()
                else:
                    self._wake.wait_for(lambda: self._closing, timeout=self._interval)
                closing = self._closing
                changes, self._changes, self._pending = self._changes, [], {}
                seqs, self._seqs = self._seqs, {}
                target = self._reported
            if changes:
                try:
                    self._write(changes, seqs)
                except sqlite3.Error as error:
                    log.error("store %s: a write failed, %d changes are lost: %s", self.path, len(changes), error)
                    with self._mutex:
                        self._failure = error
            with self._mutex:
                self._committed = target
                self._written.notify_all()
            if closing:
                return

    def _write(self, changes: list[list], seqs: dict[int, int]) -> None:
        db = self._db
        db.execute("BEGIN")
        try:
            for kind, run in itertools.groupby(changes, key=lambda change: change[0]):
                if kind == SKIP:
                    continue
                run = list(run)
                for statement in SQL[kind]:
                    db.executemany(statement, [_params(change) for change in run])
            db.executemany("UPDATE queues SET seq = max(seq, ?) WHERE id = ?",
                           [(seq, queue_id) for queue_id, seq in seqs.items()])
            now = self._clock.now()
            if now - self._pruned_at >= PRUNE_EVERY:
                db.execute("DELETE FROM dedup WHERE expires_at <= ?", (now,))
                self._pruned_at = now
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def describe(self) -> dict:
        return {"data_dir": self.directory, "sync": self._sync, "interval_ms": round(self._interval * 1000)}

    def close(self) -> None:
        """Write everything pending, then release the file and the directory."""
        with self._mutex:
            self._closing = True
            self._wake.notify()
        if self._writer.is_alive():
            self._writer.join()
        self._db.close()
        self._lock_file.close()


def _message(row: tuple) -> Message:
    (_, seq, message_id, body, attributes, system_attributes, md5_of_body, md5_of_attributes, group_id, dedup_id,
     sequence_number, sent_at, sender_id, dead_letter_source, state, receive_count, first_receive_at, nonce,
     received_at, due) = row
    message = Message(message_id, body, _load(attributes), _load(system_attributes), md5_of_body,
                      md5_of_attributes, sender_id, group_id, dedup_id)
    message.seq, message.sequence_number, message.sent_at = seq, sequence_number, sent_at
    message.dead_letter_source = dead_letter_source
    message.state, message.receive_count, message.first_receive_at = STATES[state], receive_count, first_receive_at
    message.nonce, message.received_at, message.due = nonce, received_at, due
    return message
