"""Concurrency on the real clock, and a model-based random test on the manual clock.

The threaded test checks the receive invariant under contention: every message
is delivered, none is lost, none is delivered twice inside one visibility
window. The random test drives one queue through long random sequences of
operations and checks, after each, that every message is in exactly the state
a simple model says and that the counters equal the model's.
"""

import random
import threading
import time
from collections import Counter

import pytest
from engine_support import ACCOUNT, REGION, counts, handle_message_id, long_poll, make_message, wait_for_long_poll

from emulator.engine import receipts
from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.engine.message import Message, State
from emulator.errors import SqsError

# -- real clock, many threads ---------------------------------------------------

PRODUCERS = 8
CONSUMERS = 8
PER_PRODUCER = 2_500  # 20,000 messages in all
BATCH = 10
TOTAL = PRODUCERS * PER_PRODUCER
TEST_BUDGET = 45.0  # seconds; every wait below is bounded by it


def test_many_producers_and_consumers_deliver_every_message_exactly_once():
    broker = Broker()  # real clock, scheduler thread running
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "busy", {"VisibilityTimeout": "30"})
        deadline = time.monotonic() + TEST_BUDGET
        received_total = 0
        total_lock = threading.Lock()
        all_received = threading.Event()
        errors: list[BaseException] = []
        per_consumer: list[list[tuple[str, int]]] = [[] for _ in range(CONSUMERS)]

        def produce(p: int) -> None:
            try:
                for start in range(0, PER_PRODUCER, BATCH):
                    batch = [(make_message(f"p{p}-{i}"), 0) for i in range(start, start + BATCH)]
                    queue.send(batch)
                    if time.monotonic() > deadline:
                        return
            except BaseException as error:
                errors.append(error)

        def consume(c: int) -> None:
            nonlocal received_total
            seen = per_consumer[c]
            try:
                while not all_received.is_set() and time.monotonic() < deadline:
                    deliveries = long_poll(queue, 10, 30, 1)
                    for delivery in deliveries:
                        seen.append((delivery.message.body, delivery.receive_count))
                        queue.delete(delivery.receipt_handle)
                    if deliveries:
                        with total_lock:
                            received_total += len(deliveries)
                            if received_total >= TOTAL:
                                all_received.set()
            except BaseException as error:
                errors.append(error)
                all_received.set()

        consumers = [threading.Thread(target=consume, args=(c,), daemon=True) for c in range(CONSUMERS)]
        producers = [threading.Thread(target=produce, args=(p,), daemon=True) for p in range(PRODUCERS)]
        started = time.monotonic()
        for thread in consumers + producers:
            thread.start()
        for thread in producers + consumers:
            thread.join(timeout=max(0.1, deadline - time.monotonic() + 2))
        elapsed = time.monotonic() - started

        assert not [t for t in producers + consumers if t.is_alive()], "threads still running"
        assert errors == []
        bodies = Counter(body for seen in per_consumer for body, _ in seen)
        expected = {f"p{p}-{i}" for p in range(PRODUCERS) for i in range(PER_PRODUCER)}
        missing = expected - set(bodies)
        duplicated = {body: n for body, n in bodies.items() if n > 1}
        assert not missing, f"{len(missing)} messages never delivered"
        assert not duplicated, f"{len(duplicated)} messages delivered more than once"
        assert set(bodies) == expected
        assert sum(bodies.values()) == TOTAL
        assert all(count == 1 for seen in per_consumer for _, count in seen)
        assert counts(queue) == (0, 0, 0)
        assert elapsed < TEST_BUDGET
    finally:
        broker.close()


def test_concurrent_receives_never_share_a_message():
    # No deletes: with a 30 s visibility, each message can be handed out once only.
    broker = Broker()
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "race", {})
        n = 5_000
        queue.send([(make_message(str(i)), 0) for i in range(n)])
        got: list[list[str]] = [[] for _ in range(8)]
        barrier = threading.Barrier(8)

        def grab(k: int) -> None:
            barrier.wait(timeout=5)
            while True:
                deliveries = queue.receive(10, 30, 0)
                if not deliveries:
                    return
                got[k].extend(d.message.id for d in deliveries)

        threads = [threading.Thread(target=grab, args=(k,), daemon=True) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=20)
        assert not any(t.is_alive() for t in threads)
        ids = [i for g in got for i in g]
        assert len(ids) == n == len(set(ids))
        assert counts(queue) == (0, n, 0)
    finally:
        broker.close()


def test_long_poll_on_real_clock_is_woken_by_a_send():
    broker = Broker()
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "fast", {})
        result: dict = {}

        def poll() -> None:
            result["deliveries"] = long_poll(queue, 1, 30, 20)
            result["at"] = time.monotonic()

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        wait_for_long_poll(queue)
        sent_at = time.monotonic()
        queue.send([(make_message("ping"), 0)])
        thread.join(timeout=15)
        assert not thread.is_alive()
        assert [d.message.body for d in result["deliveries"]] == ["ping"]
        # Well inside the 20 s wait, however slow the machine: a poll the send did not wake would run to its end.
        assert result["at"] - sent_at < 10
    finally:
        broker.close()


def test_long_poll_on_real_clock_times_out_empty():
    broker = Broker()
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "empty", {})
        start = time.monotonic()
        assert long_poll(queue, 10, 30, 1) == []
        assert 0.9 <= time.monotonic() - start < 15  # not before its 1 s wait; the upper bound only catches a hang
    finally:
        broker.close()


# -- model-based random test on the manual clock ---------------------------------

T0 = 2_000_000.0
MAX_VISIBILITY = 43_200


class Model:
    """What the queue should hold: one state per message and its deadlines."""

    def __init__(self, retention: int):
        self.now = T0
        self.retention = retention
        self.state: dict[str, State] = {}
        self.sent_at: dict[str, float] = {}
        self.delay_until: dict[str, float] = {}
        self.visible_at: dict[str, float] = {}  # in flight until
        self.received_at: dict[str, float] = {}
        self.receive_count: dict[str, int] = {}
        self.latest: dict[str, str] = {}  # message id -> latest receipt handle
        self.order: dict[str, int] = {}  # message id -> send order

    def live(self, wanted: State) -> set[str]:
        return {mid for mid, s in self.state.items() if s is wanted}

    def counts(self) -> tuple[int, int, int]:
        return (len(self.live(State.VISIBLE)), len(self.live(State.INFLIGHT)), len(self.live(State.DELAYED)))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for mid, state in self.state.items():
            if state is State.GONE:
                continue
            if self.sent_at[mid] + self.retention <= self.now:
                self.state[mid] = State.GONE
            elif (state is State.DELAYED and self.delay_until[mid] <= self.now) or (
                state is State.INFLIGHT and self.visible_at[mid] <= self.now
            ):
                self.state[mid] = State.VISIBLE


def check(queue, model: Model, messages: dict[str, Message], step: str) -> None:
    assert counts(queue) == model.counts(), step
    for mid, state in model.state.items():
        assert messages[mid].state is state, f"{step}: message {mid} is {messages[mid].state}, model says {state}"
    # Every live message is in exactly one place (private structures, read for the invariant).
    assert {message.id for message in queue._messages} == {
        mid for mid, s in model.state.items() if s is not State.GONE
    }, step


def run_random_sequence(seed: int, steps: int, receipt_mode: str) -> None:
    """Random operations on one standard queue against a model; receipt_mode says
    what an earlier handle may do (aws: any handle of a live message acts;
    strict: only the latest)."""
    rng = random.Random(seed)
    clock = ManualClock(start=T0)
    broker = Broker(clock, receipts=receipt_mode)
    retention = rng.choice([60, 120, 600])
    queue, _ = broker.create_queue(ACCOUNT, REGION, f"prop{seed}", {"MessageRetentionPeriod": str(retention)})
    model = Model(retention)
    messages: dict[str, Message] = {}
    handles: list[str] = []  # every handle ever issued, stale ones included
    serial = 0

    def pick_handle() -> str:
        if rng.random() < 0.6:
            latest = [h for mid, h in model.latest.items() if model.state[mid] is not State.GONE]
            if latest:
                return rng.choice(latest)
        return rng.choice(handles)

    try:
        for step_no in range(steps):
            op = rng.choices(
                ["send", "receive", "delete", "change", "advance", "retention", "purge", "bad"],
                weights=[20, 20, 12, 12, 20, 3, 1, 2],
            )[0]
            step = f"seed {seed} step {step_no} {op}"

            if op == "send":
                batch = []
                for _ in range(rng.randint(1, 4)):
                    serial += 1
                    message = make_message(f"m{serial}")
                    delay = rng.choice([0, 0, 0, rng.randint(1, 30)])
                    batch.append((message, delay))
                    messages[message.id] = message
                    model.order[message.id] = serial
                    model.sent_at[message.id] = model.now
                    model.receive_count[message.id] = 0
                    if delay:
                        model.state[message.id] = State.DELAYED
                        model.delay_until[message.id] = model.now + delay
                    else:
                        model.state[message.id] = State.VISIBLE
                queue.send(batch)

            elif op == "receive":
                max_messages = rng.randint(1, 10)
                timeout = rng.choice([0, 5, 30, 30, 100])
                visible = model.live(State.VISIBLE)
                deliveries = queue.receive(max_messages, timeout, 0)
                ids = [d.message.id for d in deliveries]
                # Oldest first by send order, redelivered messages included (AWS-recorded).
                assert ids == sorted(visible, key=model.order.get)[:max_messages], step
                for delivery in deliveries:
                    mid = delivery.message.id
                    model.receive_count[mid] += 1
                    assert delivery.receive_count == model.receive_count[mid], step
                    assert delivery.receipt_handle not in handles, f"{step}: handle reused"
                    assert handle_message_id(delivery.receipt_handle) == mid
                    handles.append(delivery.receipt_handle)
                    model.latest[mid] = delivery.receipt_handle
                    model.received_at[mid] = model.now
                    if timeout > 0:
                        model.state[mid] = State.INFLIGHT
                        model.visible_at[mid] = model.now + timeout

            elif op == "delete" and handles:
                handle = pick_handle()
                mid = handle_message_id(handle)
                queue.delete(handle)  # never raises for a well-formed handle
                if model.state[mid] is not State.GONE and (receipt_mode == "aws" or model.latest[mid] == handle):
                    model.state[mid] = State.GONE

            elif op == "change" and handles:
                handle = pick_handle()
                mid = handle_message_id(handle)
                timeout = rng.choice([0, 0, 5, 30, 200, MAX_VISIBILITY, MAX_VISIBILITY + 1])
                try:
                    queue.change_visibility(handle, timeout)
                    error = None
                except SqsError as raised:
                    error = raised.name
                if model.state[mid] is State.GONE or (receipt_mode == "strict" and model.latest[mid] != handle):
                    assert error == "InvalidParameterValue", step
                elif model.state[mid] is not State.INFLIGHT:
                    # Visible again: success that changes nothing, as AWS answers.
                    assert error is None, step
                elif model.now + timeout > model.received_at[mid] + MAX_VISIBILITY:
                    assert error == "InvalidParameterValue", step
                else:
                    assert error is None, step
                    if timeout == 0:
                        model.state[mid] = State.VISIBLE
                    else:
                        model.visible_at[mid] = model.now + timeout

            elif op == "advance":
                seconds = rng.choice([0, 1, 1, 5, 10, 29, 30, 31, rng.randint(0, 120)])
                clock.advance(seconds)
                model.advance(seconds)

            elif op == "retention":
                model.retention = rng.choice([60, 90, 120, 600])
                queue.set_attributes({"MessageRetentionPeriod": str(model.retention)})
                # Takes effect when the clock next moves (the callbacks run then).

            elif op == "purge":
                queue.purge()
                for mid in model.state:
                    model.state[mid] = State.GONE

            elif op == "bad":
                bad = rng.choice(["", "nonsense", receipts.encode(1, b"id", 2)[:-1]])
                with pytest.raises(SqsError) as info:
                    rng.choice([queue.delete, lambda h: queue.change_visibility(h, 5)])(bad)
                assert info.value.name == "ReceiptHandleIsInvalid", step

            check(queue, model, messages, step)

        # Drain: far in the future every message has expired.
        clock.advance(2_000_000)
        model.advance(2_000_000)
        check(queue, model, messages, f"seed {seed} final")
        assert counts(queue) == (0, 0, 0)
    finally:
        broker.close()


@pytest.mark.parametrize("receipt_mode", ["aws", "strict"])
@pytest.mark.parametrize("seed", range(40))
def test_random_operations_match_the_model(seed, receipt_mode):
    run_random_sequence(seed, steps=400, receipt_mode=receipt_mode)
