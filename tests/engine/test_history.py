"""Every message's story (history.py), on the manual clock: its bounds, the transitions only
time makes (expiry, a visibility timeout's end), a purge, and a broker that keeps none."""

import pytest
from engine_support import T0, send

from emulator.engine import history, receipts
from emulator.engine.broker import Broker
from emulator.errors import SqsError

ACCOUNT, REGION = "000000000000", "us-east-1"


@pytest.fixture
def keeping(clock):
    """A broker whose queues keep 5 stories each."""
    broker = Broker(clock, histories=5)
    yield broker
    broker.close()


def new_queue(broker, name="q", **attributes):
    return broker.create_queue(ACCOUNT, REGION, name, {"VisibilityTimeout": "30", **attributes})[0]


def names(queue, message) -> list[str]:
    return [event["event"] for event in queue.history.story(message.key)]


def test_a_broker_without_histories_keeps_none(queue):
    assert queue.history is None
    send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.delete(delivery.receipt_handle)  # every recording point passes the None by


def test_the_oldest_story_is_dropped_and_counted_at_the_cap(keeping):
    queue = new_queue(keeping)
    sent = [send(queue, f"m{i}") for i in range(7)]
    assert queue.history.story(sent[0].key) is None and queue.history.story(sent[1].key) is None
    assert names(queue, sent[6]) == ["sent"]
    assert queue.history.counts() == {"kept": 5, "limit": 5, "dropped": 2, "forgotten": 0, "empty_short_polls": 0}
    # a message whose story was dropped gets one from its next event on
    queue.receive(1, 30, 0)
    assert names(queue, sent[0]) == ["received"]


def test_ended_stories_are_kept_until_newer_ones_end(keeping, monkeypatch):
    monkeypatch.setattr(history, "KEPT_ENDED", 2)
    queue = new_queue(keeping)
    sent = [send(queue, f"m{i}") for i in range(3)]
    for delivery in queue.receive(3, 30, 0):
        queue.delete(delivery.receipt_handle)
    assert queue.history.story(sent[0].key) is None  # the oldest ended story went for the two newer
    assert names(queue, sent[2]) == ["sent", "received", "deleted"]
    assert queue.history.counts()["forgotten"] == 1


def test_a_long_story_keeps_its_send_and_its_latest_events(keeping, monkeypatch):
    monkeypatch.setattr(history, "MAX_EVENTS", 4)
    queue = new_queue(keeping)
    message = send(queue)
    for _ in range(3):
        [delivery] = queue.receive(1, 30, 0)
        queue.change_visibility(delivery.receipt_handle, 0)
    told = queue.history.story(message.key)
    assert [event["event"] for event in told] == ["sent", "visibility_changed", "received", "visibility_changed"]
    assert told[0]["later_events_dropped"] == 3 and told[2]["receive_count"] == 3


def test_time_made_transitions_are_told_expiry_and_a_visibility_timeouts_end(keeping, clock):
    queue = new_queue(keeping, MessageRetentionPeriod="60")
    message = send(queue)
    queue.receive(1, 10, 0)
    clock.advance(10)
    clock.advance(50)
    told = queue.history.story(message.key)
    assert [event["event"] for event in told] == ["sent", "received", "visibility_timeout_ended", "expired"]
    assert [event["at"] for event in told] == [T0, T0, T0 + 10, T0 + 60]


def test_a_purge_ends_every_story_and_short_polls_that_got_nothing_are_counted(keeping):
    queue = new_queue(keeping)
    assert queue.receive(10, 30, 0) == [] and queue.receive(10, 30, 0) == []
    message = send(queue)
    queue.purge()
    assert names(queue, message) == ["sent", "purged"]
    assert queue.history.counts()["empty_short_polls"] == 2
    assert queue.history.stories(10)[0]["ended"] is True


def test_a_strict_queue_refuses_a_stale_delete_and_says_so(clock):
    broker = Broker(clock, receipts="strict", histories=5)
    try:
        queue = new_queue(broker)
        message = send(queue)
        [first] = queue.receive(1, 30, 0)
        queue.change_visibility(first.receipt_handle, 0)
        queue.receive(1, 30, 0)
        queue.delete(first.receipt_handle)
        refused = queue.history.story(message.key)[-1]
        assert (refused["event"], refused["stale"], refused["of_receive"]) == ("delete_refused", True, 1)
        notable = queue.history.notable()
        assert notable["stale_deletes"] == [{"id": message.id, "of_receive": 1}]
        assert notable["received_more_than_once"] == [{"id": message.id, "receives": 2}]
    finally:
        broker.close()


def test_a_handle_of_a_message_gone_is_noted_on_its_kept_story(keeping):
    queue = new_queue(keeping)
    message = send(queue)
    [delivery] = queue.receive(1, 30, 0)
    queue.delete(delivery.receipt_handle)
    queue.delete(delivery.receipt_handle)  # again: AWS answers success
    assert names(queue, message) == ["sent", "received", "deleted", "delete_of_gone_message"]


def test_ids_that_are_not_uuids_name_no_story(keeping):
    assert history.id_key("not an id") is None and keeping.story("not an id") == []


def test_a_layer_above_notes_what_it_did_to_a_message(keeping):
    # the hook for injected errors (issue 39 item 1): by the id in a receipt handle
    queue = new_queue(keeping)
    message = send(queue)
    [delivery] = queue.receive(1, 30, 0)
    key = receipts.decode(delivery.receipt_handle)[1]
    queue.history.note(key, "injected_error", operation="DeleteMessage", code="InternalError")
    told = queue.history.story(message.key)[-1]
    assert (told["event"], told["operation"], told["code"]) == ("injected_error", "DeleteMessage", "InternalError")


def test_a_fifo_queues_expired_handle_is_a_stale_delete_in_the_story(keeping, clock):
    queue = keeping.create_queue(ACCOUNT, REGION, "q.fifo", {"FifoQueue": "true", "VisibilityTimeout": "10"})[0]
    message = send(queue, group_id="g", dedup_id="d")
    [delivery] = queue.receive(1, 10, 0)
    clock.advance(11)
    with pytest.raises(SqsError):
        queue.delete(delivery.receipt_handle)  # AWS: the receipt handle has expired
    refused = queue.history.story(message.key)[-1]
    assert (refused["event"], refused["stale"], refused["of_receive"]) == ("delete_refused", True, 1)
