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
import sys
import time
import urllib.request

import pytest

from compat_tests.helpers import DEFAULT_REGION, JSON_BODY, RawClient, sqs_client, unique_name
from compat_tests.servers import start_emulator, start_moto

TARGET = os.environ.get("SQS_COMPAT_TARGET", "emulator").lower()


@pytest.fixture(scope="session")
def endpoint():
    """Base URL of the server under test, e.g. http://127.0.0.1:54321."""
    existing = os.environ.get("SQS_COMPAT_ENDPOINT")
    if existing:
        yield existing.rstrip("/")
        return
    if TARGET not in ("emulator", "moto"):
        raise RuntimeError(f"unknown SQS_COMPAT_TARGET {TARGET!r} (emulator or moto)")
    server = start_emulator("manual") if TARGET == "emulator" else start_moto()
    try:
        yield server.url
    finally:
        code = server.stop()
        if code not in (0, -15, 143) and TARGET == "emulator":
            sys.stderr.write(f"\nserver exited with {code}; log at {server.log_path}\n")


@pytest.fixture(scope="session")
def target() -> str:
    return TARGET


@pytest.fixture(scope="session")
def make_client(endpoint):
    """make_client(region=..., access_key=..., validate=True) -> a boto3 SQS client."""

    def make(region: str = DEFAULT_REGION, access_key: str = "test", validate: bool = True):
        return sqs_client(endpoint, region, access_key, validate)

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
    req = urllib.request.Request(endpoint + path, data=b"", method="POST", headers=JSON_BODY)
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
