"""The store's rows (tables in schema.py): the SQL that reads and writes them, and the
change records the writer turns into statements.

A change record names the statements that write it (`SQL`) and gives their
parameters (`params()`); the writer runs each run of same-kind records as one
executemany per statement. A record of one message row (AddMessage,
RemoveMessage) gives instead its row (`row()`: a many-row statement, Many, and
its values), and the writer writes a run of them many rows a statement. Most
records are named tuples (their own parameters); the fields are declared in the
base so that the class body may hold `SQL`. Records of a message (AddMessage, ChangeMessage) keep their delivery
fields apart so that a later change can rewrite them while the record waits to
be written. The values in the columns are codec.py's.
"""

import functools
import json
from typing import NamedTuple

from emulator.engine.message import Message, Sent
from emulator.store.codec import UNDELIVERED_STATES, delivery, dump_json

# Rows one many-row statement writes at most: few enough that the statements stay small
# (each prepared once), many enough that a batch of thousands takes a dozen steps.
MAX_ROWS = 256

MESSAGE_COLUMNS = (
    "queue_id, seq, id, body, attributes, system_attributes, md5_of_body, md5_of_attributes, group_id, "
    "dedup_id, sequence_number, sent_at, sender_id, dead_letter_source, "
    "state, receive_count, first_receive_at, nonce, received_at, due"
)

# -- reading (recovery) ---------------------------------------------------------

SELECT_CLOCK = "SELECT value FROM meta WHERE key = 'clock'"
SELECT_QUEUES = (
    "SELECT id, account, region, name, fifo, attributes, tags, created_at, modified_at, purged_at, seq, "
    "dedup_scope FROM queues ORDER BY id"
)
SELECT_MESSAGES = f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY queue_id, seq"
SELECT_DEDUP = (
    "SELECT queue_id, key, message_id, sequence_number, expires_at FROM dedup WHERE expires_at > ? ORDER BY expires_at"
)
SELECT_MOVE_TASKS = "SELECT source_arn, state FROM move_tasks"
SELECT_COOLDOWNS = "SELECT account, region, name, deleted_at FROM cooldowns WHERE deleted_at > ?"

# -- written with every batch -----------------------------------------------------

RAISE_SEQ = "UPDATE queues SET seq = max(seq, ?) WHERE id = ?"
PRUNE_DEDUP = "DELETE FROM dedup WHERE expires_at <= ?"


# -- change records -----------------------------------------------------------------


class Many(NamedTuple):
    """A statement that writes many rows at once: `head`, then `row` once per row
    (joined by commas), then `tail`. One statement of many rows is one step of
    SQLite's, and one release of the GIL, where executemany takes one a row."""

    head: str
    row: str
    tail: str = ""

    def statements(self, rows: int, max_values: int):
        """(statement, number of rows) to write `rows` rows, each statement binding at most
        `max_values` (the connection's limit: 999 before SQLite 3.32): chunks of a power of
        two, then the rest by powers of two, so that few statements are ever prepared
        (sqlite3 caches 128)."""
        chunk = 1 << (min(MAX_ROWS, max_values // self.row.count("?")).bit_length() - 1)
        while rows:
            size = min(chunk, 1 << (rows.bit_length() - 1))
            yield _statement(self, size), size
            rows -= size


@functools.cache
def _statement(many: Many, rows: int) -> str:
    return many.head + ", ".join([many.row] * rows) + many.tail


class SaveQueue(
    NamedTuple(
        "SaveQueue",
        [
            ("queue_id", int),
            ("account", str),
            ("region", str),
            ("name", str),
            ("fifo", int),
            ("attributes", str),  # JSON
            ("tags", str),  # JSON
            ("created_at", int),
            ("modified_at", int),
            ("purged_at", float | None),
            ("dedup_scope", str | None),  # FIFO: the scope its deduplication keeps (Queue.dedup_scope)
        ],
    )
):
    """A queue created, or its attributes, tags or purge time changed."""

    __slots__ = ()
    SQL = (
        (
            "INSERT INTO queues (id, account, region, name, fifo, attributes, tags, created_at, modified_at, "
            "purged_at, dedup_scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET attributes = "
            "excluded.attributes, tags = excluded.tags, modified_at = excluded.modified_at, purged_at = "
            "excluded.purged_at"
        ),
    )

    @classmethod
    def of(cls, queue_id: int, queue) -> "SaveQueue":
        return cls(
            queue_id,
            queue.account,
            queue.region,
            queue.name,
            int(queue.fifo),
            json.dumps(queue.attributes),
            json.dumps(queue.tags),
            queue.created_at,
            queue.modified_at,
            queue.purged_at,
            queue.dedup_scope,
        )

    def params(self):
        return self


class DropQueue(
    NamedTuple(
        "DropQueue", [("queue_id", int), ("account", str), ("region", str), ("name", str), ("deleted_at", float)]
    )
):
    """A queue deleted: its rows go, its name's re-create cooldown is kept."""

    __slots__ = ()
    SQL = (
        "DELETE FROM messages WHERE queue_id = :queue_id",
        "DELETE FROM dedup WHERE queue_id = :queue_id",
        "DELETE FROM queues WHERE id = :queue_id",
        "INSERT OR REPLACE INTO cooldowns VALUES (:account, :region, :name, :deleted_at)",
    )

    def params(self):
        return self._asdict()


class EmptyQueue(NamedTuple("EmptyQueue", [("queue_id", int)])):
    """Every message and dedup id of a queue gone: a purge, or rows left of a deleted queue."""

    __slots__ = ()
    SQL = ("DELETE FROM messages WHERE queue_id = ?", "DELETE FROM dedup WHERE queue_id = ?")

    def params(self):
        return self


INSERT_MESSAGE = Many(f"INSERT OR REPLACE INTO messages ({MESSAGE_COLUMNS}) VALUES ", f"({', '.join('?' * 20)})")
# A message as most are (no attributes, no group, not FIFO nor a dead letter, never
# received nor delayed) binds 8 values: sqlite3 binds each None through a look-up
# for an adapter, which costs more than SQLite's writing of the column.
INSERT_PLAIN_MESSAGE = Many(
    f"INSERT OR REPLACE INTO messages ({MESSAGE_COLUMNS}) VALUES ",
    "(?, ?, ?, ?, NULL, NULL, ?, NULL, NULL, NULL, NULL, ?, ?, NULL, ?, 0, NULL, NULL, 0.0, NULL)",
)


class AddMessage:
    """A message arrived; `delivery` is rewritten by its later changes until it is written.

    Made under the queue's lock on the request's path, so it only keeps the message:
    the fields set at send never change, and the writer's thread encodes them (rows)."""

    __slots__ = ("delivery", "message", "queue_id", "seq")

    def __init__(self, queue_id: int, message: Message):
        self.queue_id, self.seq, self.message = queue_id, message.seq, message
        self.delivery = delivery(message)

    def row(self) -> tuple[Many, tuple]:
        """The statement that writes this message, and its values."""
        message = self.message
        digits = message.key.hex()
        message_id = f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:32]}"  # Message.id
        rare = message.rare_fields
        state = UNDELIVERED_STATES.get(self.delivery)
        if state is not None and rare is None and message.group_id is None and not message.attributes:
            values = (self.queue_id, self.seq, message_id, message.body, digits[32:], message.sent_at)
            return INSERT_PLAIN_MESSAGE, (*values, message.sender_id, state)
        if rare is None:
            system_attributes = md5_of_attributes = dedup_id = sequence_number = dead_letter_source = None
        else:
            system_attributes = dump_json(rare.system_attributes)
            md5_of_attributes = None if rare.attributes_md5 is None else rare.attributes_md5.hex()
            dedup_id, sequence_number = rare.dedup_id, rare.sequence_number
            dead_letter_source = rare.dead_letter_source
        return INSERT_MESSAGE, (
            self.queue_id,
            self.seq,
            message_id,
            message.body,
            dump_json(message.attributes),
            system_attributes,
            digits[32:],  # Message.md5_of_body
            md5_of_attributes,
            message.group_id,
            dedup_id,
            sequence_number,
            message.sent_at,
            message.sender_id,
            dead_letter_source,
            *self.delivery,
        )


class ChangeMessage:
    """A written message's delivery fields changed; later changes rewrite `delivery` until it is written."""

    __slots__ = ("delivery", "queue_id", "seq")
    SQL = (
        (
            "UPDATE messages SET state = ?, receive_count = ?, first_receive_at = ?, nonce = ?, received_at = ?, "
            "due = ? WHERE queue_id = ? AND seq = ?"
        ),
    )

    def __init__(self, queue_id: int, seq: int, fields: tuple):
        self.queue_id, self.seq, self.delivery = queue_id, seq, fields

    def params(self):
        return (*self.delivery, self.queue_id, self.seq)


# Through a subquery: the bare `IN (VALUES ...)` of a row value scans the table (SQLite 3.40).
DELETE_MESSAGES = Many(
    "DELETE FROM messages WHERE (queue_id, seq) IN (SELECT column1, column2 FROM (VALUES ", "(?, ?)", "))"
)


class RemoveMessage(NamedTuple("RemoveMessage", [("queue_id", int), ("seq", int)])):
    __slots__ = ()

    def row(self) -> tuple[Many, tuple]:
        return DELETE_MESSAGES, self

    def params(self):
        return self


class AddDedup(
    NamedTuple(
        "AddDedup",
        [
            ("queue_id", int),
            ("key", str),  # JSON of the engine's key: a string, or a list for a per-group scope
            ("message_id", str),
            ("sequence_number", str | None),
            ("expires_at", float),
        ],
    )
):
    __slots__ = ()
    SQL = ("INSERT OR REPLACE INTO dedup VALUES (?, ?, ?, ?, ?)",)

    @classmethod
    def of(cls, queue_id: int, key, sent: Sent, expires_at: float) -> "AddDedup":
        return cls(queue_id, json.dumps(key), sent.id, sent.sequence_number, expires_at)

    def params(self):
        return self


class SaveTask(NamedTuple("SaveTask", [("handle", str), ("source_arn", str), ("state", str)])):
    """A move task started, moved messages or ended; `state` is the JSON of MoveTask.state()."""

    __slots__ = ()
    SQL = ("INSERT OR REPLACE INTO move_tasks VALUES (?, ?, ?)",)

    @classmethod
    def of(cls, task) -> "SaveTask":
        return cls(task.handle, task.source.arn, json.dumps(task.state()))

    def params(self):
        return self


class Reset(NamedTuple("Reset", [])):
    """Every queue, message, dedup id, task and cooldown gone (the admin reset)."""

    __slots__ = ()
    SQL = tuple(f"DELETE FROM {table}" for table in ("messages", "dedup", "queues", "move_tasks", "cooldowns"))

    def params(self):
        return self


class SetClock(NamedTuple("SetClock", [("now", float)])):
    """The manual clock's time, so that a restart resumes from it."""

    __slots__ = ()
    SQL = ("INSERT OR REPLACE INTO meta VALUES ('clock', ?)",)

    def params(self):
        return self


class Skipped:
    """In place of an AddMessage whose message went before it was written: nothing to write."""

    __slots__ = ()
    SQL = ()


SKIPPED = Skipped()
