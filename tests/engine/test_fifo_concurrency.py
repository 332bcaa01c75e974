"""FIFO under load on the real clock: 20 groups, 8 consumers, 10,000 messages.

Consumers sometimes hand a batch back (ChangeMessageVisibility 0) instead of
processing it, so groups are redelivered. Per group, messages are processed
in send order, and no group is ever held by two consumers at once.
"""

import random
import threading
import time
from collections import defaultdict

from engine_support import ACCOUNT, REGION, counts, long_poll, make_message

from emulator.engine.broker import Broker

GROUPS = 20
CONSUMERS = 8
TOTAL = 10_000
BUDGET = 60.0  # seconds; every wait below is bounded by it


def test_groups_keep_order_and_are_never_held_twice_under_concurrent_consumers():
    broker = Broker()  # real clock, scheduler thread running
    try:
        queue, _ = broker.create_queue(ACCOUNT, REGION, "load.fifo", {"FifoQueue": "true"})
        deadline = time.monotonic() + BUDGET
        holders: dict[str, int] = {}  # group -> consumer holding it
        processed: dict[str, list[int]] = defaultdict(list)
        violations: list[str] = []
        errors: list[BaseException] = []
        book = threading.Lock()
        done = threading.Event()

        def produce() -> None:
            try:
                for start in range(0, TOTAL, 10):
                    batch = []
                    for n in range(start, start + 10):
                        group = f"g{n % GROUPS}"
                        batch.append((make_message(f"{group}:{n}", group, str(n)), 0))
                    queue.send(batch)
            except BaseException as error:
                errors.append(error)

        def consume(c: int) -> None:
            rng = random.Random(c)
            try:
                while not done.is_set() and time.monotonic() < deadline:
                    deliveries = long_poll(queue, 10, 30, 1)
                    groups = {d.message.group_id for d in deliveries}
                    with book:
                        for group in groups:
                            if group in holders:
                                violations.append(f"{group} held by {holders[group]} and {c}")
                            holders[group] = c
                    hand_back = rng.random() < 0.1
                    with book:
                        for group in groups:
                            del holders[group]  # released before the calls that let others in
                        if not hand_back:
                            for delivery in deliveries:
                                group, n = delivery.message.body.split(":")
                                processed[group].append(int(n))
                    for delivery in deliveries:
                        if hand_back:
                            queue.change_visibility(delivery.receipt_handle, 0)
                        else:
                            queue.delete(delivery.receipt_handle)
                    with book:
                        if sum(len(v) for v in processed.values()) >= TOTAL:
                            done.set()
            except BaseException as error:
                errors.append(error)
                done.set()

        threads = [threading.Thread(target=produce, daemon=True)]
        threads += [threading.Thread(target=consume, args=(c,), daemon=True) for c in range(CONSUMERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(0.1, deadline - time.monotonic() + 2))

        assert not [t for t in threads if t.is_alive()], "threads still running"
        assert errors == []
        assert violations == []
        for g in range(GROUPS):
            assert processed[f"g{g}"] == list(range(g, TOTAL, GROUPS)), f"group g{g} out of order"
        assert counts(queue) == (0, 0, 0)
    finally:
        broker.close()
