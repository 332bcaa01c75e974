"""--config FILE creates queues at start; --auto-create makes a missing queue on first use."""

import json
import urllib.request

import pytest
from botocore.exceptions import ClientError

from compat_tests.conftest import TARGET
from compat_tests.helpers import expect_error, queue_attrs, sqs_client
from compat_tests.restartable import Emulator, refused_start
from compat_tests.servers import REPO_ROOT, start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own start-up options")

EXAMPLE = REPO_ROOT / "fixtures" / "config" / "queues.toml"


@pytest.fixture
def server_with(tmp_path):
    started = []

    def start(*options):
        server = start_emulator("manual", "configured", *options)
        started.append(server)
        return server, sqs_client(server.url)

    yield start
    for server in started:
        server.stop()


def test_the_example_config_creates_its_queues_with_dead_letter_targets_by_name(server_with):
    server, sqs = server_with("--config", str(EXAMPLE))
    names = sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"])
    assert names == ["orders", "orders-dlq", "payments.fifo"]
    orders = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
    attributes = queue_attrs(sqs, orders, "All")
    assert attributes["VisibilityTimeout"] == "60"
    assert json.loads(attributes["RedrivePolicy"]) == {
        "deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:orders-dlq",
        "maxReceiveCount": 5,
    }
    assert sqs.list_queue_tags(QueueUrl=orders)["Tags"] == {"team": "payments"}
    dlq = sqs.get_queue_url(QueueName="orders-dlq")["QueueUrl"]
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [orders]
    fifo = sqs.get_queue_url(QueueName="payments.fifo")["QueueUrl"]
    assert queue_attrs(sqs, fifo, "ContentBasedDeduplication") == {"ContentBasedDeduplication": "true"}
    other = sqs_client(server.url, region="eu-west-1", access_key="111122223333")
    audit = other.get_queue_url(QueueName="audit")["QueueUrl"]
    assert audit == f"{server.url}/111122223333/audit"  # the aws URL form: the region is the signature's
    assert queue_attrs(other, audit, "QueueArn") == {"QueueArn": "arn:aws:sqs:eu-west-1:111122223333:audit"}


def test_a_queue_kept_in_the_data_dir_is_not_overwritten_and_the_difference_is_reported(tmp_path):
    config = tmp_path / "queues.toml"
    config.write_text('[[queues]]\nname = "orders"\nattributes = { VisibilityTimeout = 60 }\n')
    data = tmp_path / "data"
    with Emulator(data) as emulator:
        url = emulator.client.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "5"})["QueueUrl"]
        emulator.client.send_message(QueueUrl=url, MessageBody="still here")
        emulator.stop()
        emulator.start("--config", str(config))
        assert queue_attrs(emulator.client, url, "VisibilityTimeout") == {"VisibilityTimeout": "5"}
        assert emulator.client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "still here"
        emulator.stop()
        log = emulator.server.log_path.read_text()
        assert f"{config}: queue 'orders': attributes.VisibilityTimeout: the queue exists with" in log


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            '[[queues]]\nname = "q"\nattributes = { VisibilityTimeout = 99999 }\n',
            "queue 'q': InvalidAttributeValue: Invalid value for the parameter VisibilityTimeout.",
        ),
        ('[[queues]]\nname = "q"\ncolour = "blue"\n', "queues[0]: unknown key 'colour'"),
        ("[[queues]]\nattributes = {}\n", "queues[0]: a queue needs a name"),
        ('[[queues]]\nname = "bad name!"\n', "queue 'bad name!': InvalidParameterValue: Can only include"),
        (
            '[[queues]]\nname = "q"\nattributes = { RedrivePolicy = { deadLetterTargetArn = "missing", '
            "maxReceiveCount = 3 } }\n",
            "arn:aws:sqs:us-east-1:000000000000:missing",
        ),
        (
            '[[queues]]\nname = "a"\nattributes = { RedrivePolicy = { deadLetterTargetArn = "b", maxReceiveCount = 3 } }\n'
            '[[queues]]\nname = "b"\nattributes = { RedrivePolicy = { deadLetterTargetArn = "a", maxReceiveCount = 3 } }\n',
            "dead-letter queues form a cycle",
        ),
        (
            '[[queues]]\nname = "orders.fifo"\n',
            "queue 'orders.fifo': InvalidParameterValue: Can only include alphanumeric characters, hyphens, or "
            "underscores. 1 to 80 in length (a .fifo name is a FIFO queue's: add attributes = { FifoQueue = true })",
        ),
        ("queues = [\n", "not valid TOML"),
        ("[settings]\nx = 1\n", "unknown key 'settings'"),
    ],
)
def test_a_bad_config_stops_the_start_naming_the_file_the_queue_and_the_key(tmp_path, text, expected):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"sqs-emulator: {config}: " in result.stderr, result.stderr
    assert expected in result.stderr, result.stderr


def test_a_missing_config_file_is_named(tmp_path):
    result = refused_start("--config", str(tmp_path / "nowhere.toml"))
    assert result.returncode != 0 and f"{tmp_path / 'nowhere.toml'}: cannot read it" in result.stderr


def test_auto_create_makes_a_missing_queue_on_first_use(server_with):
    server, sqs = server_with("--auto-create")
    url = f"{server.url}/000000000000/made-on-send"
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "hello"
    assert sqs.get_queue_url(QueueName="made-on-lookup")["QueueUrl"] == f"{server.url}/000000000000/made-on-lookup"
    fifo = sqs.get_queue_url(QueueName="made.fifo")["QueueUrl"]
    assert queue_attrs(sqs, fifo, "FifoQueue") == {"FifoQueue": "true"}
    # A name no queue can have is still a missing queue.
    expect_error(
        sqs, sqs.get_queue_url, QueueName="no such name!", code="AWS.SimpleQueueService.NonExistentQueue", status=400
    )
    names = sorted(u.rsplit("/", 1)[1] for u in sqs.list_queues()["QueueUrls"])
    assert names == ["made-on-lookup", "made-on-send", "made.fifo"]


def test_a_config_file_sets_fault_policies(server_with, tmp_path):
    config = tmp_path / "faults.toml"
    config.write_text('[[queues]]\nname = "flaky"\nfaults = { lost_delete = 1.0, seed = 3 }\n')
    server, sqs = server_with("--config", str(config))
    with urllib.request.urlopen(f"{server.url}/_emulator/faults?queue=flaky", timeout=10) as response:
        assert json.loads(response.read())["faults"] == {
            "duplicate_delivery": 0.0,
            "lost_delete": 1.0,
            "delayed_visibility_seconds": 0.0,
            "loose": False,
            "seed": 3,
        }
    url = sqs.get_queue_url(QueueName="flaky")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    message = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)["Messages"][0]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["MessageId"] == message["MessageId"]


def test_a_config_file_sets_error_rules_and_kms_key_states(server_with, tmp_path):
    config = tmp_path / "errors.toml"
    config.write_text(
        '[[queues]]\nname = "busy"\n'
        '[[queues]]\nname = "sealed"\nattributes = { KmsMasterKeyId = "alias/aws/sqs" }\n'
        '[[error_rules]]\nerror = "RequestThrottled"\nqueue = "busy"\noperation = "SendMessage"\n'
        '[kms_keys]\n"alias/aws/sqs" = "pending_deletion"\n'
    )
    _, sqs = server_with("--config", str(config))
    busy = sqs.get_queue_url(QueueName="busy")["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=busy, MessageBody="x")
    assert caught.value.response["Error"]["Code"] == "RequestThrottled"
    assert "Messages" not in sqs.receive_message(QueueUrl=busy)  # another operation: answered
    sealed = sqs.get_queue_url(QueueName="sealed")["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.receive_message(QueueUrl=sealed)
    assert caught.value.response["Error"]["Code"] == "KMS.InvalidStateException"


def test_a_bad_error_rule_in_a_config_file_is_named(tmp_path):
    config = tmp_path / "errors.toml"
    config.write_text('[[error_rules]]\nerror = "RequestThrottled"\nprobability = 3\n')
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"{config}: error_rules[0]: probability is from 0 to 1" in result.stderr


def test_a_config_file_makes_a_standard_queue_loose(server_with, tmp_path):
    config = tmp_path / "loose.toml"
    config.write_text('[[queues]]\nname = "loose"\nfaults = { loose = true, seed = 1 }\n')
    _, sqs = server_with("--config", str(config))
    url = sqs.get_queue_url(QueueName="loose")["QueueUrl"]
    for n in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=str(n))
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)["Messages"]
    bodies = [message["Body"] for message in answer]
    assert sorted(bodies) == ["0", "1", "2", "3", "4"] != bodies  # all of them (a long poll), out of send order


@pytest.mark.parametrize(
    "faults, problem",
    [
        ("{ lost_delete = 3 }", "lost_delete is a probability, from 0 to 1"),
        ("{ loose = 1 }", "loose must be true or false"),
    ],
)
def test_a_bad_fault_in_a_config_file_is_named(tmp_path, faults, problem):
    config = tmp_path / "faults.toml"
    config.write_text(f'[[queues]]\nname = "flaky"\nfaults = {faults}\n')
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"{config}: queue 'flaky': faults: {problem}" in result.stderr


def test_a_fifo_queue_of_a_config_file_refuses_loose(tmp_path):
    config = tmp_path / "faults.toml"
    config.write_text(
        '[[queues]]\nname = "jobs.fifo"\nattributes = { FifoQueue = "true" }\nfaults = { loose = true }\n'
    )
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    refusal = "queue 'jobs.fifo': faults: loose is for standard queues: a FIFO queue keeps its order"
    assert f"{config}: {refusal}" in result.stderr
