"""Helpers the engine tests share: messages, counters, long-poll threads.

Only the engine is touched here; time moves on a manual clock.
"""

import hashlib
import threading
import time
import uuid

import pytest

from emulator.engine import receipts
from emulator.engine.long_polls import wait_here
from emulator.engine.message import Message, State
from emulator.errors import SqsError

ACCOUNT = "000000000000"
REGION = "us-east-1"
T0 = 1_000_000.0  # a round start time keeps the clock's arithmetic exact


def make_message(body: str = "hello", group_id: str | None = None, dedup_id: str | None = None) -> Message:
    key = uuid.uuid4().bytes + hashlib.md5(body.encode()).digest()
    return Message(key, body, {}, {}, None, "AIDATEST", group_id, dedup_id)


def send(
    queue, body: str = "hello", delay: int = 0, group_id: str | None = None, dedup_id: str | None = None
) -> Message:
    message = make_message(body, group_id, dedup_id)
    queue.send([(message, delay)])
    return message


def counts(queue) -> tuple[int, int, int]:
    """(visible, in flight, delayed)."""
    c = queue.counts()
    return (
        c["ApproximateNumberOfMessages"],
        c["ApproximateNumberOfMessagesNotVisible"],
        c["ApproximateNumberOfMessagesDelayed"],
    )


def handle_message_id(handle: str) -> str:
    """The id (as text) of the message a receipt handle names."""
    _, message_id, _ = receipts.decode(handle)
    return str(uuid.UUID(bytes=message_id))


def error_name(call, *args) -> str:
    with pytest.raises(SqsError) as info:
        call(*args)
    return info.value.name


def assert_change_visibility_on_visible_changes_nothing(queue, handle, timeout=10) -> None:
    """ChangeMessageVisibility with the latest handle of a message that is visible again.

    AWS answers 200 and changes nothing (recorded in LocalStack's AWS-validated
    test_change_message_visibility_after_visibility_timeout_expiration): the
    message stays visible and the counters unchanged.
    """
    seq, _, _ = receipts.decode(handle)
    before = counts(queue)
    queue.change_visibility(handle, timeout)
    assert counts(queue) == before
    assert queue._messages[seq].state is State.VISIBLE


def wait_for_long_poll(queue, waiters: int = 1, timeout: float = 2.0) -> None:
    """Block until `waiters` receives wait in the queue's long poll: with a manual clock a
    long poll started after an advance() would compute a later deadline, so a test must
    know the poll is parked before it moves time. (A receiver counts as waiting from
    under the queue's lock until its wait has released the lock.)"""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if queue.polls.waiting() >= waiters:
            return
        time.sleep(0.001)
    raise AssertionError(f"no long poll parked on {queue.name} within {timeout}s")


def wait_until(condition, timeout: float = 2.0) -> None:
    """Block until condition() holds (another thread's doing), checking every millisecond."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"not true within {timeout}s")
        time.sleep(0.001)


class Poller(threading.Thread):
    """A long poll on a thread, waiting as the server's thread driver does (wait_here on the
    queue's wake-ups and the clock's deadline); keeps its result or error."""

    def __init__(self, queue, max_messages=10, visibility_timeout=30, wait_seconds=20, attempt_id=None):
        super().__init__(daemon=True)
        self.args = (max_messages, visibility_timeout, wait_seconds, attempt_id)
        self.queue = queue
        self.result = None
        self.error = None
        self.returned_at = None

    def run(self):
        try:
            self.result = long_poll(self.queue, *self.args)
        except Exception as error:  # surfaced by the test
            self.error = error
        self.returned_at = time.monotonic()


def long_poll(queue, max_messages=10, visibility_timeout=30, wait_seconds=20, attempt_id=None):
    """A receive that waits up to wait_seconds on the queue's clock for a message."""
    deadline = queue._clock.deadline(wait_seconds)
    polls = queue.polls

    def attempt(last):
        return polls.poll(max_messages, visibility_timeout, wait_seconds, attempt_id, last)

    return wait_here(polls, deadline, attempt)


def one_in_each_state(queue):
    """Send a visible, an in-flight (5 min visibility) and a delayed (15 min) message."""
    inflight = send(queue, "inflight")
    [delivery] = queue.receive(1, 300, 0)
    assert delivery.message is inflight
    visible = send(queue, "visible")
    delayed = send(queue, "delayed", delay=900)
    assert counts(queue) == (1, 1, 1)
    return visible, delivery, delayed
