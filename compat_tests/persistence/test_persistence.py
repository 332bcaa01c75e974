"""--data-dir: queues, messages and their delivery state survive a restart, as a
user of a long-lived local environment expects (issue: persistence)."""

import json

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import counts, expect_error, queue_attrs
from compat_tests.restartable import Emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own data dir")

BINARY = bytes(range(256))


def test_standard_queue_attributes_tags_messages_and_delivery_state_survive(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(
            QueueName="orders", Attributes={"VisibilityTimeout": "60", "DelaySeconds": "0"}, tags={"team": "payments"}
        )["QueueUrl"]
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Version": "2012-10-17"})})
        sent = {}
        for i in range(6):
            reply = sqs.send_message(
                QueueUrl=url,
                MessageBody=f"order {i} \u00e9",
                MessageAttributes={
                    "blob": {"DataType": "Binary", "BinaryValue": BINARY},
                    "n": {"DataType": "Number", "StringValue": str(i)},
                },
                MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": f"Root=1-{i}"}},
            )
            sent[reply["MessageId"]] = reply
        sqs.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=300)
        received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=3)["Messages"]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=received[0]["ReceiptHandle"])
        before = queue_attrs(sqs, url, "All")

        emulator.restart()
        sqs = emulator.client
        assert sqs.get_queue_url(QueueName="orders")["QueueUrl"] == url
        after = queue_attrs(sqs, url, "All")
        assert after == before  # attributes, timestamps and counts alike
        assert counts(sqs, url) == (3, 2, 1)
        assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "payments"}

        # In flight until the 60 s visibility timeout set before the restart ends.
        emulator.advance(61)
        messages = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], MessageAttributeNames=["All"]
        )["Messages"]
        assert len(messages) == 5
        for message in messages:
            original = sent[message["MessageId"]]
            assert message["MD5OfBody"] == original["MD5OfMessageBody"]
            assert message["MD5OfMessageAttributes"] == original["MD5OfMessageAttributes"]
            assert message["MessageAttributes"]["blob"]["BinaryValue"] == BINARY
            assert message["Attributes"]["AWSTraceHeader"].startswith("Root=1-")
        by_id = {m["MessageId"]: m for m in messages}
        for earlier in received[1:]:
            assert by_id[earlier["MessageId"]]["Attributes"]["ApproximateReceiveCount"] == "2"
        deleted = received[0]["MessageId"]
        assert deleted not in by_id
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

        emulator.advance(300)  # the delay continues from its stored end
        late = sqs.receive_message(QueueUrl=url)["Messages"]
        assert [m["Body"] for m in late] == ["late"]


def test_receipt_handles_from_before_a_restart_still_delete(tmp_path):
    # Strict mode honours only a message's latest handle, so this proves the handle's nonce was kept.
    with Emulator(tmp_path, "--receipts", "strict") as emulator:
        sqs = emulator.client
        url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="a")
        sqs.send_message(QueueUrl=url, MessageBody="b")
        handles = [m["ReceiptHandle"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]]
        emulator.restart()
        sqs = emulator.client
        for handle in handles:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
        assert counts(sqs, url) == (0, 0, 0)


def test_fifo_order_groups_dedup_window_and_sequence_numbers_survive(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(
            QueueName="pipeline.fifo",
            Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "30"},
        )["QueueUrl"]
        sequence = []
        for group in ("a", "b"):
            for i in range(3):
                reply = sqs.send_message(QueueUrl=url, MessageBody=f"{group}{i}", MessageGroupId=group)
                sequence.append(reply["SequenceNumber"])
        first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
        assert first["Body"] == "a0"
        emulator.advance(60)  # 1 minute of the 5-minute deduplication window has passed

        emulator.restart()
        sqs = emulator.client
        # A duplicate of a message sent before the restart is accepted and not delivered again.
        again = sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b")
        assert again["SequenceNumber"] == sequence[4]
        # Group a is available again (its visibility ended while down: 60 s > 30 s); order holds within groups.
        bodies = [
            m["Body"]
            for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
        ]
        assert [b for b in bodies if b[0] == "a"] == ["a0", "a1", "a2"]
        assert [b for b in bodies if b[0] == "b"] == ["b0", "b1", "b2"]
        # The window ends 5 minutes after the original send, not after the restart.
        emulator.advance(241)
        fresh = sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b")
        assert int(fresh["SequenceNumber"]) > int(sequence[-1])


def test_the_deduplication_scope_a_fifo_queue_was_created_with_survives_a_change_and_a_restart(tmp_path):
    """Issue 18 item 4 (AWS-recorded): a changed DeduplicationScope is shown, not acted on."""
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(QueueName="scope.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"DeduplicationScope": "messageGroup"})
        emulator.restart()
        sqs = emulator.client
        assert queue_attrs(sqs, url, "DeduplicationScope") == {"DeduplicationScope": "messageGroup"}
        first = sqs.send_message(QueueUrl=url, MessageBody="a", MessageGroupId="a", MessageDeduplicationId="d")
        again = sqs.send_message(QueueUrl=url, MessageBody="b", MessageGroupId="b", MessageDeduplicationId="d")
        assert again["MessageId"] == first["MessageId"]


def test_a_fifo_group_with_a_message_in_flight_stays_blocked_across_a_restart(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(
            QueueName="locks.fifo",
            Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "100"},
        )["QueueUrl"]
        for body in ("g1", "g2"):
            sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="g")
        sqs.send_message(QueueUrl=url, MessageBody="h1", MessageGroupId="h")
        taken = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
        assert taken["Body"] == "g1"
        emulator.restart()
        sqs = emulator.client
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]] == ["h1"]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=taken["ReceiptHandle"])  # still within its visibility
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]] == ["g2"]


def test_sequence_numbers_keep_increasing_after_every_message_was_deleted(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(QueueName="seq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        last = sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="1")[
            "SequenceNumber"
        ]
        message = sqs.receive_message(QueueUrl=url)["Messages"][0]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        emulator.restart()
        following = emulator.client.send_message(
            QueueUrl=url, MessageBody="y", MessageGroupId="g", MessageDeduplicationId="2"
        )["SequenceNumber"]
        # Large, non-consecutive and still increasing across the restart (docs/sqs-reference.md 1.8; issue 18).
        assert len(following) == len(last) == 20
        assert int(following) - int(last) > 1


def test_dead_letter_links_dead_lettered_messages_and_a_move_task_in_progress_survive(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        dlq = sqs.create_queue(QueueName="work-dlq")["QueueUrl"]
        dlq_arn = queue_attrs(sqs, dlq, "QueueArn")["QueueArn"]
        policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})
        url = sqs.create_queue(QueueName="work", Attributes={"RedrivePolicy": policy, "VisibilityTimeout": "5"})[
            "QueueUrl"
        ]
        for i in range(10):
            sqs.send_message(QueueUrl=url, MessageBody=f"poison {i}")
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        emulator.advance(6)
        assert sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []) == []
        assert counts(sqs, dlq)[0] == 10
        handle = sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=1)["TaskHandle"]
        emulator.advance(3)
        task = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]
        moved_before = task["ApproximateNumberOfMessagesMoved"]
        assert task["Status"] == "RUNNING" and 0 < moved_before < 10

        emulator.restart()
        sqs = emulator.client
        assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [url]
        task = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]
        assert task["TaskHandle"] == handle and task["Status"] == "RUNNING"
        assert task["ApproximateNumberOfMessagesMoved"] == moved_before
        assert counts(sqs, dlq)[0] + counts(sqs, url)[0] == 10
        emulator.advance(20)  # the task goes on at its rate and finishes
        task = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]
        assert task["Status"] == "COMPLETED" and task["ApproximateNumberOfMessagesMoved"] == 10
        assert counts(sqs, url)[0] == 10 and counts(sqs, dlq)[0] == 0


def test_deleted_queues_purges_and_the_recreate_cooldown_survive(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        gone = sqs.create_queue(QueueName="gone")["QueueUrl"]
        sqs.send_message(QueueUrl=gone, MessageBody="x")
        sqs.delete_queue(QueueUrl=gone)
        purged = sqs.create_queue(QueueName="purged")["QueueUrl"]
        sqs.send_message(QueueUrl=purged, MessageBody="x")
        sqs.purge_queue(QueueUrl=purged)
        sqs.send_message(QueueUrl=purged, MessageBody="after the purge")

        emulator.restart()
        sqs = emulator.client
        assert [u.rsplit("/", 1)[1] for u in sqs.list_queues().get("QueueUrls", [])] == ["purged"]
        expect_error(
            sqs, sqs.create_queue, QueueName="gone", code="AWS.SimpleQueueService.QueueDeletedRecently", status=400
        )
        expect_error(
            sqs, sqs.purge_queue, QueueUrl=purged, code="AWS.SimpleQueueService.PurgeQueueInProgress", status=403
        )
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=purged)["Messages"]] == ["after the purge"]
        emulator.advance(61)
        assert sqs.create_queue(QueueName="gone")["QueueUrl"] == gone
        assert counts(sqs, gone) == (0, 0, 0)


def test_retention_and_the_manual_clock_continue_from_the_stored_time(tmp_path):
    with Emulator(tmp_path) as emulator:
        sqs = emulator.client
        url = sqs.create_queue(QueueName="short", Attributes={"MessageRetentionPeriod": "60"})["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="expires")
        then = emulator.advance(50)
        emulator.restart()
        assert emulator.advance(0) == pytest.approx(then)  # the manual clock did not jump back to the wall clock
        assert counts(emulator.client, url)[0] == 1
        emulator.advance(11)
        assert counts(emulator.client, url)[0] == 0
        emulator.restart()
        assert counts(emulator.client, url)[0] == 0


def test_a_reset_empties_the_store(tmp_path):
    with Emulator(tmp_path) as emulator:
        emulator.client.create_queue(QueueName="temporary")
        emulator.admin("/_emulator/reset")
        emulator.restart()
        assert emulator.client.list_queues().get("QueueUrls", []) == []


def test_on_the_real_clock_messages_survive_a_restart(tmp_path):
    with Emulator(tmp_path, clock="real") as emulator:
        sqs = emulator.client
        url = sqs.create_queue(QueueName="real")["QueueUrl"]
        for i in range(5):
            sqs.send_message(QueueUrl=url, MessageBody=str(i))
        emulator.restart()
        bodies = sorted(
            m["Body"] for m in emulator.client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        )
        assert bodies == ["0", "1", "2", "3", "4"]


def test_the_data_dir_and_its_files_are_the_users_alone(tmp_path):
    """Message bodies are on disk: no other local user may read them (issue 16, item 6)."""
    data_dir = tmp_path / "new" / "store"
    with Emulator(data_dir) as emulator:
        url = emulator.client.create_queue(QueueName="private")["QueueUrl"]
        emulator.client.send_message(QueueUrl=url, MessageBody="secret")
        names = sorted(path.name for path in data_dir.iterdir())
        assert any(name.endswith("-wal") for name in names) and any(name.endswith("-shm") for name in names)
        assert data_dir.stat().st_mode & 0o777 == 0o700
        for path in data_dir.iterdir():
            assert path.stat().st_mode & 0o777 == 0o600, path.name


def test_files_an_older_version_left_readable_are_made_private(tmp_path):
    with Emulator(tmp_path) as emulator:
        emulator.client.create_queue(QueueName="kept")
    for path in tmp_path.iterdir():
        path.chmod(0o644)
    with Emulator(tmp_path) as emulator:
        assert emulator.client.list_queues()["QueueUrls"]
        store = [path for path in tmp_path.iterdir() if path.name != "lock"]
        assert store and all(path.stat().st_mode & 0o777 == 0o600 for path in store)
