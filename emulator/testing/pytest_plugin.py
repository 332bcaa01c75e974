"""The pytest plugin (entry point `sqs_emulator`, loaded once the package is installed).

One emulator per test session, started on first use (127.0.0.1, a free port,
manual clock, in memory, no purge or re-create cooldowns). Nothing is autouse:

* `sqs_emulator`: the server (emulator/testing/embedded.py: .endpoint_url, .advance,
  .reset, .queues, .peek, .faults, .clear_faults, .wait_for_message, .client);
* `sqs_client`: a boto3 SQS client for it.

A test that uses either starts on an emptied emulator (every queue deleted; the
clock keeps its time) and runs with AWS_ENDPOINT_URL_SQS, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_DEFAULT_REGION pointing at it, so code that
builds its own boto3 client reaches the emulator unchanged.
"""

from __future__ import annotations

import pytest

ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# A shell's AWS settings that would send an SDK elsewhere, or fail it (a profile this machine lacks).
UNSET = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")


@pytest.fixture(scope="session")
def _sqs_emulator_server():
    """The session's server; tests use `sqs_emulator`, which resets it first."""
    from emulator.testing.embedded import serve

    with serve(port=0, clock="manual") as server:
        yield server


@pytest.fixture
def sqs_emulator(_sqs_emulator_server, monkeypatch):
    """The emulator, emptied for this test, with the AWS environment pointing at it."""
    server = _sqs_emulator_server
    server.reset()
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    for name, value in {"AWS_ENDPOINT_URL_SQS": server.endpoint_url, **ENV}.items():
        monkeypatch.setenv(name, value)
    return server


@pytest.fixture
def sqs_client(sqs_emulator):
    """A boto3 SQS client for the emptied emulator (us-east-1, credentials test/test)."""
    return sqs_emulator.client()
