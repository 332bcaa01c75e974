"""The collector keeps full collections off long-lived messages (collector.py)."""

import gc

import pytest
from engine_support import ACCOUNT, REGION, send

from emulator.engine import collector
from emulator.server.build import Options, build


@pytest.fixture
def thawed():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_large_load_is_frozen_as_it_goes(broker, thawed, monkeypatch):
    monkeypatch.setattr(collector, "FREEZE_EVERY", 100)
    monkeypatch.setattr(collector, "_taken", 0)
    queue, _ = broker.create_queue(ACCOUNT, REGION, "load", {})
    for n in range(99):
        send(queue, f"m{n}")
    assert gc.get_freeze_count() == 0
    message = send(queue, "the hundredth")
    assert gc.get_freeze_count() > 0
    assert not any(obj is message for obj in gc.get_objects())  # no collection walks it now


def test_whatever_survives_a_full_collection_is_frozen(broker, thawed):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "kept", {})
    send(queue, "long-lived")
    gc.collect()  # runs the callbacks as an automatic full collection would
    assert gc.get_freeze_count() > 0
    assert not gc.get_objects(generation=2)


def test_deleting_a_queue_thaws_so_its_cycles_are_collected(broker, thawed):
    queue, _ = broker.create_queue(ACCOUNT, REGION, "doomed", {})
    send(queue, "m")
    gc.collect()
    assert gc.get_freeze_count() > 0
    broker.delete_queue(queue)
    assert gc.get_freeze_count() == 0


def test_what_start_up_loaded_is_frozen(thawed):
    # The first full collection after start-up would otherwise walk the whole service
    # model and every module, once, in the middle of some request.
    emulator = build(Options(port=0), listen=False)
    try:
        assert gc.get_freeze_count() > 0
        assert not any(obj is emulator.app for obj in gc.get_objects())
    finally:
        emulator.close()
