"""Fault injection (faults.py), on the manual clock."""

import pytest
from engine_support import counts, send

from emulator.engine.faults import FaultPolicy
from emulator.engine.message import State

ALL = frozenset(State) - {State.GONE}


def test_duplicate_delivery_hands_a_held_message_to_a_second_consumer(queue):
    queue.faults = FaultPolicy(duplicate_delivery=1.0, seed=1)
    message = send(queue, "m")
    [first] = queue.receive(1, 30, 0)
    [second] = queue.receive(1, 30, 0)
    assert first.message is second.message is message
    assert first.receipt_handle != second.receipt_handle
    assert second.receive_count == 2
    assert queue.stats.duplicate_deliveries == 2


def test_lost_delete_answers_success_and_the_message_comes_back(queue, clock):
    queue.faults = FaultPolicy(lost_delete=1.0, seed=1)
    send(queue, "m")
    [delivery] = queue.receive(1, 30, 0)
    queue.delete(delivery.receipt_handle)
    assert counts(queue) == (0, 1, 0)
    clock.advance(30)
    [again] = queue.receive(1, 30, 0)
    assert again.receive_count == 2
    assert queue.stats.lost_deletes == 1 and queue.stats.deleted == 0


def test_delayed_visibility_holds_a_sent_message_back(queue, clock):
    queue.faults = FaultPolicy(delayed_visibility_seconds=5)
    send(queue, "m")
    assert queue.receive(1, 30, 0) == []
    clock.advance(5)
    assert len(queue.receive(1, 30, 0)) == 1
    assert queue.stats.delayed_visibilities == 1


def test_seeded_faults_repeat_exactly(broker):
    def run(name):
        queue, _ = broker.create_queue("000000000000", "us-east-1", name, {})
        queue.faults = FaultPolicy(duplicate_delivery=0.3, lost_delete=0.3, seed=42)
        for i in range(50):
            send(queue, str(i))
        events = []
        for _ in range(50):
            for delivery in queue.receive(1, 30, 0):
                queue.delete(delivery.receipt_handle)
                events.append((delivery.message.body, delivery.receive_count))
        return events, queue.stats.as_dict()

    assert run("a") == run("b")


@pytest.mark.parametrize(
    "bad", [{"duplicate_delivery": 1.5}, {"lost_delete": -0.1}, {"delayed_visibility_seconds": 901}]
)
def test_fault_values_are_checked(bad):
    with pytest.raises(ValueError):
        FaultPolicy(**bad)
