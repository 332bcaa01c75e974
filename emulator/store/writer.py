"""The writer: one thread that writes the journal's changes to the store's file.

The engine reports transitions under a queue's lock; each report appends a
change record (rows.py) to the pending batch, and nothing else happens on the
request's path. The writer thread takes the whole batch at once and commits it
in one transaction, so one commit (one fsync) carries every request that
arrived while the previous one was being written: group commit.

Changes to one message coalesce while they wait: a receive after a send
rewrites the pending insert, and a delete of a message whose insert was not
written yet cancels both, so a message sent and deleted within one batch never
reaches the disk.

Sync policies (--sync): `always` commits as soon as changes are pending and a
reply waits for its commit (when_durable(): every caller waiting when a commit
ends is told by that one commit);
`interval` commits every
--sync-interval-ms, so a crash loses at most that window; `off` commits on the
same interval without fsync (opening.py sets that), so the operating system
decides and a power cut may lose more (a killed process loses only the window).
"""

import itertools
import logging
import sqlite3
import threading
from collections.abc import Callable

from emulator.engine.clock import Clock
from emulator.store.base import StoreError
from emulator.store.rows import (
    PRUNE_DEDUP,
    RAISE_SEQ,
    SKIPPED,
    AddMessage,
    ChangeMessage,
    Many,
    RemoveMessage,
    Skipped,
)

log = logging.getLogger(__name__)

PRUNE_EVERY = 60.0  # seconds (of the engine's clock) between deletes of expired dedup ids

Durable = Callable[[Exception | None], None]  # told None once its changes are committed, or why they are not


class Writer:
    def __init__(self, db: sqlite3.Connection, path: str, sync: str, interval: float):
        self.sync, self.interval = sync, interval
        self._db, self._path = db, path
        self._max_values = db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)  # in one statement
        self._clock: Clock | None = None  # the engine's, from start()
        self._mutex = threading.Lock()
        self._wake = threading.Condition(self._mutex)  # the thread waits on it for changes
        self._changes: list = []  # the pending batch, in reported order
        self._pending: dict[tuple[int, int], int] = {}  # (queue id, seq) -> index of its message's record
        self._seqs: dict[int, int] = {}  # queue id -> the highest arrival number reported since the last write
        # Who waits for durability: of the pending batch, and of the batch being written (None: none is).
        self._waiting: list[Durable] = []
        self._writing: list[Durable] | None = None
        self._failure: Exception | None = None
        self._closing = False
        self._pruned_at = 0.0
        self._thread = threading.Thread(target=self._run, name="sqs-store-writer", daemon=True)

    def start(self, clock: Clock) -> None:
        """Start writing; `clock` (the engine's) says when dedup ids expire."""
        self._clock = clock
        self._thread.start()

    # -- reports: each under the reporting queue's lock, so each only appends ----

    def report(self, change) -> None:
        with self._mutex:
            self._append(change)

    def report_clearing(self, change, queue_id: int | None) -> None:
        """A change that ends a queue's messages (None: every queue's). The changes
        reported before it stay before it; later reports must not rewrite them."""
        with self._mutex:
            if queue_id is None:
                self._pending.clear()
            else:
                for key in [key for key in self._pending if key[0] == queue_id]:
                    del self._pending[key]
            self._append(change)

    def message_added(self, change: AddMessage) -> None:
        with self._mutex:
            self._pending[(change.queue_id, change.seq)] = len(self._changes)
            self._seqs[change.queue_id] = change.seq  # kept even if the message goes before it is written
            self._append(change)

    def message_changed(self, queue_id: int, seq: int, delivery: tuple) -> None:
        with self._mutex:
            index = self._pending.get((queue_id, seq))
            if index is not None:  # its record still waits to be written: rewrite it
                self._changes[index].delivery = delivery
                return
            self._pending[(queue_id, seq)] = len(self._changes)
            self._append(ChangeMessage(queue_id, seq, delivery))

    def message_removed(self, queue_id: int, seq: int) -> None:
        with self._mutex:
            index = self._pending.pop((queue_id, seq), None)
            if index is None:
                self._append(RemoveMessage(queue_id, seq))
            elif type(self._changes[index]) is AddMessage:
                self._changes[index] = SKIPPED  # never written, so nothing to delete
            else:
                self._changes[index] = RemoveMessage(queue_id, seq)

    def _append(self, change) -> None:
        if not self._changes and self.sync == "always":
            self._wake.notify()  # the first change of a batch: the thread may be waiting for one
        self._changes.append(change)

    # -- durability ---------------------------------------------------------------

    def when_durable(self, callback: Durable) -> bool:
        """With --sync always, have `callback` told once every change reported so far is
        committed (None) or failed to be (a StoreError), from the writer's thread, and
        return True; return False, without calling it, when nothing needs waiting for:
        another sync policy, or every change already committed. After a failed write,
        `callback` is told the failure at once, before this returns (True)."""
        if self.sync != "always":
            return False
        with self._mutex:
            failure = self._failure
            if failure is None:
                if self._changes:  # the last change reported is in the pending batch
                    self._waiting.append(callback)
                elif self._writing is not None:  # or in the batch being written
                    self._writing.append(callback)
                else:
                    return False
                return True
        callback(self._failed(failure))
        return True

    def _failed(self, failure: Exception) -> StoreError:
        return StoreError(f"writing {self._path} failed: {failure}")

    def close(self) -> None:
        """Write everything pending, then stop the thread."""
        with self._mutex:
            self._closing = True
            self._wake.notify()
        if self._thread.is_alive():
            self._thread.join()

    # -- the thread -------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._mutex:
                if self.sync == "always":
                    while not self._changes and not self._closing:
                        self._wake.wait()
                else:
                    self._wake.wait_for(lambda: self._closing, timeout=self.interval)
                closing = self._closing
                changes, self._changes, self._pending = self._changes, [], {}
                seqs, self._seqs = self._seqs, {}
                self._writing, self._waiting = self._waiting, []
            if changes:
                try:
                    self._write(changes, seqs)
                except sqlite3.Error as error:
                    log.error("store %s: a write failed, %d changes are lost: %s", self._path, len(changes), error)
                    with self._mutex:
                        self._failure = error
            self._tell_written()
            if closing:
                return

    def _tell_written(self) -> None:
        """Tell whoever waited for the batch just written how it went."""
        with self._mutex:
            waiting, self._writing = self._writing or [], None
            failure = self._failure
        told = None if failure is None else self._failed(failure)
        for callback in waiting:
            try:
                callback(told)
            except Exception:  # a waiter's own bug: the others, and the writing, go on
                log.exception("store %s: a durability callback failed", self._path)

    def _write(self, changes: list, seqs: dict[int, int]) -> None:
        """One transaction: each run of same-kind changes as one executemany per
        statement, or, for rows of messages, as statements of many rows each."""
        db = self._db
        db.execute("BEGIN")
        try:
            for kind, run in itertools.groupby(changes, key=type):
                if kind is Skipped:
                    continue
                if kind in (AddMessage, RemoveMessage):
                    _write_rows(db, run, self._max_values)
                    continue
                params = [change.params() for change in run]
                for statement in kind.SQL:  # type: ignore[attr-defined]  # every record kind has SQL
                    db.executemany(statement, params)
            db.executemany(RAISE_SEQ, [(seq, queue_id) for queue_id, seq in seqs.items()])
            assert self._clock is not None  # the thread runs only once start() gave it
            now = self._clock.now()
            if now - self._pruned_at >= PRUNE_EVERY:
                db.execute(PRUNE_DEDUP, (now,))
                self._pruned_at = now
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def _write_rows(db: sqlite3.Connection, run, max_values: int) -> None:
    """A run of records of one message row each: the rows of each statement (Many)
    written many a statement. Their order does not matter: each is another message's."""
    rows: dict[Many, list[tuple]] = {}
    for change in run:
        many, values = change.row()
        rows.setdefault(many, []).append(values)
    for many, values in rows.items():
        first = 0
        for statement, size in many.statements(len(values), max_values):
            db.execute(statement, tuple(itertools.chain.from_iterable(values[first : first + size])))
            first += size
