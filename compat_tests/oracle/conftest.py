"""The oracle's own servers (emulator and moto on free loopback ports) and its report.

Both servers run with the CURRENT interpreter (``SQS_COMPAT_SERVER_PYTHON``, as
the compat harness does), whatever boto3 runs the tests; the emulator runs on
the real clock here, because moto has none other.

The report (scenario | verdict | why) is printed at the end of the session and,
when ``ORACLE_REPORT`` names a file, written there as markdown.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from compat_tests.oracle import report

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(name: str, argv_tail: list, env_extra: dict) -> tuple:
    port = _free_port()
    python = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)
    log = tempfile.NamedTemporaryFile(prefix=f"sqs-oracle-{name}-", suffix=".log", delete=False)
    env = {**os.environ, **env_extra}
    argv = [python, "-m", *[a.replace("{port}", str(port)) for a in argv_tail]]
    proc = subprocess.Popen(argv, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{Path(log.name).read_text(errors='replace')[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"{name} not listening on {port} after {START_TIMEOUT}s")
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}", log


def _stop(proc, log) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    log.close()


@pytest.fixture(scope="session")
def oracle_servers():
    """{"emulator": url, "moto": url}; both stopped at the end of the session."""
    started = []
    try:
        started.append(_start("emulator", ["emulator", "--host", "127.0.0.1", "--port", "{port}",
                                           "--clock", "real", "--log-level", "warning"], {}))
        started.append(_start("moto", ["moto.server", "-H", "127.0.0.1", "-p", "{port}"],
                              {"MOTO_ACCOUNT_ID": "000000000000"}))
        yield {"emulator": started[0][1], "moto": started[1][1]}
    finally:
        for proc, _, log in started:
            _stop(proc, log)


@pytest.fixture(scope="session")
def oracle_protocol() -> str:
    import boto3

    return boto3.session.Session().client(
        "sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x",
    ).meta.service_model.protocol


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not report.VERDICTS:
        return
    text = report.markdown()
    terminalreporter.write_sep("=", "SQS conformance oracle: emulator vs moto")
    terminalreporter.write_line(text)
    path = os.environ.get("ORACLE_REPORT")
    if path:
        Path(path).write_text(text + "\n", encoding="utf-8")
        terminalreporter.write_line(f"oracle report written to {path}")
