"""The server's collector policy keeps full collections off long-lived messages
(server/collector.py); the engine and serve() leave the process's collector alone."""

import gc

import pytest
from engine_support import ACCOUNT, REGION, send

from emulator import serve
from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.server.build import Options, build
from emulator.server.collector import CollectorPolicy


@pytest.fixture
def thawed():
    gc.unfreeze()
    callbacks = list(gc.callbacks)
    yield
    gc.callbacks[:] = callbacks
    gc.unfreeze()


@pytest.fixture
def policy(thawed):
    policy = CollectorPolicy(freeze_every=100)
    yield policy
    policy.stop()


@pytest.fixture
def observed(policy):
    broker = Broker(ManualClock(), observer=policy)
    yield broker
    broker.close()


def test_a_large_load_is_frozen_as_it_goes(observed):
    queue, _ = observed.create_queue(ACCOUNT, REGION, "load", {})
    for n in range(99):
        send(queue, f"m{n}")
    assert gc.get_freeze_count() == 0
    message = send(queue, "the hundredth")
    assert gc.get_freeze_count() > 0
    assert not any(obj is message for obj in gc.get_objects())  # no collection walks it now


def test_whatever_survives_a_full_collection_is_frozen(observed, policy):
    policy.start()
    queue, _ = observed.create_queue(ACCOUNT, REGION, "kept", {})
    send(queue, "long-lived")
    gc.collect()  # runs the callbacks as an automatic full collection would
    assert gc.get_freeze_count() > 0
    assert not gc.get_objects(generation=2)


def test_deleting_a_queue_thaws_so_its_cycles_are_collected(observed, policy):
    policy.start()
    queue, _ = observed.create_queue(ACCOUNT, REGION, "doomed", {})
    send(queue, "m")
    gc.collect()
    assert gc.get_freeze_count() > 0
    observed.delete_queue(queue)
    assert gc.get_freeze_count() == 0


def test_what_start_up_loaded_is_frozen_and_close_leaves_the_collector_as_found(thawed):
    # The first full collection after start-up would otherwise walk the whole service
    # model and every module, once, in the middle of some request.
    callbacks = list(gc.callbacks)
    emulator = build(Options(port=0), listen=False)  # the command line's options: tune_gc on
    try:
        assert gc.get_freeze_count() > 0
        assert not any(obj is emulator.app for obj in gc.get_objects())
        assert len(gc.callbacks) == len(callbacks) + 1
    finally:
        emulator.close()
    assert gc.callbacks == callbacks
    assert gc.get_freeze_count() == 0


def test_the_engine_alone_leaves_the_collector_alone(thawed):
    callbacks = list(gc.callbacks)
    broker = Broker(ManualClock())
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "plain", {})
        for n in range(30_000):  # more than the policy's FREEZE_EVERY
            send(queue, f"m{n}")
        broker.delete_queue(queue)
    finally:
        broker.close()
    assert gc.callbacks == callbacks
    assert gc.get_freeze_count() == 0


def test_serve_leaves_the_callers_collector_alone_unless_asked(thawed):
    callbacks = list(gc.callbacks)
    with serve() as server:
        assert server.options.tune_gc is False
        assert gc.callbacks == callbacks
        assert gc.get_freeze_count() == 0
    with serve(tune_gc=True):
        assert gc.get_freeze_count() > 0
        assert len(gc.callbacks) == len(callbacks) + 1
    assert gc.callbacks == callbacks


def test_tune_gc_is_true_or_false():
    with pytest.raises(ValueError, match="tune_gc must be True or False"):
        Options(tune_gc="yes")  # type: ignore[arg-type]
