"""Standard queues as loose as AWS's (loose.py, FaultPolicy.loose), on the manual clock.

AWS: standard queues give best-effort ordering, "messages are generally delivered in
the same order as they're sent" but occasionally out of order (SQS Developer Guide,
DistributedQueues.html); a short poll "samples a subset of its servers ... a particular
ReceiveMessage request might not return all of your messages", a long poll queries
all of them (sqs-short-and-long-polling.html).
"""

from engine_support import ACCOUNT, REGION, counts, send

from emulator.engine.broker import Broker
from emulator.engine.faults import FaultPolicy
from emulator.engine.loose import window


def loose(queue, seed=7):
    queue.faults = FaultPolicy(loose=True, seed=seed)
    return queue


def bodies(deliveries) -> list[str]:
    return [delivery.message.body for delivery in deliveries]


def test_a_long_poll_sees_every_message_in_a_shuffled_order(queue):
    loose(queue)
    sent = [str(n) for n in range(5)]
    for body in sent:
        send(queue, body)
    got = bodies(queue.receive(10, 30, 20))
    assert sorted(got) == sent  # all of them: a long poll queries every server
    assert got != sent  # seed 7: out of send order
    assert counts(queue) == (0, 5, 0)


def test_a_short_poll_sees_a_sample_and_skips_none_for_good(queue):
    loose(queue)
    sent = {str(n) for n in range(5)}
    for body in sent:
        send(queue, body)
    polls = []  # (visible before the poll, what it answered)
    while counts(queue)[0]:
        visible = counts(queue)[0]
        polls.append((visible, bodies(queue.receive(10, 30, 0))))
    assert any(0 < len(got) < visible for visible, got in polls)  # fewer than there were
    received = [body for _, got in polls for body in got]
    assert sorted(received) == sorted(sent)  # each exactly once: what a poll skipped stayed visible
    assert counts(queue) == (0, 5, 0)


def test_an_empty_short_poll_while_messages_wait_leaves_them_visible(queue):
    loose(queue, seed=0)
    send(queue, "only")
    empties = 0
    while not queue.receive(1, 30, 0):
        empties += 1
        assert counts(queue) == (1, 0, 0)
    assert empties >= 1  # seed 0: the first short poll misses it
    assert counts(queue) == (0, 1, 0)


def test_a_receive_looks_at_a_window_of_the_oldest_never_the_whole_queue(queue):
    loose(queue)
    for n in range(1000):
        send(queue, str(n))
    for _ in range(20):
        [delivery] = queue.receive(1, 30, 20)
        # Of the oldest window(1) still visible: the ones taken so far are at most 20 of them.
        assert int(delivery.message.body) < window(1) + 20


def test_later_receives_take_what_earlier_ones_left_older_first(queue):
    loose(queue)
    for n in range(6):
        send(queue, str(n))
    got = [body for _ in range(6) for body in bodies(queue.receive(1, 30, 20))]
    assert sorted(got) == [str(n) for n in range(6)] and got != sorted(got)


def test_a_fifo_queue_keeps_its_order_even_with_a_loose_policy(broker):
    fifo, _ = broker.create_queue(ACCOUNT, REGION, "q.fifo", {"FifoQueue": "true"})
    loose(fifo)
    for n in range(5):
        send(fifo, str(n), group_id="g", dedup_id=str(n))
    assert bodies(fifo.receive(10, 30, 0)) == [str(n) for n in range(5)]


def test_the_same_seed_gives_the_same_answers(broker):
    def run(name):
        queue, _ = broker.create_queue(ACCOUNT, REGION, name, {})
        loose(queue, seed=42)
        for n in range(30):
            send(queue, str(n))
        return [bodies(queue.receive(3, 30, wait)) for wait in (0, 20) * 8]

    assert run("a") == run("b")


def test_the_brokers_loose_seed_loosens_each_standard_queue_it_makes(clock):
    broker = Broker(clock, loose_seed=3)
    try:
        standard, _ = broker.create_queue(ACCOUNT, REGION, "s", {})
        fifo, _ = broker.create_queue(ACCOUNT, REGION, "f.fifo", {"FifoQueue": "true"})
        assert standard.faults == FaultPolicy(loose=True, seed=3)
        assert fifo.faults is None
    finally:
        broker.close()


def test_without_the_policy_a_standard_queue_serves_oldest_first(queue):
    for n in range(5):
        send(queue, str(n))
    assert bodies(queue.receive(10, 30, 0)) == [str(n) for n in range(5)]
