"""Recovery: what a store's file holds, read back as plain values.

read_contents() only reads; the caller puts the result back through the broker's
recovery hooks and writes what it changes (rows of expired messages, rows left
of deleted queues). The manual clock's time is read apart (read_clock), on
opening: the broker is built on it, and the rest is read as of its now.
"""

import itertools
import sqlite3
from operator import itemgetter
from typing import NamedTuple

from emulator.store.codec import StoredQueue, dedup_from_row, message_from_row, move_task_from_row, queue_from_row
from emulator.store.rows import (
    SELECT_CLOCK,
    SELECT_COOLDOWNS,
    SELECT_DEDUP,
    SELECT_MESSAGES,
    SELECT_MOVE_TASKS,
    SELECT_QUEUES,
)


class StoreContents(NamedTuple):
    """Everything a store's file holds that is still alive, as of one moment."""

    queues: list[StoredQueue]  # in the order they were created, each with its messages and dedup ids
    move_tasks: list[tuple[str, dict]]  # (source queue ARN, MoveTask.state())
    cooldowns: list[tuple[str, str, str, float]]  # (account, region, name, deleted_at) of names not yet free
    orphans: set[int]  # ids of deleted queues that still have message or dedup rows


def read_clock(db: sqlite3.Connection) -> float | None:
    """The manual clock's time when the file was last written (None: never written on one)."""
    row = db.execute(SELECT_CLOCK).fetchone()
    return row[0] if row else None


def read_contents(db: sqlite3.Connection, now: float, recreate_cooldown: float) -> StoreContents:
    """Every queue with its messages and its dedup ids unexpired at `now`, every move
    task, and the re-create cooldowns still running at `now`. Damage in the file
    raises sqlite3.DatabaseError."""
    queues = {queue.queue_id: queue for queue in map(queue_from_row, db.execute(SELECT_QUEUES))}
    orphans = set()  # rows a queue's last requests wrote as it was deleted
    for queue_id, rows in itertools.groupby(db.execute(SELECT_MESSAGES), key=itemgetter(0)):
        queue = queues.get(queue_id)
        if queue is None:
            orphans.add(queue_id)
            continue
        queue.messages = [message_from_row(row) for row in rows]
    for row in db.execute(SELECT_DEDUP, (now,)):
        queue = queues.get(row[0])
        if queue is None:
            orphans.add(row[0])
            continue
        queue.dedup.append(dedup_from_row(row))
    move_tasks = [move_task_from_row(row) for row in db.execute(SELECT_MOVE_TASKS)]
    cooldowns = db.execute(SELECT_COOLDOWNS, (now - recreate_cooldown,)).fetchall()
    return StoreContents(list(queues.values()), move_tasks, cooldowns, orphans)
