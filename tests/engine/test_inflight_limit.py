"""The in-flight limit (read from emulator.limits at call time, so a test can lower it)."""

import pytest
from engine_support import (
    Poller,
    counts,
    error_name,
    make_message,
    send,
    wait_for_long_poll,
)

from emulator import limits
from emulator.limits import MAX_INFLIGHT

LIMIT = 5  # the limit is patched down: 120,000 real in-flight messages take seconds to build


@pytest.fixture
def small_inflight_limit(monkeypatch):
    monkeypatch.setattr(limits, "MAX_INFLIGHT", LIMIT)


def _fill_to_inflight_limit(queue):
    queue.send([(make_message("x"), 0) for _ in range(LIMIT)])
    assert len(queue.receive(LIMIT, 300, 0)) == LIMIT
    assert counts(queue) == (0, LIMIT, 0)


def test_inflight_limit_is_aws_standard_queue_limit():
    assert MAX_INFLIGHT == 120_000


def test_receive_at_inflight_limit_is_over_limit(queue, small_inflight_limit):
    _fill_to_inflight_limit(queue)
    send(queue, "one more")
    assert error_name(queue.receive, 10, 30, 0) == "OverLimit"
    assert queue.receive(10, 30, 5) == []  # a long poll gets no error (AWS quotas-queues)
    assert counts(queue) == (1, LIMIT, 0)


def test_long_poll_at_inflight_limit_gets_nothing(queue, small_inflight_limit):
    # The long poll starts on an empty queue and the message arrives while it
    # waits: it must not slip past the limit. AWS (quotas-queues): "If you reach
    # this quota [...] with long polling, Amazon SQS returns no error", so an
    # empty answer, not OverLimit.
    _fill_to_inflight_limit(queue)
    poller = Poller(queue, wait_seconds=20)
    poller.start()
    wait_for_long_poll(queue)
    send(queue, "one more")
    poller.join(timeout=2)
    assert not poller.is_alive()
    assert poller.error is None and poller.result == []
    assert counts(queue) == (1, LIMIT, 0)
