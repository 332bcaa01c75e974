"""No silent skips: with SQS_ALLOWED_SKIPS naming an allow-list file (CI sets
it), a run that skips a test for any reason the list does not name fails.

Each line of the file that is neither blank nor a comment is a substring of an
allowed skip reason; its comment above says why that skip is acceptable.
"""

import os

import pytest

_ALLOW_LIST = os.environ.get("SQS_ALLOWED_SKIPS")
_unexplained: list[str] = []


def _allowed() -> list[str]:
    with open(_ALLOW_LIST, encoding="utf-8") as lines:
        return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _note(report) -> None:
    if _ALLOW_LIST and report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2]
        if not any(entry in reason for entry in _allowed()):
            _unexplained.append(f"{report.nodeid}: {reason}")


def pytest_runtest_logreport(report):
    _note(report)


def pytest_collectreport(report):
    _note(report)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    if _unexplained:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if _unexplained:
        terminalreporter.section(f"skips not in {_ALLOW_LIST} (the run fails)", red=True)
        for line in _unexplained:
            terminalreporter.write_line(line)
