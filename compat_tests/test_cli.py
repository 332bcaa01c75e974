"""The command line: banner, configuration from the environment, keep-alive on
the wire, and a clean exit on SIGTERM and SIGINT."""

import http.client
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from compat_tests.conftest import TARGET
from compat_tests.servers import REPO_ROOT, free_port

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own command line")
PYTHON = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)


def _start(env_overrides: dict, *args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQS_EMULATOR_")}
    env.update(env_overrides)
    return subprocess.Popen(
        [PYTHON, "-m", "emulator", *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def _banner(proc: subprocess.Popen) -> list[str]:
    # The banner is two flushed lines; readline blocks at most until the server prints them.
    return [proc.stdout.readline().strip() for _ in range(2)]


def _stop(proc: subprocess.Popen, sig: int) -> int:
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_environment_configures_the_server_and_a_signal_stops_it_cleanly(sig):
    port = free_port()
    proc = _start(
        {"SQS_EMULATOR_PORT": str(port), "SQS_EMULATOR_ACCOUNT_ID": "123456789012", "SQS_EMULATOR_REGION": "eu-west-1"}
    )
    try:
        banner = _banner(proc)
        assert f"http://127.0.0.1:{port}" in banner[0] and "123456789012" in banner[0] and "eu-west-1" in banner[0]
        assert banner[1].endswith(f"AWS_ENDPOINT_URL_SQS=http://127.0.0.1:{port}")
        # No SigV4 scope: the default account and region apply.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request(
            "POST",
            "/",
            body="Action=CreateQueue&QueueName=cli",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        assert response.status == 200
        assert f"http://127.0.0.1:{port}/123456789012/cli" in response.read().decode()
        conn.close()
    finally:
        code = _stop(proc, sig)
    assert code == 0
    assert "SQS emulator stopped" in proc.stdout.read()


def test_connections_are_kept_alive_across_requests():
    """werkzeug's server closes every connection unless told otherwise; clients
    reuse connections, so several requests must travel over one socket."""
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning")
    try:
        _banner(proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        target = {"X-Amz-Target": "AmazonSQS.CreateQueue", "Content-Type": "application/x-amz-json-1.0"}
        sockets = set()
        for _ in range(5):
            conn.request("POST", "/", body=json.dumps({"QueueName": "kept"}), headers=target)
            response = conn.getresponse()
            assert response.status == 200 and response.getheader("Connection") != "close"
            response.read()
            sockets.add(conn.sock.getsockname())
        assert len(sockets) == 1
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


def test_the_banner_names_the_dashboard():
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning")
    try:
        _banner(proc)
        line = proc.stdout.readline().strip()
        assert line == f"Dashboard: http://127.0.0.1:{port}/_emulator/ui/"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", line.split(" ", 1)[1].removeprefix(f"http://127.0.0.1:{port}"))
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/html")
        assert b"<title>SQS emulator</title>" in response.read()
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("--account-id", "12", "--account-id must be 12 digits"),
        ("--hostname", "sqs:port", "--hostname must be a host name, optionally with :port"),
    ],
)
def test_bad_options_are_refused(option, value, message):
    proc = _start({}, option, value)
    assert proc.wait(timeout=10) == 2
    assert message in proc.stdout.read()


def test_binds_loopback_by_default():
    port = free_port()
    proc = _start({"SQS_EMULATOR_PORT": str(port)})
    try:
        assert "http://127.0.0.1:" in _banner(proc)[0]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open("/proc/net/tcp") as table:
                listening = [line for line in table.read().splitlines() if f":{port:04X} " in line]
            if listening:
                break
            time.sleep(0.05)
        # 0100007F is 127.0.0.1 in /proc/net/tcp's little-endian hex.
        assert listening and all(line.split()[1].startswith("0100007F:") for line in listening)
    finally:
        assert _stop(proc, signal.SIGTERM) == 0
