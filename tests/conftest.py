"""Fixtures shared by the engine, store and api tests: a manual clock, a broker on it, a standard queue."""

import pytest
from engine_support import ACCOUNT, REGION, T0

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock


@pytest.fixture
def clock():
    return ManualClock(start=T0)


@pytest.fixture
def broker(clock):
    broker = Broker(clock)
    yield broker
    broker.close()


@pytest.fixture
def queue(broker):
    queue, created = broker.create_queue(ACCOUNT, REGION, "q1", {"VisibilityTimeout": "30"})
    assert created
    return queue
