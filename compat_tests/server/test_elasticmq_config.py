"""ElasticMQ's queue configuration (HOCON) read as it is by --config.

fixtures/config/elasticmq.conf is the example of ElasticMQ's README, section
"Automatically creating queues on startup", word for word; the FIFO example is
its "FIFO queue creation" section. The keys' meaning is that README's.
"""

import json

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import queue_attrs, sqs_client
from compat_tests.restartable import refused_start
from compat_tests.servers import REPO_ROOT, start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own start-up options")

README_EXAMPLE = REPO_ROOT / "fixtures" / "config" / "elasticmq.conf"


@pytest.fixture
def server_with():
    started = []

    def start(*options):
        server = start_emulator("manual", "elasticmq-config", *options)
        started.append(server)
        return server, sqs_client(server.url)

    yield start
    for server in started:
        server.stop()


def _names(sqs) -> list[str]:
    return sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"])


def test_the_example_of_elasticmqs_readme_creates_its_queues(server_with):
    server, sqs = server_with("--config", str(README_EXAMPLE))
    assert _names(sqs) == ["audit-queue-name", "queue1", "queue1-dead-letters", "redirect-queue-name"]
    queue1 = sqs.get_queue_url(QueueName="queue1")["QueueUrl"]
    attributes = queue_attrs(sqs, queue1, "All")
    assert attributes["VisibilityTimeout"] == "10"  # defaultVisibilityTimeout = 10 seconds
    assert attributes["DelaySeconds"] == "5"  # delay = 5 seconds
    assert attributes["ReceiveMessageWaitTimeSeconds"] == "0"
    assert "FifoQueue" not in attributes and "ContentBasedDeduplication" not in attributes
    assert json.loads(attributes["RedrivePolicy"]) == {
        "deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:queue1-dead-letters",
        "maxReceiveCount": 3,
    }
    assert sqs.list_queue_tags(QueueUrl=queue1)["Tags"] == {"tag1": "tagged1", "tag2": "tagged2"}
    dead_letters = sqs.get_queue_url(QueueName="queue1-dead-letters")["QueueUrl"]
    assert sqs.list_dead_letter_source_queues(QueueUrl=dead_letters)["queueUrls"] == [queue1]
    assert queue_attrs(sqs, dead_letters, "VisibilityTimeout") == {"VisibilityTimeout": "30"}  # AWS's default
    log = server.log_path.read_text()
    assert f"{README_EXAMPLE}: queue 'queue1': copyTo = 'audit-queue-name' is not supported" in log
    assert f"{README_EXAMPLE}: queue 'queue1': moveTo = 'redirect-queue-name' is not supported" in log


def test_fifo_queues_durations_and_the_aws_section(server_with, tmp_path):
    config = tmp_path / "elasticmq.conf"
    config.write_text(
        'include classpath("application.conf")\n'
        'node-address { protocol = http, host = localhost, port = 9324, context-path = "" }\n'
        'rest-sqs { enabled = true, bind-port = 9324, bind-hostname = "0.0.0.0", sqs-limits = strict }\n'
        "aws { region = eu-west-1, accountId = 111122223333 }\n"
        "queues {\n"
        '  "testQueue.fifo" {\n    fifo = true\n    contentBasedDeduplication = true\n  }\n'
        "  jobs { fifo = true }\n"
        "  slow { defaultVisibilityTimeout = 2 minutes, receiveMessageWait = 20s, delay = 1500ms }\n"
        "}\n"
    )
    server, _ = server_with("--config", str(config))
    sqs = sqs_client(server.url, region="eu-west-1", access_key="111122223333")
    assert _names(sqs) == ["jobs.fifo", "slow", "testQueue.fifo"]  # fifo = true adds the suffix, as ElasticMQ does
    test_queue = sqs.get_queue_url(QueueName="testQueue.fifo")["QueueUrl"]
    assert test_queue == f"{server.url}/111122223333/testQueue.fifo"  # --queue-urls aws: the region is the signature's
    assert queue_attrs(sqs, test_queue, "FifoQueue", "ContentBasedDeduplication") == {
        "FifoQueue": "true",
        "ContentBasedDeduplication": "true",
    }
    jobs = sqs.get_queue_url(QueueName="jobs.fifo")["QueueUrl"]
    assert queue_attrs(sqs, jobs, "FifoQueue", "ContentBasedDeduplication") == {
        "FifoQueue": "true",
        "ContentBasedDeduplication": "false",
    }
    slow = sqs.get_queue_url(QueueName="slow")["QueueUrl"]
    assert queue_attrs(sqs, slow, "VisibilityTimeout", "ReceiveMessageWaitTimeSeconds", "DelaySeconds") == {
        "VisibilityTimeout": "120",
        "ReceiveMessageWaitTimeSeconds": "20",
        "DelaySeconds": "1",  # whole seconds, truncated as ElasticMQ reads them
    }
    log = server.log_path.read_text()
    assert f"{config}: node-address is ElasticMQ's server setting and is ignored here; use --hostname" in log
    assert f"{config}: rest-sqs is ElasticMQ's server setting and is ignored here; use --host and --port" in log


@pytest.mark.parametrize(
    "text, expected",
    [
        ("queues {\n  q { delay = soon }\n}\n", "queue 'q': delay: 'soon' is not a duration"),
        (
            'queues {\n  q { deadLettersQueue { name = "dlq" } }\n}\n',
            "queue 'q': deadLettersQueue: needs name and maxReceiveCount",
        ),
        ("queues {\n  q { fifo = maybe }\n}\n", "queue 'q': fifo must be true or false"),
        (
            "queues {\n  q { delay = 20 minutes }\n}\n",
            "queue 'q': InvalidAttributeValue: Invalid value for the parameter DelaySeconds.",
        ),
        (
            "queues {\n  q { contentBasedDeduplication = true }\n}\n",
            "queue 'q': InvalidAttributeName: Unknown Attribute ContentBasedDeduplication.",
        ),
        (
            'queues {\n  q { deadLettersQueue { name = "missing", maxReceiveCount = 3 } }\n}\n',
            'queue \'q\': InvalidParameterValue: Value {"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:missing"',
        ),
        (
            "queues {\n  q { delay = 5 seconds\n}\n",
            "not valid HOCON at line 4, column 1: Expected '}' (the file ended)",
        ),
        ("queues {\n  q { delay = = 5 }\n}\n", "not valid HOCON at line 2, column"),
        (
            "queues {\n  orders.fifo { fifo = true }\n}\n",
            "queue 'orders': fifo { ... } is an object inside it; a queue name with a dot is quoted in HOCON: "
            '"orders.fifo" { ... }',
        ),
    ],
)
def test_a_bad_elasticmq_file_stops_the_start_naming_the_file_and_the_queue(tmp_path, text, expected):
    config = tmp_path / "bad.conf"
    config.write_text(text)
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"sqs-emulator: {config}: " in result.stderr, result.stderr
    assert expected in result.stderr, result.stderr


def test_an_elasticmq_file_is_known_by_its_content_and_what_it_cannot_mean_is_warned(server_with, tmp_path):
    config = tmp_path / "queues.cfg"
    config.write_text(
        'include classpath("application.conf")\n'
        "queues {\n  orders { delay = 3 seconds, receiveMessageWait = 5, colour = blue }\n}\n"
    )
    server, sqs = server_with("--config", str(config))
    orders = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
    assert queue_attrs(sqs, orders, "DelaySeconds", "ReceiveMessageWaitTimeSeconds") == {
        "DelaySeconds": "3",
        "ReceiveMessageWaitTimeSeconds": "0",  # a bare number is milliseconds in HOCON durations
    }
    log = server.log_path.read_text()
    assert f"{config}: queue 'orders': receiveMessageWait: 5 without a unit is milliseconds" in log
    assert f"{config}: queue 'orders': unknown key 'colour' is ignored" in log
    assert log.count("unknown key 'colour'") == 1  # once: reading [server] from the file warned too


def _guide_block(language: str) -> str:
    """The migration guide's example in `language` (docs/guides/migrating.md, "ElasticMQ's configuration file")."""
    readme = (REPO_ROOT / "docs" / "guides" / "migrating.md").read_text()
    section = readme[readme.index("**ElasticMQ's configuration file.**") :]
    start = section.index(f"```{language}\n") + len(language) + 4
    return section[start : section.index("```", start)]


def test_the_guides_elasticmq_file_and_its_toml_translation_give_the_same_queues(server_with, tmp_path):
    described = []
    for name, language in (("custom.conf", "hocon"), ("queues.toml", "toml")):
        config = tmp_path / name
        config.write_text(_guide_block(language))
        server, sqs = server_with("--config", str(config))
        queues = {}
        for url in sqs.list_queues()["QueueUrls"]:
            attributes = queue_attrs(sqs, url, "All")
            for changing in ("CreatedTimestamp", "LastModifiedTimestamp"):
                attributes.pop(changing)
            queues[url.rsplit("/", 1)[1]] = (attributes, sqs.list_queue_tags(QueueUrl=url).get("Tags", {}))
        described.append(queues)
        server.stop()
    hocon, toml = described
    assert sorted(hocon) == ["jobs.fifo", "queue1", "queue1-dead-letters"]
    assert hocon == toml
    assert hocon["queue1"][0]["VisibilityTimeout"] == "10" and hocon["queue1"][1] == {
        "tag1": "tagged1",
        "tag2": "tagged2",
    }
