"""Fair queues: a MessageGroupId on a standard queue names a tenant (standard.py).

AWS's rule (sqs-fair-queues-detailed): a tenant is noisy while it holds more
than 10% of the in-flight messages and at least 30 of its own, or more than 10%
of the recent processing time; it is quiet again once its backlog is drained or
it sent nothing for 5 minutes (noisy_tenants.py); quiet tenants' messages come
first; among noisy tenants, the one with the fewest in flight.
"""

from engine_support import send


def fill(queue, tenant, count, prefix=None):
    return [send(queue, f"{prefix or tenant}{i}", group_id=tenant) for i in range(count)]


def receive_bodies(queue, count):
    return [d.message.body for d in queue.receive(count, 30, 0)]


def hold(queue, count):
    """Receive `count` messages without deleting them (they stay in flight)."""
    taken = []
    while len(taken) < count:
        taken += queue.receive(min(10, count - len(taken)), 30, 0)
    return taken


def test_a_tenant_becomes_noisy_at_30_in_flight(queue):
    fill(queue, "A", 40)
    fill(queue, "B", 3)
    hold(queue, 29)  # A holds 29 in flight: under AWS's 30, so oldest first
    assert receive_bodies(queue, 1) == ["A29"]
    assert receive_bodies(queue, 2) == ["B0", "B1"]  # now 30 of 30: noisy


def test_a_quiet_tenant_goes_before_a_noisy_tenants_backlog(queue):
    fill(queue, "A", 100)
    fill(queue, "B", 3)
    taken = hold(queue, 30)
    assert {d.message.group_id for d in taken} == {"A"}  # A now holds 30 of 30 in flight: noisy
    assert receive_bodies(queue, 5) == ["B0", "B1", "B2", "A30", "A31"]


def test_messages_without_a_group_are_always_quiet(queue):
    fill(queue, "A", 50)
    send(queue, "loner")
    hold(queue, 30)
    assert receive_bodies(queue, 2) == ["loner", "A30"]


def test_a_tenant_stops_being_noisy_when_its_share_drops(queue):
    fill(queue, "A", 60)
    fill(queue, "B", 300, prefix="B")
    held_a = hold(queue, 30)  # A: 30 of 30
    held_b = hold(queue, 10)  # B quiet: its messages come first, 10 of them
    assert {d.message.group_id for d in held_b} == {"B"}
    for delivery in held_a[:25]:
        queue.delete(delivery.receipt_handle)  # A: 5 in flight, not noisy any more
    assert receive_bodies(queue, 1) == ["A30"]  # oldest first again


def test_among_noisy_tenants_the_one_with_fewest_in_flight_goes_first(queue):
    fill(queue, "A", 100)
    hold(queue, 50)  # noisy after 30, but with no quiet tenant A goes on
    fill(queue, "B", 100)
    assert {d.message.group_id for d in hold(queue, 30)} == {"B"}  # B quiet until it holds 30
    # Both noisy now (A 50 of 80, B 30 of 80): B has fewer in flight, although A's messages are older.
    assert receive_bodies(queue, 3) == ["B30", "B31", "B32"]


def test_noisy_tenants_with_equal_in_flight_alternate_oldest_first(queue):
    fill(queue, "A", 100)
    fill(queue, "B", 100)
    hold(queue, 60)  # A0..A29, then B0..B29
    assert receive_bodies(queue, 4) == ["A30", "B30", "A31", "B31"]


def test_fair_selection_is_deterministic(broker):
    def run(name):
        queue, _ = broker.create_queue("000000000000", "us-east-1", name, {})
        for i in range(200):
            send(queue, f"{i % 7}-{i}", group_id=str(i % 7 if i % 3 else 0))
        order = []
        while batch := queue.receive(10, 30, 0):
            order += [d.message.body for d in batch]
            for delivery in batch[::2]:  # some are processed, the rest stay in flight
                queue.delete(delivery.receipt_handle)
        return order

    assert run("fair-a") == run("fair-b")


def fair(queue) -> dict:
    return queue.fair_metrics()


def test_a_tenant_noisy_by_processing_time_goes_after_quiet_ones(queue, clock):
    fill(queue, "slow", 3)
    fill(queue, "fast", 3)
    (slow,) = queue.receive(1, 60, 0)
    clock.advance(40)  # 40 s of processing for slow's message
    queue.delete(slow.receipt_handle)
    # slow: 100% of the recent processing time, with a backlog: noisy, although its messages are older.
    assert fair(queue)["ApproximateNumberOfNoisyGroups"] == 1
    assert receive_bodies(queue, 2) == ["fast0", "fast1"]


def test_a_noisy_tenant_is_quiet_after_5_minutes_without_sends(queue, clock):
    fill(queue, "slow", 3)
    fill(queue, "fast", 3)
    (slow,) = queue.receive(1, 60, 0)
    clock.advance(40)
    queue.delete(slow.receipt_handle)
    clock.advance(259)  # 299 s since slow's last send; its processing is still within the 5-minute window
    assert fair(queue)["ApproximateNumberOfNoisyGroups"] == 1
    clock.advance(1)
    assert fair(queue)["ApproximateNumberOfNoisyGroups"] == 0
    assert receive_bodies(queue, 1) == ["slow1"]  # oldest first again


def test_a_noisy_tenant_whose_backlog_drained_is_quiet(queue, clock):
    fill(queue, "slow", 1)
    fill(queue, "fast", 1)
    (slow,) = queue.receive(1, 60, 0)
    clock.advance(40)
    queue.delete(slow.receipt_handle)
    assert fair(queue)["ApproximateNumberOfNoisyGroups"] == 0  # nothing of slow waits


def test_processing_time_ends_with_the_visibility_and_leaves_the_window_after_5_minutes(queue, clock):
    fill(queue, "slow", 2)
    queue.receive(1, 30, 0)  # never deleted: its processing ends when its visibility does
    clock.advance(31)
    send(queue, "fast0", group_id="fast")
    send(queue, "slow-new", group_id="slow")  # slow keeps sending
    assert receive_bodies(queue, 1) == ["fast0"]
    clock.advance(300)  # the 30 s of processing left the window
    send(queue, "slow-newer", group_id="slow")
    assert fair(queue)["ApproximateNumberOfNoisyGroups"] == 0
    assert receive_bodies(queue, 1) == ["slow0"]


def test_the_fair_queue_metrics_count_quiet_tenants_messages(queue, clock):
    fill(queue, "A", 40)
    fill(queue, "B", 2)
    send(queue, "loner")
    send(queue, "later", delay=60, group_id="B")
    send(queue, "noisy later", delay=60, group_id="A")
    hold(queue, 30)  # A0..A29: A is noisy by concurrency share
    clock.advance(7)
    assert fair(queue) == {
        "ApproximateNumberOfNoisyGroups": 1,
        "ApproximateNumberOfMessagesVisibleInQuietGroups": 3,  # B0, B1 and the loner
        "ApproximateNumberOfMessagesNotVisibleInQuietGroups": 0,
        "ApproximateNumberOfMessagesDelayedInQuietGroups": 1,
        "ApproximateAgeOfOldestMessageInQuietGroups": 7,
    }
