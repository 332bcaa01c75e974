"""A bug of ours while parsing is a 500 InternalFailure, never a 400 that blames the
client; its error line names no request value, and the traceback is logged at debug
level only. Through a real HTTP request to the app."""

import http.client
import json
import logging

import pytest

from emulator.protocol import awsjson, awsquery, prepared_json
from emulator.server.build import Options, http_limits
from emulator.server.http import HttpServer

from .recorded import new_app

QUEUE_PATH = "/000000000000/q1"


@pytest.fixture
def port():
    """The app on its HTTP server on 127.0.0.1, on a thread of this process."""
    app = new_app()
    server = HttpServer(app, "127.0.0.1", 0, http_limits(Options()))
    thread = server.start()
    yield server.server_port
    server.shutdown()
    thread.join()
    app.broker.close()
    server.server_close()


def _post(port: int, path: str, body: str, headers: dict) -> tuple[int, http.client.HTTPMessage, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, body=body.encode(), headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode()  # names case-insensitive
    finally:
        connection.close()


SECRET = "secret-value-4711"  # a request value the error line must not show


def _broken_walk(*args, **kwargs):
    raise RuntimeError(f"a bug in the shape walker reading {args[-1]!r}")  # walk(codec, shape, node), read(shape, node)


def _assert_logged(caplog) -> None:
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.exc_info is None and "RuntimeError" in record.getMessage()
    assert SECRET not in record.getMessage()
    (debug,) = [r for r in caplog.records if r.levelno == logging.DEBUG and r.exc_info]
    assert debug.exc_info[0] is RuntimeError  # the traceback, values and all, at debug level
    assert "_broken_walk" in caplog.text and SECRET in caplog.text


def test_json_parser_bug_is_internal_failure(port, monkeypatch, caplog):
    monkeypatch.setattr(prepared_json, "read", _broken_walk)
    headers = {"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": awsjson.CONTENT_TYPE}
    with caplog.at_level(logging.DEBUG, logger="emulator"):
        status, response_headers, body = _post(port, "/", json.dumps({"QueueNamePrefix": SECRET}), headers)
    assert status == 500
    assert json.loads(body)["__type"] == "com.amazonaws.sqs#InternalFailure"
    assert response_headers["x-amzn-query-error"] == "InternalFailure;Receiver"
    _assert_logged(caplog)


def test_query_parser_bug_is_internal_failure(port, monkeypatch, caplog):
    monkeypatch.setattr(awsquery, "walk", _broken_walk)
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    with caplog.at_level(logging.DEBUG, logger="emulator"):
        status, _, body = _post(port, QUEUE_PATH, f"Action=ReceiveMessage&ReceiveRequestAttemptId={SECRET}", headers)
    assert status == 500
    assert "<Type>Receiver</Type><Code>InternalFailure</Code>" in body
    _assert_logged(caplog)


def test_client_garbage_is_still_the_clients(port, caplog):
    """The same requests, the parser intact but the input malformed: 400, nothing logged."""
    headers = {"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": awsjson.CONTENT_TYPE}
    with caplog.at_level(logging.ERROR):
        status, response_headers, _ = _post(port, "/", '{"MaxResults": "ten"}', headers)
        assert (status, response_headers["x-amzn-query-error"]) == (400, "InvalidParameterValue;Sender")
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        status, _, body = _post(port, QUEUE_PATH, "Action=ReceiveMessage&MaxNumberOfMessages=x", form)
        assert status == 400 and "<Code>InvalidParameterValue</Code>" in body
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
