"""The pytest plugin (emulator/testing/pytest_plugin.py), run by pytester on a test file
of its own, and `emulator.serve` without pytest's fixtures."""

import os
import threading
from importlib.metadata import entry_points

import boto3
import pytest

from emulator import serve
from emulator.inspect.client import AdminApiError, AdminClient, EmulatorUnreachable

pytest_plugins = ["pytester"]

USER_TESTS = """
import os

import boto3


def own_client():
    # What application code does: no endpoint or credentials in the code.
    return boto3.client("sqs")


def test_visibility_timeout_passes_when_told(sqs_emulator):
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == sqs_emulator.endpoint_url
    sqs = own_client()
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    assert url == sqs_emulator.endpoint_url + "/000000000000/jobs"
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    first = sqs.receive_message(QueueUrl=url)["Messages"][0]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    [peeked] = sqs_emulator.peek("jobs", state="inflight")
    assert peeked["id"] == first["MessageId"] and peeked["receive_count"] == 1
    sqs_emulator.advance(31)
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["MessageId"] == first["MessageId"] and again["ReceiptHandle"] != first["ReceiptHandle"]
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    assert sqs_emulator.peek(url)[0]["receive_count"] == 2  # peeking counted nothing


def test_wait_for_message_and_duplicate_delivery(sqs_emulator, sqs_client):
    url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="order-1")
    sqs_client.send_message(QueueUrl=url, MessageBody="order-2")
    found = sqs_emulator.wait_for_message("orders", lambda m: m["body"] == "order-2")
    assert found["state"] == "visible" and found["receive_count"] == 0

    policy = sqs_emulator.faults("orders", duplicate_delivery=1.0, seed=7)
    assert policy["duplicate_delivery"] == 1.0 and sqs_emulator.faults("orders") == policy
    first = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    duplicate = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    assert duplicate["MessageId"] == first["MessageId"]
    assert duplicate["ReceiptHandle"] != first["ReceiptHandle"]
    [queue] = sqs_emulator.queues()
    assert queue["totals"]["duplicate_deliveries"] >= 1
    sqs_emulator.clear_faults("orders")
    assert sqs_emulator.faults("orders") is None


def test_the_next_test_sees_a_reset_emulator(sqs_emulator):
    assert sqs_emulator.queues() == []
    assert "QueueUrls" not in own_client().list_queues()


def test_sqs_client_alone_resets_too(sqs_client):
    assert "QueueUrls" not in sqs_client.list_queues()
    sqs_client.create_queue(QueueName="left-behind")


def test_and_after_it(sqs_client):
    assert "QueueUrls" not in sqs_client.list_queues()


def test_without_the_fixtures_the_environment_is_untouched():
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == "http://from-the-shell.invalid"
"""


@pytest.fixture
def user_suite(pytester, monkeypatch):
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)  # the plugin loads by its entry point
    monkeypatch.setenv(
        "AWS_ENDPOINT_URL_SQS", "http://from-the-shell.invalid"
    )  # what a test without the fixtures keeps
    monkeypatch.setenv("AWS_PROFILE", "a-profile-this-machine-lacks")
    pytester.makepyfile(test_user_suite=USER_TESTS)
    return pytester


def test_the_plugin_is_registered_by_its_entry_point():
    [plugin] = [ep for ep in entry_points(group="pytest11") if ep.name == "sqs_emulator"]
    assert plugin.value == "emulator.testing.pytest_plugin"


def test_a_user_suite_runs_on_the_plugins_fixtures(user_suite):
    result = user_suite.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)


def test_the_environment_is_restored_after_each_test(sqs_emulator, monkeypatch):
    # This very module uses the fixtures too.
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == sqs_emulator.endpoint_url
    assert os.environ["AWS_ACCESS_KEY_ID"] == "test" and os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
    assert "AWS_PROFILE" not in os.environ
    assert sqs_emulator.queues() == []
    boto3.client("sqs").create_queue(QueueName="mine")
    assert [q["name"] for q in sqs_emulator.queues()] == ["mine"]


def test_serve_without_pytest_fixtures():
    with serve(port=0, clock="manual") as server:
        assert server.endpoint_url.startswith("http://127.0.0.1:")
        sqs = server.client()
        url = sqs.create_queue(QueueName="plain", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="one")
        handle = sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        before = AdminClient(server.endpoint_url).health()["now"]
        assert server.advance(31) == pytest.approx(before + 31)
        assert sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"] != handle
        # Cooldowns are off: purge twice, delete and re-create at once.
        sqs.purge_queue(QueueUrl=url)
        sqs.purge_queue(QueueUrl=url)
        sqs.delete_queue(QueueUrl=url)
        sqs.create_queue(QueueName="plain")
        server.reset()
        assert server.queues() == []
        endpoint = server.endpoint_url
    with pytest.raises(EmulatorUnreachable):
        AdminClient(endpoint, timeout=2).health()
    server.stop()  # a second stop is harmless


def test_wait_for_message_sees_a_message_sent_from_another_thread():
    with serve() as server:
        sqs = server.client()
        url = sqs.create_queue(QueueName="later")["QueueUrl"]
        sender = threading.Timer(0.1, lambda: sqs.send_message(QueueUrl=url, MessageBody="arrived"))
        sender.start()
        try:
            message = server.wait_for_message("later", lambda m: m["body"] == "arrived", timeout=10)
        finally:
            sender.join()
        assert message["receive_count"] == 0
        assert server.peek("later")[0]["state"] == "visible"  # still there: nothing was consumed
        with pytest.raises(TimeoutError, match="no matching message in later"):
            server.wait_for_message("later", lambda m: m["body"] == "never", timeout=0.05)


def test_serve_on_the_real_clock_refuses_to_advance():
    with serve(clock="real", account_id="123456789012", region="eu-west-1") as server:
        health = AdminClient(server.endpoint_url).health()
        assert (health["clock"], health["account"], health["region"]) == ("real", "123456789012", "eu-west-1")
        with pytest.raises(AdminApiError) as refused:
            server.advance(1)
        assert refused.value.status == 409 and "real clock" in refused.value.error
        url = server.client().create_queue(QueueName="r")["QueueUrl"]
        assert url.endswith("/123456789012/r")


def test_peek_follows_pages_up_to_its_limit():
    with serve() as server:
        sqs = server.client()
        url = sqs.create_queue(QueueName="many")["QueueUrl"]
        for start in range(0, 1100, 10):
            sqs.send_message_batch(
                QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{start + i}"} for i in range(10)]
            )
        admin = AdminClient(server.endpoint_url)
        assert len(admin.peek("many")) == 100
        every = admin.peek("many", limit=None)
        assert [m["body"] for m in every] == [f"m{i}" for i in range(1100)]
        assert len(admin.peek("many", limit=1050)) == 1050
        with pytest.raises(AdminApiError) as missing:
            admin.peek("nope")
        assert missing.value.status == 404 and missing.value.error == "no queue nope"
        with pytest.raises(AdminApiError) as bad:
            admin.peek("many", state="gone")
        assert bad.value.status == 400


def test_serve_refuses_bad_options():
    with pytest.raises(ValueError, match="clock"):
        serve(clock="sundial")
    with pytest.raises(ValueError, match="12 digits"):
        serve(account_id="12")
