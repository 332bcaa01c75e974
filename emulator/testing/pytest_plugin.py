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

Configured by ini options (pytest.ini's [pytest], pyproject's [tool.pytest.ini_options]),
each serve()'s keyword of the same name: sqs_emulator_clock, sqs_emulator_config (a path
from the ini file's folder), sqs_emulator_auto_create, sqs_emulator_purge_cooldown,
sqs_emulator_recreate_cooldown, sqs_emulator_receipts, sqs_emulator_port,
sqs_emulator_long_poll_cap, sqs_emulator_queue_urls; a test marked `@pytest.mark.sqs_emulator(clock="real", ...)`
gets an emulator of its own with those keywords over the ini's (`config` from the
test file's folder).

`sqs_emulator_aws_env = true` starts the session's emulator before conftest files and
test modules are imported, and points the AWS environment at it for the whole run, so
a client made at import time (`SQS = boto3.client("sqs")` in application code) is
redirected too. Off by default: the plugin loads in every pytest run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# A shell's AWS settings that would send an SDK elsewhere, or fail it (a profile this machine lacks).
UNSET = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
# The serve() keywords an ini option or the marker may set.
OPTIONS = (
    "clock",
    "config",
    "auto_create",
    "purge_cooldown",
    "recreate_cooldown",
    "receipts",
    "port",
    "long_poll_cap",
    "queue_urls",
)
AWS_ENV = "sqs_emulator_aws_env"
_SESSION = pytest.StashKey[dict]()  # "server": the session's emulator; "env": the MonkeyPatch of AWS_ENV


def pytest_addoption(parser: pytest.Parser) -> None:
    # No import of the server here: the plugin loads in every pytest run.
    for name in OPTIONS:
        parser.addini(f"sqs_emulator_{name}", f"sqs_emulator: serve()'s {name}= (sqs-emulator --help explains it)")
    parser.addini(
        AWS_ENV,
        "sqs_emulator: point AWS_ENDPOINT_URL_SQS and dummy credentials at the emulator for the whole "
        "run, from before conftest files are imported (import-time clients are redirected)",
        type="bool",
        default=False,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """With sqs_emulator_aws_env, start the session's emulator and point the AWS
    environment at it before any conftest or test module makes a client."""
    session = early_config.stash.setdefault(_SESSION, {})
    if not early_config.getini(AWS_ENV):
        return
    # The shell's region stays, and the emulator takes it as its own: a queue the
    # fixtures create is then the one an import-time client of that region finds.
    region = os.environ.get("AWS_DEFAULT_REGION") or ENV["AWS_DEFAULT_REGION"]
    server = _session_server(early_config, region)
    env = pytest.MonkeyPatch()
    session["env"] = env
    for name in UNSET:
        env.delenv(name, raising=False)
    env.setenv("AWS_ENDPOINT_URL_SQS", server.endpoint_url)
    env.setenv("AWS_ACCESS_KEY_ID", ENV["AWS_ACCESS_KEY_ID"])
    env.setenv("AWS_SECRET_ACCESS_KEY", ENV["AWS_SECRET_ACCESS_KEY"])
    if not os.environ.get("AWS_DEFAULT_REGION"):
        env.setenv("AWS_DEFAULT_REGION", ENV["AWS_DEFAULT_REGION"])


def pytest_configure(config: pytest.Config) -> None:
    _ini_options(config)  # a bad value stops the run at once, in one line
    config.addinivalue_line(
        "markers",
        "sqs_emulator(**options): run the test on an emulator of its own, started with these serve() "
        f"keywords over the ini's ({', '.join(OPTIONS)})",
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION, {})
    if "server" in session:
        session.pop("server").stop()
    if "env" in session:
        session.pop("env").undo()


def _ini_options(config: pytest.Config) -> dict:
    if not any(config.getini(f"sqs_emulator_{name}") for name in OPTIONS):
        return {}  # nothing of the server imported
    from emulator.server.options import BY_NAME, OptionError, parse

    values = {}
    for name in OPTIONS:
        raw = config.getini(f"sqs_emulator_{name}")
        try:
            if raw:
                values[name] = parse(BY_NAME[name], raw, f"ini option sqs_emulator_{name}")
        except OptionError as error:
            raise pytest.UsageError(f"sqs_emulator: {error}") from None
    if "config" in values:
        values["config"] = str((config.inipath.parent if config.inipath else config.rootpath) / values["config"])
    return values


def _serve(options: dict):
    from emulator.server.config import ConfigError
    from emulator.testing.embedded import serve

    try:
        return serve(**options)
    except (ValueError, ConfigError) as error:
        raise pytest.UsageError(f"sqs_emulator: {error}") from None


def _session_server(config: pytest.Config, region: str | None = None):
    session = config.stash.setdefault(_SESSION, {})
    if "server" not in session:
        session["server"] = _serve({**_ini_options(config), **({"region": region} if region else {})})
    return session["server"]


@pytest.fixture(scope="session")
def _sqs_emulator_server(pytestconfig):
    """The session's server (stopped at the end of the run); tests use `sqs_emulator`, which resets it first."""
    return _session_server(pytestconfig)


@pytest.fixture
def sqs_emulator(request, monkeypatch):
    """The emulator, emptied for this test, with the AWS environment pointing at it;
    a test marked sqs_emulator(...) gets one of its own, stopped after it."""
    marker = request.node.get_closest_marker("sqs_emulator")
    if marker is None:
        server = request.getfixturevalue("_sqs_emulator_server")
        server.reset()
    else:
        keywords = dict(marker.kwargs)
        unknown = sorted(keywords.keys() - set(OPTIONS)) or marker.args
        if unknown:
            raise pytest.UsageError(f"sqs_emulator marker: takes keywords {', '.join(OPTIONS)}, not {unknown[0]!r}")
        if "config" in keywords:
            keywords["config"] = str(Path(request.node.path).parent / keywords["config"])
        # A free port unless the marker names one: the session's emulator may hold the ini's.
        server = _serve({**_ini_options(request.config), "port": 0, **keywords})
        request.addfinalizer(server.stop)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        **ENV,
        "AWS_ENDPOINT_URL_SQS": server.endpoint_url,
        "AWS_DEFAULT_REGION": server.region,
    }.items():
        monkeypatch.setenv(name, value)
    return server


@pytest.fixture
def sqs_client(sqs_emulator):
    """A boto3 SQS client for the emptied emulator (its region, us-east-1 unless the shell's
    under sqs_emulator_aws_env; credentials test/test)."""
    return sqs_emulator.client()
