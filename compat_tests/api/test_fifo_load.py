"""FIFO through real clients under load: 20 groups, 8 consumers, 10,000 messages.

Each consumer is its own boto3 client on its own thread. Sometimes a consumer
hands its batch back (ChangeMessageVisibilityBatch to 0) instead of processing
it. Per group, messages are processed in send order, and no group is ever held
by two consumers at once (a consumer marks its groups released just before the
call that releases them on the server, so an overlap seen here is real).
"""

import random
import threading
import time
from collections import defaultdict

from compat_tests.helpers import counts, unique_name

GROUPS = 20
CONSUMERS = 8
TOTAL = 10_000
BUDGET = 240.0


def test_groups_keep_order_and_are_never_held_twice(sqs, make_client, queue_factory):
    url = queue_factory(name=unique_name("load") + ".fifo", attributes={"FifoQueue": "true"})
    for start in range(0, TOTAL, 10):
        entries = [
            {"Id": str(n), "MessageBody": str(n), "MessageGroupId": f"g{n % GROUPS}", "MessageDeduplicationId": str(n)}
            for n in range(start, start + 10)
        ]
        assert "Failed" not in sqs.send_message_batch(QueueUrl=url, Entries=entries)

    deadline = time.monotonic() + BUDGET
    holders: dict[str, int] = {}
    processed: dict[str, list[int]] = defaultdict(list)
    violations: list[str] = []
    errors: list[BaseException] = []
    book = threading.Lock()
    done = threading.Event()

    def consume(c: int) -> None:
        client = make_client()
        rng = random.Random(c)
        try:
            while not done.is_set() and time.monotonic() < deadline:
                messages = client.receive_message(
                    QueueUrl=url,
                    MaxNumberOfMessages=10,  # short polls: the server clock is manual
                    AttributeNames=["MessageGroupId"],
                ).get("Messages", [])
                if not messages:
                    continue
                groups = {m["Attributes"]["MessageGroupId"] for m in messages}
                hand_back = rng.random() < 0.1
                with book:
                    for group in groups:
                        if group in holders:
                            violations.append(f"{group} held by consumers {holders[group]} and {c}")
                        holders[group] = c
                    for group in groups:
                        del holders[group]
                    if not hand_back:
                        for m in messages:
                            processed[m["Attributes"]["MessageGroupId"]].append(int(m["Body"]))
                    if sum(map(len, processed.values())) >= TOTAL:
                        done.set()
                handles = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
                if hand_back:
                    result = client.change_message_visibility_batch(
                        QueueUrl=url, Entries=[{**h, "VisibilityTimeout": 0} for h in handles]
                    )
                else:
                    result = client.delete_message_batch(QueueUrl=url, Entries=handles)
                assert "Failed" not in result, result
        except BaseException as error:
            errors.append(error)
            done.set()

    threads = [threading.Thread(target=consume, args=(c,), daemon=True) for c in range(CONSUMERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.1, deadline - time.monotonic() + 5))

    assert not [t for t in threads if t.is_alive()], "consumers still running"
    assert errors == []
    assert violations == []
    for g in range(GROUPS):
        assert processed[f"g{g}"] == list(range(g, TOTAL, GROUPS)), f"group g{g} out of order"
    assert counts(sqs, url) == (0, 0, 0)
