"""Requests that never wait run on the HTTP server's event-loop thread (emulator/server/http.py):
the app names them (EmulatorApp.answers_at_once); every other request goes to a worker thread,
so a long poll never holds up the loop. Through real HTTP requests on loopback."""

import http.client
import json
import threading

import pytest

from emulator.server.build import Options, build, http_limits
from emulator.server.http import HttpServer


class _Recorder:
    """A WSGI app that answers with the name of the thread it ran on; `/fast` never waits."""

    def answers_at_once(self, path: str, headers: dict[str, str]) -> bool:
        return path == "/fast"

    def __call__(self, environ, start_response):
        body = threading.current_thread().name.encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]


@pytest.fixture
def server():
    http_server = HttpServer(_Recorder(), "127.0.0.1", 0, http_limits(Options()))
    loop = threading.Thread(target=http_server.serve_forever, name="the-loop", daemon=True)
    loop.start()
    yield http_server
    http_server.shutdown()
    loop.join()
    http_server.server_close()


def _threads(port: int, paths: list[str]) -> list[str]:
    """The thread that served each path, in order, over one kept-alive connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        names = []
        for path in paths:
            connection.request("POST", path, body=b"{}")
            names.append(connection.getresponse().read().decode())
        return names
    finally:
        connection.close()


def test_a_request_that_never_waits_runs_on_the_loop_and_others_on_workers(server):
    names = _threads(server.server_port, ["/fast", "/slow", "/fast", "/slow"])
    assert names[0] == names[2] == "the-loop"
    assert names[1].startswith("sqs-emulator-http-") and names[3].startswith("sqs-emulator-http-")


def test_the_operations_the_emulator_answers_at_once():
    emulator = build(Options(port=0), listen=False)
    app = emulator.app
    try:
        sent = {"X_AMZ_TARGET": "AmazonSQS.SendMessage", "CONTENT_TYPE": "application/x-amz-json-1.0"}
        assert app.answers_at_once("/", sent)
        assert app.answers_at_once("/", {**sent, "X_AMZ_TARGET": "AmazonSQS.DeleteMessageBatch"})
        assert not app.answers_at_once("/", {**sent, "X_AMZ_TARGET": "AmazonSQS.ReceiveMessage"})  # a long poll
        assert not app.answers_at_once("/", {**sent, "X_AMZ_TARGET": "AmazonSQS.DeleteQueue"})
        assert not app.answers_at_once("/", {"CONTENT_TYPE": "application/x-www-form-urlencoded"})  # query: unread
        assert not app.answers_at_once("/_emulator/reset", sent)
    finally:
        emulator.close()


def test_with_a_store_every_request_goes_to_a_worker(tmp_path):
    emulator = build(Options(port=0, data_dir=str(tmp_path / "data"), sync="always"), listen=False)
    try:
        assert not emulator.app.answers_at_once("/", {"X_AMZ_TARGET": "AmazonSQS.SendMessage"})
    finally:
        emulator.close()


def test_a_send_on_the_loop_wakes_a_long_poll_on_a_worker():
    emulator = build(Options(port=0), listen=True)
    assert emulator.http is not None
    loop = threading.Thread(target=emulator.http.serve_forever, daemon=True)
    loop.start()
    port = emulator.http.server_port
    try:
        call = _json_client(port)
        url = call("CreateQueue", {"QueueName": "q"})["QueueUrl"]
        got: list = []
        poll = threading.Thread(
            target=lambda: got.append(call("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 10}))
        )
        poll.start()
        call("SendMessage", {"QueueUrl": url, "MessageBody": "hello"})
        poll.join(timeout=10)
        assert [message["Body"] for message in got[0]["Messages"]] == ["hello"]
    finally:
        emulator.http.shutdown()
        loop.join()
        emulator.close()


def _json_client(port: int):
    def call(operation: str, params: dict) -> dict:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        try:
            headers = {"X-Amz-Target": f"AmazonSQS.{operation}", "Content-Type": "application/x-amz-json-1.0"}
            connection.request("POST", "/", body=json.dumps(params).encode(), headers=headers)
            response = connection.getresponse()
            assert response.status == 200
            return json.loads(response.read())
        finally:
            connection.close()

    return call
