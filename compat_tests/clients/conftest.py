"""Fixtures for the non-boto3 clients. compat_tests/conftest.py still applies:
``endpoint`` is the session server (manual clock), ``sqs`` a boto3 client on it.

A client that is not installed skips its tests with the reason, unless
``SQS_CLIENTS_STRICT=1`` (set by the tox env that installs them): then it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from compat_tests.conftest import TARGET
from compat_tests.servers import start_emulator

STRICT = os.environ.get("SQS_CLIENTS_STRICT", "") not in ("", "0", "false", "no")


def missing(what: str) -> None:
    """Skip (or, in strict mode, fail) because a client is not installed."""
    if STRICT:
        pytest.fail(f"{what} (SQS_CLIENTS_STRICT is set, so this is a failure)")
    pytest.skip(what)


def find_executable(name: str) -> str | None:
    """``name`` next to the running interpreter (a venv's bin/) first, then on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def clean_env(**extra: str) -> dict:
    """os.environ without any AWS_* variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(extra)
    return env


SCENARIO_TIMEOUT = 120  # seconds a client's scenario program may run


def run_scenario(command: list[str], what: str, cwd: Path | None = None) -> dict:
    """Run a client's scenario program (no AWS_* variables), which prints a JSON summary with
    "ok": true once every step went through; the summary, or the test fails saying why."""
    try:
        done = subprocess.run(
            command, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=SCENARIO_TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{what} ran more than {SCENARIO_TIMEOUT}s:\n{exc.stdout}\n{exc.stderr}")
    try:
        out = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"no JSON from {what} (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    assert done.returncode == 0 and out.get("ok"), f"{what} failed:\n{json.dumps(out, indent=2)}\n{done.stderr}"
    return out


def _clock_of(endpoint: str) -> str | None:
    try:
        with urllib.request.urlopen(endpoint + "/_emulator/health", timeout=5) as resp:
            return json.loads(resp.read().decode("utf-8")).get("clock")
    except Exception:
        return None


@pytest.fixture(scope="session")
def real_clock_endpoint(endpoint):
    """An endpoint whose clock is the real one, for clients that long-poll.

    The session server runs ``--clock manual``: an empty long poll there only ends
    when a test advances the clock. Reuse the session server when its clock is real
    (moto, or an SQS_COMPAT_ENDPOINT started that way); otherwise start a second
    emulator with the real clock for this session.
    """
    if TARGET != "emulator" or _clock_of(endpoint) == "real":
        yield endpoint
        return
    server = start_emulator("real", name="clients-real-clock")
    try:
        yield server.url
    finally:
        server.stop()
