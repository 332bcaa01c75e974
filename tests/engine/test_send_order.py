"""SendOrder: visible messages oldest first by arrival number, whatever order they come in."""

import pytest
from engine_support import make_message

from emulator.engine.message import NO_ATTRIBUTES, State
from emulator.engine.ready_order import SendOrder


def _numbered(*seqs: int):
    made = []
    for seq in seqs:
        m = make_message(f"m{seq}")
        m.seq = seq
        made.append(m)
    return made


def test_out_of_order_returns_come_out_by_arrival_number():
    order = SendOrder()
    first, second, third, fourth = _numbered(1, 2, 3, 4)
    for m in (second, fourth, first, third):  # first and third come back behind newer ones
        order.push(m)
    assert [order.pop() for _ in range(4)] == [first, second, third, fourth]
    assert order.pop() is None


def test_entries_of_messages_no_longer_visible_are_skipped_and_compacted_away():
    order = SendOrder()
    first, second, third = _numbered(1, 2, 3)
    for m in (second, third, first):
        order.push(m)
    first.state = State.GONE
    second.state = State.INFLIGHT
    live = order.compacted()
    assert order.top() is third
    assert live.pop() is third and not live


def test_the_shared_empty_attributes_refuse_changes():
    m = make_message("body")
    assert m.attributes is NO_ATTRIBUTES and m.system_attributes is NO_ATTRIBUTES
    with pytest.raises(TypeError):
        m.attributes["name"] = {"DataType": "String", "StringValue": "x"}
    assert NO_ATTRIBUTES == {}
