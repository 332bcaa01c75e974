"""Session harness for the real-client compatibility tests.

One server per session, started as a subprocess on a free loopback port:

* ``SQS_COMPAT_TARGET=emulator`` (default): ``python -m emulator --clock manual``;
* ``SQS_COMPAT_TARGET=moto``: ``python -m moto.server`` (to debug the harness;
  moto has no manual clock, so tests that move time are skipped there);
* ``SQS_COMPAT_ENDPOINT=http://host:port``: use a server that is already running
  (the target variable still says what it is).

The tests assert AWS's documented behaviour (docs/sqs-reference.md), never a
particular emulator's.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from compat_tests.helpers import DEFAULT_REGION, RawClient, server_log_file, unique_name

REPO_ROOT = Path(__file__).resolve().parent.parent
TARGET = os.environ.get("SQS_COMPAT_TARGET", "emulator").lower()
START_TIMEOUT = 15.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(proc: subprocess.Popen, port: int, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"server exited with {proc.returncode} before listening:\n{log_path.read_text(errors='replace')[-4000:]}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(
        f"server not listening on port {port} after {START_TIMEOUT}s:\n{log_path.read_text(errors='replace')[-4000:]}"
    )


def _server_command(port: int, log_args: list[str]) -> list[str]:
    python = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)
    if TARGET == "moto":
        return [python, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    if TARGET == "emulator":
        return [python, "-m", "emulator", "--host", "127.0.0.1", "--port", str(port),
                "--clock", "manual", *log_args]
    raise RuntimeError(f"unknown SQS_COMPAT_TARGET {TARGET!r} (emulator or moto)")


@pytest.fixture(scope="session")
def endpoint():
    """Base URL of the server under test, e.g. http://127.0.0.1:54321."""
    existing = os.environ.get("SQS_COMPAT_ENDPOINT")
    if existing:
        yield existing.rstrip("/")
        return
    port = _free_port()
    log, log_args = server_log_file(f"sqs-compat-{TARGET}-")
    log_path = Path(log.name)
    env = dict(os.environ)
    if TARGET == "moto":
        env["MOTO_ACCOUNT_ID"] = "000000000000"
    proc = subprocess.Popen(
        _server_command(port, log_args), cwd=REPO_ROOT, env=env,
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(proc, port, log_path)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()
        if proc.returncode not in (0, -15, 143, None) and TARGET == "emulator":
            sys.stderr.write(f"\nserver exited with {proc.returncode}; log at {log_path}\n")


@pytest.fixture(scope="session")
def target() -> str:
    return TARGET


@pytest.fixture(scope="session")
def make_client(endpoint):
    """make_client(region=..., access_key=..., validate=True) -> a boto3 SQS client."""

    def make(region: str = DEFAULT_REGION, access_key: str = "test", validate: bool = True):
        return boto3.session.Session().client(
            "sqs",
            endpoint_url=endpoint,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key="test-secret",
            config=Config(
                retries={"max_attempts": 1, "mode": "standard"},
                connect_timeout=5,
                read_timeout=40,
                parameter_validation=validate,
            ),
        )

    return make


@pytest.fixture(scope="session")
def sqs(make_client):
    """The default client: account 000000000000, us-east-1."""
    return make_client()


@pytest.fixture(scope="session")
def sqs_unchecked(make_client):
    """A client that sends whatever it is given (no client-side validation)."""
    return make_client(validate=False)


@pytest.fixture(scope="session")
def protocol(sqs) -> str:
    """The wire protocol the installed botocore speaks to SQS: 'json' or 'query'."""
    return sqs.meta.service_model.protocol


@pytest.fixture(scope="session")
def raw(endpoint) -> RawClient:
    return RawClient(endpoint)


@pytest.fixture
def queue_factory(sqs):
    """create(name=None, attributes=None, client=None, tags=None) -> queue URL; deleted after the test."""
    created = []

    def create(name=None, attributes=None, client=None, tags=None, prefix="ct"):
        client = client or sqs
        kwargs = {"QueueName": name or unique_name(prefix)}
        if attributes:
            kwargs["Attributes"] = {k: str(v) for k, v in attributes.items()}
        if tags:
            kwargs["tags"] = tags
        url = client.create_queue(**kwargs)["QueueUrl"]
        created.append((client, url))
        return url

    yield create
    for client, url in created:
        try:
            client.delete_queue(QueueUrl=url)
        except Exception:
            pass


@pytest.fixture
def queue(queue_factory):
    """URL of a fresh standard queue with default attributes."""
    return queue_factory()


def _admin_post(endpoint: str, path: str) -> dict:
    req = urllib.request.Request(endpoint + path, data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200, f"{path} answered {resp.status}"
        return json.loads(resp.read().decode("utf-8"))


@pytest.fixture
def advance(endpoint, target):
    """advance(seconds) -> the server's new clock reading (epoch seconds)."""
    if target != "emulator":
        pytest.skip(f"needs the emulator's manual clock (/_emulator/clock/advance); target is {target}")

    def do(seconds: float) -> float:
        return float(_admin_post(endpoint, f"/_emulator/clock/advance?seconds={seconds}")["now"])

    return do


@pytest.fixture
def server_now(endpoint, target):
    """server_now() -> the server's clock in epoch seconds (wall clock for other targets)."""

    def now() -> float:
        if target == "emulator":
            return float(_admin_post(endpoint, "/_emulator/clock/advance?seconds=0")["now"])
        return time.time()

    return now
