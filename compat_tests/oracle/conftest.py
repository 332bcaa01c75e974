"""The oracle's own servers (emulator and moto on free loopback ports) and its report.

Both servers run with the CURRENT interpreter (``SQS_COMPAT_SERVER_PYTHON``, as
the compat harness does), whatever boto3 runs the tests; the emulator runs on
the real clock here, because moto has none other.

The report (scenario | verdict | why) is printed at the end of the session and,
when ``ORACLE_REPORT`` names a file, written there as markdown.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compat_tests.oracle import report
from compat_tests.servers import start_emulator, start_moto


@pytest.fixture(scope="session")
def oracle_servers():
    """{"emulator": url, "moto": url}; both stopped at the end of the session."""
    started = []
    try:
        started.append(start_emulator("real", name="oracle-emulator"))
        started.append(start_moto(name="oracle-moto"))
        yield {"emulator": started[0].url, "moto": started[1].url}
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session")
def oracle_protocol() -> str:
    import boto3

    return (
        boto3.session.Session()
        .client(
            "sqs",
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        .meta.service_model.protocol
    )


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
