"""The WSGI door under each WSGI server the docs name (docs/server.md): gunicorn,
waitress, cheroot and werkzeug's own, each serving EmulatorApp in a process of its
own on loopback, with --require-auth.

gunicorn keeps "//" in PATH_INFO (issue 38, item 6): an unsigned CreateQueue to
`//_emulator/health` was routed as SQS on the raw path, while the token check read the
path with its slashes folded into `/_emulator/health`, open without the token, and ran
it as the default account. One path now decides and every later check sees it."""

import http.client
import json
from urllib.parse import urlsplit

import pytest

from compat_tests.servers import WSGI_SERVERS, start_wsgi

ADMIN_TOKEN = "admin-token-for-wsgi-tests"
CONFIG = f"""
[[credentials]]
access_key = "AKIDALICE"
secret_key = "alice-secret"
account = "111111111111"

[admin]
token = "{ADMIN_TOKEN}"
"""
CREATE = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue"}


@pytest.fixture(params=sorted(WSGI_SERVERS))
def server(request, tmp_path):
    config = tmp_path / "emulator.toml"
    config.write_text(CONFIG)
    started = start_wsgi(request.param, json.dumps({"require_auth": True, "config": str(config)}))
    yield started
    started.stop()


def _call(url: str, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _queues(url: str) -> str:
    status, body = _call(url, "GET", "/_emulator/queues", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert status == 200, body
    return body.decode()


@pytest.mark.parametrize("path", ["//_emulator/health", "///_emulator/health", "//_emulator//health"])
def test_an_unsigned_sqs_request_to_a_doubled_slash_admin_path_runs_nothing(server, path):
    body = json.dumps({"QueueName": "forged"}).encode()
    status, answer = _call(server.url, "POST", path, body, CREATE)
    assert status != 200, answer
    assert "forged" not in _queues(server.url)


def test_unsigned_sqs_requests_are_refused_and_the_health_probe_stays_open(server):
    # The baseline the test above stands on: --require-auth is on behind this server.
    status, answer = _call(server.url, "POST", "/", json.dumps({"QueueName": "unsigned"}).encode(), CREATE)
    assert status == 403, answer
    assert "unsigned" not in _queues(server.url)
    # The probe under a doubled slash is the admin API's, whichever server keeps it (gunicorn)
    # or folds it (waitress, cheroot; cheroot refuses a path starting with exactly "//" itself).
    status, answer = _call(server.url, "GET", "///_emulator/health")
    assert status == 200 and json.loads(answer)["status"] == "ok", answer
