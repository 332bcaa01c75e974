"""Where the HTTP server (emulator/server/http/) runs a request: an SQS request
that never waits runs on the server's event loop as soon as it is read; slow SQS work
and werkzeug's way (the admin API) on worker threads; a long poll waits on its queue's
wake-up holding no thread. Through real HTTP requests on loopback, with the app's own
hooks wrapped to record the thread each ran on."""

import http.client
import json
import threading
import time

import pytest

from emulator.server import app as app_module
from emulator.server.build import Options, build

TARGET = "X-Amz-Target"
JSON = "application/x-amz-json-1.0"


@pytest.fixture
def emulator(monkeypatch):
    seen: list[tuple[str, str]] = []
    real_dispatch = app_module.api.dispatch

    def dispatch(ctx, operation, params):
        seen.append((operation, threading.current_thread().name))
        return real_dispatch(ctx, operation, params)

    monkeypatch.setattr(app_module.api, "dispatch", dispatch)
    built = build(Options(port=0, clock="manual", purge_cooldown=0))
    thread = built.http.start("the-loop")
    built.seen = seen
    yield built
    built.http.shutdown()
    thread.join()
    built.close()


def _call(port: int, operation: str, params: dict) -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {TARGET: f"AmazonSQS.{operation}", "Content-Type": JSON}
        connection.request("POST", "/", body=json.dumps(params).encode(), headers=headers)
        return json.loads(connection.getresponse().read() or b"{}")
    finally:
        connection.close()


def test_a_request_that_never_waits_runs_on_the_loop_and_slow_ones_on_workers(emulator):
    port = emulator.http.server_port
    url = _call(port, "CreateQueue", {"QueueName": "q"})["QueueUrl"]
    _call(port, "SendMessage", {"QueueUrl": url, "MessageBody": "x"})
    _call(port, "PurgeQueue", {"QueueUrl": url})
    ran = dict(emulator.seen)
    assert ran["SendMessage"] == "the-loop" and ran["CreateQueue"] == "the-loop"
    assert ran["PurgeQueue"].startswith("sqs-emulator-http")  # its work grows with the queue


def test_a_long_poll_holds_no_thread_and_a_send_wakes_it():
    built = build(Options(port=0, clock="manual"))
    thread = built.http.start()
    try:
        port = built.http.server_port
        url = _call(port, "CreateQueue", {"QueueName": "polled"})["QueueUrl"]
        before = threading.active_count()
        answers: list[dict] = []
        polls = [
            threading.Thread(
                target=lambda: answers.append(_call(port, "ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20}))
            )
            for _ in range(5)
        ]
        for poll in polls:
            poll.start()
        queue = built.broker.get_queue("000000000000", "us-east-1", "polled")
        deadline = threading.Event()
        for _ in range(1000):
            if queue.polls.waiting() == 5:
                break
            deadline.wait(0.01)
        assert queue.polls.waiting() == 5
        assert threading.active_count() == before + 5  # the five client threads: the server took none
        for index in range(5):
            _call(port, "SendMessage", {"QueueUrl": url, "MessageBody": f"m{index}"})
        for poll in polls:
            poll.join(10)
        assert sorted(answer["Messages"][0]["Body"] for answer in answers) == [f"m{i}" for i in range(5)]
    finally:
        built.http.shutdown()
        thread.join()
        built.close()


def test_the_admin_api_runs_on_a_worker(emulator, monkeypatch):
    threads: list[str] = []
    real_handle = app_module.admin.handle

    def handle(request, app):
        threads.append(threading.current_thread().name)
        return real_handle(request, app)

    monkeypatch.setattr(app_module.admin, "handle", handle)
    connection = http.client.HTTPConnection("127.0.0.1", emulator.http.server_port, timeout=10)
    try:
        connection.request("GET", "/_emulator/health")
        assert json.loads(connection.getresponse().read())["status"] == "ok"
    finally:
        connection.close()
    assert len(threads) == 1 and threads[0].startswith("sqs-emulator-http")


def test_a_waiting_long_poll_is_answered_when_the_server_stops():
    # Stopping releases every wait: the poll is answered (empty, 200) on its connection
    # before the connections close, rather than cut off.
    built = build(Options(port=0, clock="manual"))
    thread = built.http.start("the-loop")
    try:
        port = built.http.server_port
        url = _call(port, "CreateQueue", {"QueueName": "stopping"})["QueueUrl"]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = json.dumps({"QueueUrl": url, "WaitTimeSeconds": 20})
        connection.request("POST", "/", body, {TARGET: "AmazonSQS.ReceiveMessage", "Content-Type": JSON})
        deadline = time.monotonic() + 10
        while built.broker.waits.waiting < 1:  # until the poll waits on the server
            assert time.monotonic() < deadline, "the long poll never waited"
            time.sleep(0.01)
        built.http.shutdown()
        response = connection.getresponse()
        assert response.status == 200 and "Messages" not in json.loads(response.read())
    finally:
        built.http.shutdown()
        thread.join()
        built.close()
