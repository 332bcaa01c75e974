"""Recovery: read_contents() returns what the file holds as of a moment, and the store puts
it back into a broker, dropping what expired while the emulator was down."""

import sqlite3

from engine_support import ACCOUNT, REGION, T0, counts, error_name, make_message, send
from store_support import close, open_broker, rows

from emulator.engine.fifo import DEDUP_WINDOW
from emulator.engine.message import Sent
from emulator.store.opening import open_database
from emulator.store.recovery import read_clock, read_contents

COOLDOWN = 60


def filled(path):
    """A file with a standard queue of three messages, a FIFO queue with one, a deleted
    queue's cooldown, and message rows left of a queue id that has no queue row."""
    broker, store = open_broker(path)
    standard, _ = broker.create_queue(ACCOUNT, REGION, "standard", {})
    bodies = [send(standard, body).id for body in ("a", "b", "c")]
    fifo, _ = broker.create_queue(ACCOUNT, REGION, "q.fifo", {"FifoQueue": "true"})
    fifo_id = send(fifo, "f", group_id="g", dedup_id="d").id
    broker.delete_queue(broker.create_queue(ACCOUNT, REGION, "gone", {})[0])
    close(broker, store)
    with sqlite3.connect(path / "sqs.db") as db:
        db.execute(
            "INSERT INTO messages SELECT 99, seq, id, body, attributes, system_attributes, md5_of_body, "
            "md5_of_attributes, group_id, dedup_id, sequence_number, sent_at, sender_id, dead_letter_source, "
            "state, receive_count, first_receive_at, nonce, received_at, due FROM messages WHERE queue_id = 1"
        )
    return bodies, fifo_id


def test_read_gives_each_queue_its_messages_in_order_and_its_live_dedup_ids(tmp_path):
    bodies, fifo_id = filled(tmp_path)
    db = open_database(str(tmp_path / "sqs.db"), "off")
    contents = read_contents(db, T0, COOLDOWN)
    standard, fifo = contents.queues
    assert (standard.name, [m.id for m in standard.messages], standard.seq, standard.dedup) == (
        "standard",
        bodies,
        3,
        [],
    )
    assert (fifo.name, fifo.fifo, [m.id for m in fifo.messages]) == ("q.fifo", True, [fifo_id])
    assert fifo.dedup == [("d", Sent(fifo_id, fifo.messages[0].sequence_number), T0 + DEDUP_WINDOW)]
    assert contents.cooldowns == [(ACCOUNT, REGION, "gone", T0)]
    assert contents.orphans == {99}
    assert read_clock(db) == T0

    later = read_contents(db, T0 + DEDUP_WINDOW, COOLDOWN)  # the dedup window and the cooldown are over
    assert [len(queue.messages) for queue in later.queues] == [3, 1]
    assert [queue.dedup for queue in later.queues] == [[], []]
    assert later.cooldowns == []
    db.close()


def test_a_file_never_written_on_a_manual_clock_has_no_clock(tmp_path):
    db = open_database(str(tmp_path / "sqs.db"), "off")
    assert (read_clock(db), read_contents(db, T0, COOLDOWN)) == (None, ([], [], [], set()))
    db.close()


def test_recovery_puts_everything_back_and_removes_the_rows_of_deleted_queues(tmp_path):
    _, fifo_id = filled(tmp_path)
    broker, store = open_broker(tmp_path)
    assert sorted(queue.name for queue in broker.all_queues()) == ["q.fifo", "standard"]
    assert counts(broker.get_queue(ACCOUNT, REGION, "standard")) == (3, 0, 0)
    fifo = broker.get_queue(ACCOUNT, REGION, "q.fifo")
    (duplicate,) = fifo.send([(make_message("f", "g", "d"), 0)])
    assert duplicate.id == fifo_id and counts(fifo) == (1, 0, 0)  # its dedup id came back
    assert error_name(broker.create_queue, ACCOUNT, REGION, "gone", {}) == "QueueDeletedRecently"
    close(broker, store)
    assert rows(tmp_path, "SELECT count(*) FROM messages WHERE queue_id = 99") == [(0,)]


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
