"""Every message's story (issue 39 item 4), through real boto3 clients against the running
server, read back through the admin API: sent (who and how), each receive, visibility
changes, deletes (with a stale handle too), faults, the move to a dead-letter queue with its
reason, and a redrive back under a new id.

The story is the emulator's own (AWS keeps none); what it records follows AWS's documented
behaviour: each receive gets a new receipt handle ("If you receive a message more than once,
the receipt handle you get each time you receive the message is different", the SQS API
Reference's DeleteMessage), and a message whose receive count exceeds maxReceiveCount
moves to the dead-letter queue (SQS Developer Guide, sqs-dead-letter-queues).
"""

import json
import urllib.parse

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import admin_call, arn_of, receive_one, unique_name

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="the emulator's own admin API")


def story(endpoint: str, message_id: str) -> list[dict]:
    status, answer = admin_call(endpoint, "GET", f"/_emulator/histories/{urllib.parse.quote(message_id)}")
    assert status == 200, answer
    return answer["events"]


def events(endpoint: str, message_id: str) -> list[str]:
    return [event["event"] for event in story(endpoint, message_id)]


def test_sent_received_changed_and_deleted_and_still_told_after_the_delete(endpoint, make_client, protocol):
    sqs = make_client(access_key="111122223333")  # a 12-digit key names its account
    url = sqs.create_queue(QueueName=unique_name("story"))["QueueUrl"]
    try:
        message_id = sqs.send_message(QueueUrl=url, MessageBody="order 7")["MessageId"]
        received = receive_one(sqs, url, VisibilityTimeout=30)
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=received["ReceiptHandle"], VisibilityTimeout=60)
        sqs.delete_message(QueueUrl=url, ReceiptHandle=received["ReceiptHandle"])

        told = story(endpoint, message_id)  # after the delete: the story is kept
        assert [event["event"] for event in told] == ["sent", "received", "visibility_changed", "deleted"]
        sent, got, changed, deleted = told
        assert (sent["account"], sent["access_key"], sent["protocol"]) == ("111122223333", "111122223333", protocol)
        assert got["receipt_handle"] == received["ReceiptHandle"]
        assert (got["receive_count"], got["visibility_timeout"]) == (1, 30)
        assert got["visible_again_at"] == pytest.approx(got["at"] + 30)
        assert (changed["visibility_timeout"], changed["stale"], changed["of_receive"]) == (60, False, 1)
        assert (deleted["stale"], deleted["of_receive"]) == (False, 1)
        assert all(event["queue"] == url for event in told)
        assert [event["at"] for event in told] == sorted(event["at"] for event in told)
    finally:
        sqs.delete_queue(QueueUrl=url)


def test_the_query_protocol_is_noted_as_the_wire_a_message_came_in_on(endpoint, raw, queue):
    answer = raw.query({"Action": "SendMessage", "QueueUrl": queue, "MessageBody": "by form"})
    assert answer.status == 200
    message_id = answer.xml().find(".//MessageId").text
    [sent] = story(endpoint, message_id)
    assert (sent["event"], sent["protocol"]) == ("sent", "query")


def test_a_stale_handle_and_the_move_to_the_dead_letter_queue_with_its_reason(endpoint, sqs, queue_factory, advance):
    dlq = queue_factory(prefix="story-dlq")
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 2})
    source = queue_factory(prefix="story-src", attributes={"RedrivePolicy": policy})
    message_id = sqs.send_message(QueueUrl=source, MessageBody="poison")["MessageId"]
    first = receive_one(sqs, source, VisibilityTimeout=5)
    advance(6)  # processing took longer than the visibility timeout
    receive_one(sqs, source, VisibilityTimeout=5)
    # AWS: an earlier handle still deletes on a standard queue (docs/sqs-reference.md); here the
    # visibility change with it is the stale use, and the message stays for the dead-letter move.
    sqs.change_message_visibility(QueueUrl=source, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
    assert "Messages" not in sqs.receive_message(QueueUrl=source)  # the third receive moves it

    told = story(endpoint, message_id)
    assert [event["event"] for event in told] == [
        "sent",
        "received",
        "visibility_timeout_ended",
        "received",
        "visibility_changed",
        "dead_lettered",
        "arrived_as_dead_letter",
    ]
    changed, moved, arrived = told[4:]
    assert (changed["stale"], changed["of_receive"]) == (True, 1)
    reason = "maxReceiveCount 2 reached: received 2 times, moved at receive 3"
    assert (moved["reason"], moved["to"], moved["queue"]) == (reason, arn_of(sqs, dlq), source)
    assert (arrived["reason"], arrived["source"], arrived["queue"]) == (reason, arn_of(sqs, source), dlq)

    # the dead-letter queue's stories tell it too, and a delete after the visibility ended is stale
    dead = receive_one(sqs, dlq, VisibilityTimeout=5)
    advance(6)
    sqs.delete_message(QueueUrl=dlq, ReceiptHandle=dead["ReceiptHandle"])  # AWS: it still deletes
    status, kept = admin_call(endpoint, "GET", f"/_emulator/histories?queue={urllib.parse.quote(dlq)}")
    assert status == 200 and kept["kept"] == 1 and kept["dropped"] == 0
    [only] = kept["histories"]
    assert only["id"] == message_id and only["ended"] is True
    assert only["events"][-1]["event"] == "deleted" and only["events"][-1]["stale"] is True

    status, summary = admin_call(endpoint, "GET", "/_emulator/histories/summary")
    assert status == 200
    assert {"queue": source, "id": message_id, "receives": 2} in summary["received_more_than_once"]
    # the receive count carries over into the dead-letter queue: its first receive there is the third
    assert {"queue": dlq, "id": message_id, "of_receive": 3} in summary["stale_deletes"]
    assert {"queue": source, "id": message_id, "reason": reason} in summary["dead_lettered"]
    assert {"queue": source, "count": 1} in summary["empty_short_polls"]


def test_injected_faults_are_part_of_the_story(endpoint, sqs, queue):
    status, _ = admin_call(
        endpoint, "PUT", "/_emulator/faults", {"queue": queue, "duplicate_delivery": 1, "lost_delete": 1, "seed": 3}
    )
    assert status == 200
    message_id = sqs.send_message(QueueUrl=queue, MessageBody="twice")["MessageId"]
    received = receive_one(sqs, queue, VisibilityTimeout=30)
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=received["ReceiptHandle"])
    told = story(endpoint, message_id)
    assert [event["event"] for event in told] == ["sent", "received", "fault", "fault"]
    assert [told[2]["fault"], told[3]["fault"]] == ["duplicate_delivery", "lost_delete"]


def test_a_redrive_back_is_followed_to_the_messages_new_id(endpoint, sqs, queue_factory, advance):
    dlq = queue_factory(prefix="story-back-dlq")
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 1})
    source = queue_factory(prefix="story-back", attributes={"RedrivePolicy": policy})
    message_id = sqs.send_message(QueueUrl=source, MessageBody="again")["MessageId"]
    receive_one(sqs, source, VisibilityTimeout=5)
    advance(6)
    assert "Messages" not in sqs.receive_message(QueueUrl=source)
    sqs.start_message_move_task(SourceArn=arn_of(sqs, dlq))
    back = receive_one(sqs, source)
    assert back["MessageId"] != message_id  # a move task's copy is a new message

    told = story(endpoint, message_id)
    assert [event["event"] for event in told][-3:] == ["redriven", "arrived_by_redrive", "received"]
    assert told[-3]["new_id"] == back["MessageId"] and told[-2]["original_id"] == message_id
    assert events(endpoint, back["MessageId"]) == [event["event"] for event in told]  # the same story either way


def test_a_message_never_sent_has_no_story(endpoint):
    status, answer = admin_call(endpoint, "GET", "/_emulator/histories/6f1c1bd0-9d1e-4c4e-9a53-1b2a3c4d5e6f")
    assert status == 404 and "no story" in answer["error"]
    assert admin_call(endpoint, "GET", "/_emulator/histories/not-an-id")[0] == 404
