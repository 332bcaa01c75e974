"""The SQLite store: everything under --data-dir, in one WAL-mode file.

opening.py locks the directory and opens the file; on start, recovery.py reads
back what it holds and this store puts that into the broker through its
recovery hooks; from then on each report of the engine becomes a change record
(rows.py) that writer.py writes on its own thread. What this class keeps
itself: each queue's row id.
"""

import logging
import os
import sqlite3
import threading
import weakref

from emulator.store.base import SYNC_MODES, Store
from emulator.store.codec import delivery
from emulator.store.opening import damaged, lock_directory, open_database
from emulator.store.recovery import StoreContents, read_clock, read_contents
from emulator.store.rows import (
    AddDedup,
    AddMessage,
    DropQueue,
    EmptyQueue,
    RemoveMessage,
    Reset,
    SaveQueue,
    SaveTask,
    SetClock,
)
from emulator.store.writer import Writer

log = logging.getLogger(__name__)

DB_FILE = "sqs.db"


class SqliteStore(Store):
    def __init__(self, directory: str, sync: str = "interval", interval_ms: int = 100):
        if sync not in SYNC_MODES:
            raise ValueError(f"sync must be one of {SYNC_MODES}")
        self.directory = os.path.abspath(directory)
        self.path = os.path.join(self.directory, DB_FILE)
        self._lock_file = lock_directory(self.directory)
        try:
            self._db = open_database(self.path, sync)
        except BaseException:
            self._lock_file.close()
            raise
        self.clock_time = read_clock(self._db)
        self.replies_wait = sync == "always"
        self._writer = Writer(self._db, self.path, sync, interval_ms / 1000)
        self._ids_lock = threading.Lock()
        self._queue_ids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # queue -> id; None once dropped
        self._next_queue_id = 1

    # -- recovery ------------------------------------------------------------

    def recover(self, broker) -> None:
        """Put back what the file holds into `broker`, built with this store as its
        journal and (on a manual clock) clock_time as its time; then start writing."""
        clock = broker.clock
        try:
            contents = read_contents(self._db, clock.now(), broker.recreate_cooldown)
        except sqlite3.DatabaseError as error:  # recovery reads every row: damage shows here
            raise damaged(self.path, error) from None
        self._restore(broker, contents)
        if clock.manual:
            clock.on_advance(lambda: self._writer.report(SetClock(clock.now())))
            self._writer.report(SetClock(clock.now()))
        self._writer.start(clock)

    def _restore(self, broker, contents: StoreContents) -> None:
        restored = []
        for row in contents.queues:
            queue = broker.restore_queue(
                row.account,
                row.region,
                row.name,
                row.fifo,
                row.attributes,
                row.tags,
                row.created_at,
                row.modified_at,
                row.purged_at,
                row.dedup_scope,
            )
            self._queue_ids[queue] = row.queue_id
            self._next_queue_id = row.queue_id + 1
            restored.append((queue, row))
        messages = 0
        for queue, row in restored:
            expired = queue.restore(row.seq, row.messages)
            messages += len(row.messages) - len(expired)
            for message in expired:
                self._writer.report(RemoveMessage(row.queue_id, message.seq))
        for queue, row in restored:
            if row.dedup:
                queue.restore_dedup(row.dedup)
        for queue_id in contents.orphans:
            self._writer.report(EmptyQueue(queue_id))
        by_arn = {queue.arn: queue for queue, _ in restored}
        for source_arn, state in contents.move_tasks:
            if source_arn in by_arn:
                broker.restore_move_task(by_arn[source_arn], state)
        for account, region, name, deleted_at in contents.cooldowns:
            broker.restore_cooldown(account, region, name, deleted_at)
        log.info("store %s: %d queues and %d messages restored", self.path, len(restored), messages)

    # -- the journal: each report under the queue's lock -------------------------

    def _id(self, queue) -> int | None:
        """The queue's row id (a new one for a new queue); None for a dropped queue,
        whose late reports must not bring it back."""
        queue_id = self._queue_ids.get(queue, 0)
        if queue_id == 0:
            with self._ids_lock:
                queue_id = self._queue_ids.setdefault(queue, self._next_queue_id)
                if queue_id == self._next_queue_id:
                    self._next_queue_id += 1
        return queue_id

    def queue_saved(self, queue) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.report(SaveQueue.of(queue_id, queue))

    def queue_deleted(self, queue, deleted_at: float) -> None:
        queue_id = self._id(queue)
        if queue_id is None:
            return
        with self._ids_lock:
            self._queue_ids[queue] = None
        self._writer.report_clearing(DropQueue(queue_id, queue.account, queue.region, queue.name, deleted_at), queue_id)

    def queue_emptied(self, queue) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.report_clearing(EmptyQueue(queue_id), queue_id)

    def message_added(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.message_added(AddMessage(queue_id, message))

    def message_changed(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.message_changed(queue_id, message.seq, delivery(message))

    def message_removed(self, queue, message) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.message_removed(queue_id, message.seq)

    def dedup_added(self, queue, key, sent, expires_at: float) -> None:
        queue_id = self._id(queue)
        if queue_id is not None:
            self._writer.report(AddDedup.of(queue_id, key, sent, expires_at))

    def task_saved(self, task) -> None:
        self._writer.report(SaveTask.of(task))

    def reset(self) -> None:
        with self._ids_lock:
            for queue in list(self._queue_ids.keys()):
                self._queue_ids[queue] = None
        self._writer.report_clearing(Reset(), None)

    def when_durable(self, callback) -> bool:
        return self._writer.when_durable(callback)

    def describe(self) -> dict:
        writer = self._writer
        return {"data_dir": self.directory, "sync": writer.sync, "interval_ms": round(writer.interval * 1000)}

    def close(self) -> None:
        """Write everything pending, then release the file and the directory."""
        self._writer.close()
        self._db.close()
        self._lock_file.close()
