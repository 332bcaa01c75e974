"""The change records and the codec: what each record writes, recovery reads back
as the engine had it."""

import hashlib
import uuid
from types import SimpleNamespace

import pytest
from engine_support import ACCOUNT, REGION, T0

from emulator.engine.clock import ManualClock
from emulator.engine.message import Message, Sent, State, message_key
from emulator.store.opening import open_database
from emulator.store.recovery import read_clock, read_contents
from emulator.store.rows import (
    DELETE_MESSAGES,
    INSERT_MESSAGE,
    INSERT_PLAIN_MESSAGE,
    MAX_ROWS,
    AddDedup,
    AddMessage,
    ChangeMessage,
    DropQueue,
    EmptyQueue,
    RemoveMessage,
    Reset,
    SaveQueue,
    SaveTask,
    SetClock,
)
from emulator.store.writer import Writer

QUEUE = SimpleNamespace(
    account=ACCOUNT,
    region=REGION,
    name="q.fifo",
    fifo=True,
    attributes={"FifoQueue": "true"},
    tags={"team": "a"},
    created_at=1,
    modified_at=2,
    purged_at=None,
    dedup_scope="messageGroup",
    arn="arn:q",
)
TASK = SimpleNamespace(handle="h", source=QUEUE, state=lambda: {"status": "RUNNING", "moved": 3})


@pytest.fixture
def db(tmp_path):
    db = open_database(str(tmp_path / "sqs.db"), "off")
    yield db
    db.close()


def write(db, *changes) -> None:
    writer = Writer(db, "sqs.db", "interval", 3600)
    for change in changes:
        writer.report(change)
    writer.start(ManualClock(T0))
    writer.close()


def message() -> Message:
    attributes = {
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        "s": {"DataType": "String", "StringValue": "v"},
    }
    trace = {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1"}}
    body_md5, attributes_md5 = hashlib.md5(b"body").hexdigest(), "0123456789abcdef" * 2
    message = Message(
        message_key(str(uuid.uuid4()), body_md5), "body", attributes, trace, attributes_md5, "AIDATEST", "g", "d"
    )
    message.sequence_number, message.seq, message.sent_at = "18", 4, T0
    message.dead_letter_source = "arn:source"
    message.state, message.receive_count, message.first_receive_at = State.INFLIGHT, 2, T0 + 1
    message.nonce, message.received_at, message.due = 2**64 - 3, T0 + 2, T0 + 32
    return message


# Every field a message row keeps (all but the timer, which recovery arms anew).
FIELDS = [
    "id",
    "body",
    "attributes",
    "system_attributes",
    "md5_of_body",
    "md5_of_attributes",
    "group_id",
    "dedup_id",
    "sequence_number",
    "seq",
    "sent_at",
    "sender_id",
    "dead_letter_source",
    "state",
    "receive_count",
    "first_receive_at",
    "nonce",
    "received_at",
    "due",
]


def fields(message: Message) -> dict:
    return {name: getattr(message, name) for name in FIELDS}


def test_what_each_record_writes_recovery_reads_back(db):
    sent = message()
    write(
        db,
        SaveQueue.of(1, QUEUE),
        AddMessage(1, sent),
        AddDedup.of(1, ("g", "d"), Sent(sent.id, "18"), T0 + 300),
        AddDedup.of(1, "plain", Sent("other", None), T0 + 299),
        SaveTask.of(TASK),
        SetClock(T0 + 5),
    )
    contents = read_contents(db, T0, 60)
    (queue,) = contents.queues
    assert (
        queue.queue_id,
        queue.account,
        queue.region,
        queue.name,
        queue.fifo,
        queue.attributes,
        queue.tags,
        queue.created_at,
        queue.modified_at,
        queue.purged_at,
        queue.seq,
        queue.dedup_scope,
    ) == (1, ACCOUNT, REGION, "q.fifo", True, {"FifoQueue": "true"}, {"team": "a"}, 1, 2, None, 0, "messageGroup")
    assert [fields(m) for m in queue.messages] == [fields(sent)]
    assert queue.dedup == [("plain", Sent("other", None), T0 + 299), (("g", "d"), Sent(sent.id, "18"), T0 + 300)]
    assert contents.move_tasks == [("arn:q", {"status": "RUNNING", "moved": 3})]
    assert read_clock(db) == T0 + 5


def test_a_dropped_queue_leaves_only_its_cooldown_and_a_reset_leaves_nothing(db):
    write(
        db,
        SaveQueue.of(1, QUEUE),
        AddMessage(1, message()),
        AddDedup.of(1, "d", Sent("id", None), T0 + 300),
        DropQueue(1, ACCOUNT, REGION, "q.fifo", T0),
    )
    assert read_contents(db, T0, 60) == ([], [], [(ACCOUNT, REGION, "q.fifo", T0)], set())
    write(db, SaveQueue.of(2, QUEUE), SaveTask.of(TASK), Reset())
    assert read_contents(db, T0, 60) == ([], [], [], set())


def test_a_removed_message_row_goes(db):
    write(db, SaveQueue.of(1, QUEUE), AddMessage(1, message()), RemoveMessage(1, 4))
    assert read_contents(db, T0, 60).queues[0].messages == []


def test_a_delivery_change_rewrites_the_delivery_fields_and_emptying_leaves_the_queue(db):
    sent = message()
    redelivered = ChangeMessage(1, 4, ("visible", 2, T0 + 1, f"{2**64 - 3:016x}", T0 + 2, None))
    write(db, SaveQueue.of(1, QUEUE), AddMessage(1, sent), redelivered)
    (restored,) = read_contents(db, T0, 60).queues[0].messages
    sent.state, sent.due = State.VISIBLE, None
    assert fields(restored) == fields(sent)
    write(db, AddDedup.of(1, "d", Sent("id", None), T0 + 300), EmptyQueue(1))
    (queue,) = read_contents(db, T0, 60).queues
    assert (queue.name, queue.messages, queue.dedup) == ("q.fifo", [], [])


def plain_message(seq: int) -> Message:
    """A message as most are: no attributes, no group, not FIFO, never received."""
    body = f"plain {seq}"
    message = Message(message_key(str(uuid.uuid4()), hashlib.md5(body.encode()).hexdigest()), body, {}, {}, None, "A")
    message.seq, message.sent_at = seq, T0 + seq
    return message


def test_a_plain_message_binds_only_what_it_has_and_reads_back_whole(db):
    plain, full = plain_message(1), message()
    assert AddMessage(1, plain).row()[0] is INSERT_PLAIN_MESSAGE
    assert AddMessage(1, full).row()[0] is INSERT_MESSAGE
    delayed = plain_message(2)
    delayed.state, delayed.due = State.DELAYED, T0 + 60  # a delay has delivery fields
    assert AddMessage(1, delayed).row()[0] is INSERT_MESSAGE
    write(db, SaveQueue.of(1, QUEUE), AddMessage(1, plain), AddMessage(1, full), AddMessage(1, delayed))
    assert [fields(m) for m in read_contents(db, T0, 60).queues[0].messages] == [
        fields(plain),
        fields(delayed),
        fields(full),
    ]


@pytest.mark.parametrize("count", [1, 2, 3, 255, 256, 257, 700])
def test_runs_of_any_length_are_written_many_rows_a_statement(db, count):
    messages = [plain_message(seq) for seq in range(1, count + 1)]
    write(db, SaveQueue.of(1, QUEUE), *(AddMessage(1, m) for m in messages))
    assert [m.id for m in read_contents(db, T0, 60).queues[0].messages] == [m.id for m in messages]
    write(db, *(RemoveMessage(1, seq) for seq in range(2, count + 1)))
    assert [m.id for m in read_contents(db, T0, 60).queues[0].messages] == [messages[0].id]


@pytest.mark.parametrize("max_values", [999, 32766])  # SQLite before 3.32, and after
def test_many_row_statements_stay_few_and_within_the_limit_of_values(max_values):
    for many in (INSERT_MESSAGE, INSERT_PLAIN_MESSAGE, DELETE_MESSAGES):
        sizes = [size for _, size in many.statements(1000, max_values)]
        chunk = sizes[0]
        assert sum(sizes) == 1000 and chunk * many.row.count("?") <= max_values and chunk <= MAX_ROWS
        assert sizes == [chunk] * (1000 // chunk) + [1 << bit for bit in range(10, -1, -1) if 1000 % chunk & 1 << bit]


def test_a_delete_of_many_rows_finds_each_by_its_key(db):
    statement, size = next(DELETE_MESSAGES.statements(4, 999))
    plan = db.execute(f"EXPLAIN QUERY PLAN {statement}", (1,) * size * 2).fetchall()
    assert any("USING PRIMARY KEY" in row[3] for row in plan) and not any(row[3] == "SCAN messages" for row in plan)
