"""Peeking (the admin API's view): changes nothing, pages in arrival order from a cursor."""

import hashlib
import uuid

from engine_support import counts, send

from emulator.engine.message import Message, State

ALL = frozenset(State) - {State.GONE}


def test_peek_changes_nothing_and_pages_in_arrival_order(queue, clock):
    for i in range(5):
        send(queue, f"m{i}", delay=10 if i == 4 else 0)
    [held] = queue.receive(1, 30, 0)
    page, cursor = queue.peek(ALL, 2)
    assert [m["body"] for m in page] == ["m0", "m1"] and cursor is not None
    assert page[0]["state"] == "inflight" and page[0]["visible_at"] == clock.now() + 30
    rest, end = queue.peek(ALL, 10, cursor)
    assert [m["body"] for m in rest] == ["m2", "m3", "m4"] and end is None
    assert rest[-1]["state"] == "delayed"
    visible, _ = queue.peek(frozenset({State.VISIBLE}), 10)
    assert [m["body"] for m in visible] == ["m1", "m2", "m3"]
    assert counts(queue) == (3, 1, 1)
    assert held.message.receive_count == 1


class Watched(Message):
    """A message that counts how often anyone reads its state or arrival number."""

    __slots__ = ("reads",)

    def __init__(self, body: str):
        self.reads = 0
        super().__init__(uuid.uuid4().bytes + hashlib.md5(body.encode()).digest(), body, {}, {}, None, "AIDATEST")

    @property
    def state(self):
        self.reads += 1
        return Message.state.__get__(self)

    @state.setter
    def state(self, value):
        Message.state.__set__(self, value)

    @property
    def seq(self):
        self.reads += 1
        return Message.seq.__get__(self)

    @seq.setter
    def seq(self, value):
        Message.seq.__set__(self, value)


def test_a_page_after_the_first_never_reads_the_messages_before_its_cursor(queue):
    """The next page starts where the last one ended: its cost is the messages
    from the cursor on, however many came before."""
    messages = [Watched(f"m{i}") for i in range(100)]
    queue.send([(message, 0) for message in messages])
    queue.receive(5, 30, 0)  # some in flight, so the filter has something to skip
    seen, after = [], 0
    while True:
        for message in messages:
            message.reads = 0
        page, after = queue.peek(frozenset({State.VISIBLE}), 10, after)
        passed = 5 + len(seen)  # the in-flight ones and earlier pages: all before the cursor
        assert not seen or [message.reads for message in messages[:passed]] == [0] * passed
        seen += [snapshot["body"] for snapshot in page]
        if after is None:
            break
    assert seen == [f"m{i}" for i in range(5, 100)]


def test_a_peek_with_a_view_pages_from_the_same_cursors(queue):
    for i in range(5):
        send(queue, f"m{i}")
    page, cursor = queue.peek(ALL, 3, view=lambda message: (message.body, message.receive_count))
    assert page == [("m0", 0), ("m1", 0), ("m2", 0)]
    rest, end = queue.peek(ALL, 3, cursor, view=lambda message: message.body)
    assert rest == ["m3", "m4"] and end is None
    assert counts(queue) == (5, 0, 0)
