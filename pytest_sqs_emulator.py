"""sqs-emulator's pytest plugin (entry point `sqs_emulator`, loaded once the package is installed).

A module of its own name, outside the `emulator` package, because pytest imports it in
every run of every project in the environment: a project with a package of its own named
`emulator` must still run its tests. Nothing of `emulator` is imported until a fixture, an
ini option or the marker asks for the emulator; if `emulator` is then another package, one
line says so.

One emulator per test session, started on first use (127.0.0.1, a free port,
manual clock, in memory, no purge or re-create cooldowns). Nothing is autouse:

* `sqs_emulator`: the server (emulator/testing/embedded.py: .endpoint_url, .advance,
  .reset, .queues, .peek, .faults, .clear_faults, .error_rule, .error_rules,
  .clear_error_rules, .kms_key, .wait_for_message, .history, .summary, .client);
* `sqs_client`: a boto3 SQS client for it.

A test that uses either starts on an emptied emulator (every queue deleted; the
clock keeps its time) and runs with AWS_ENDPOINT_URL_SQS, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_DEFAULT_REGION pointing at it, so code that
builds its own boto3 client reaches the emulator unchanged.

Configured by ini options (pytest.ini's [pytest], pyproject's [tool.pytest.ini_options]),
each serve()'s keyword of the same name: sqs_emulator_account_id, sqs_emulator_clock, sqs_emulator_config (a path
from the ini file's folder), sqs_emulator_auto_create, sqs_emulator_purge_cooldown,
sqs_emulator_recreate_cooldown, sqs_emulator_receipts, sqs_emulator_port,
sqs_emulator_long_poll_cap, sqs_emulator_queue_urls, sqs_emulator_loose,
sqs_emulator_loose_seed; a test marked `@pytest.mark.sqs_emulator(clock="real", ...)`
gets an emulator of its own with those keywords over the ini's (`config` from the
test file's folder).

`sqs_emulator_aws_env = true` starts the session's emulator before conftest files and
test modules are imported, and points the AWS environment at it for the whole run, so
a client made at import time (`SQS = boto3.client("sqs")` in application code) is
redirected too. Off by default: the plugin loads in every pytest run.

`sqs_emulator_summary = true` (or `--sqs-emulator-summary`) prints after each test that
used the emulator a short block naming what its consumers met: messages received more
than once, receipts stale at their delete, dead-lettered messages, empty short polls.

An unknown `sqs_emulator_*` key in the ini file is refused, naming the known ones.
"""

from __future__ import annotations

import configparser
import difflib
import importlib
import importlib.util
import os
import sys
import tomllib
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
    "account_id",  # moto's is 123456789012: a suite moved from moto keeps the queue URLs it checks
    "clock",
    "config",
    "auto_create",
    "purge_cooldown",
    "recreate_cooldown",
    "receipts",
    "port",
    "long_poll_cap",
    "queue_urls",
    "loose",  # standard queues as loose as AWS's (docs/guides/testing.md)
    "loose_seed",
    "histories",
)
AWS_ENV = "sqs_emulator_aws_env"
SUMMARY = "sqs_emulator_summary"
INI_NAMES = (*(f"sqs_emulator_{name}" for name in OPTIONS), AWS_ENV, SUMMARY)
SUMMARY_IDS = 3  # message ids a summary line names before "and N more"
# "server": the session's emulator; "env": the MonkeyPatch of AWS_ENV; "path": what _own_emulator_first put on sys.path
_SESSION = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    # No import of the emulator here: the plugin loads in every pytest run.
    for name in OPTIONS:
        parser.addini(f"sqs_emulator_{name}", f"sqs_emulator: serve()'s {name}= (sqs-emulator --help explains it)")
    parser.addini(
        AWS_ENV,
        "sqs_emulator: true points AWS_ENDPOINT_URL_SQS and dummy credentials at the emulator for the whole "
        "run, from before conftest files are imported (import-time clients are redirected)",
    )
    parser.addini(SUMMARY, "sqs_emulator: true prints, after each test that used the emulator, what its consumers met")
    parser.getgroup("sqs_emulator").addoption(
        "--sqs-emulator-summary",
        action="store_true",
        default=None,
        help="after each test that used the emulator, name the messages received more than once, the receipts "
        "that went stale before their delete, the dead-lettered messages and the empty short polls",
    )


class Unavailable(Exception):
    """The emulator cannot be had in this run; str() is the one line to show."""


def _emulator(module: str):
    """emulator.`module`, imported now that the emulator is asked for. When `emulator`
    is another package (a project's own of that name, first on sys.path), Unavailable."""
    found = importlib.util.find_spec("emulator")
    places = list(found.submodule_search_locations or []) if found else []
    # Looked for, not imported: an editable install's finder would lend its own
    # submodules to the other package, and a half-and-half emulator is worse than none.
    if not any(Path(place, "testing", "embedded.py").is_file() for place in places):
        where = ", ".join(places) or (found and found.origin) or "not found"
        raise Unavailable(
            f"sqs_emulator: 'emulator' is {where} in this run, not sqs-emulator's package (a package of the "
            "project's own has its name), so the plugin cannot start the emulator; run it as a process "
            "(sqs-emulator, or its container) and point AWS_ENDPOINT_URL_SQS at it"
        )
    return importlib.import_module(f"emulator.{module}")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """With sqs_emulator_aws_env, start the session's emulator and point the AWS
    environment at it before any conftest or test module makes a client."""
    early_config.stash.setdefault(_SESSION, {})
    _own_emulator_first(early_config)
    try:
        _unknown_ini_keys(early_config)
        if not _aws_env(early_config):
            return
        # The shell's region stays, and the emulator takes it as its own: a queue the
        # fixtures create is then the one an import-time client of that region finds.
        region = os.environ.get("AWS_DEFAULT_REGION") or ENV["AWS_DEFAULT_REGION"]
        server = _session_server(early_config, region)
    except Unavailable as error:
        raise pytest.UsageError(str(error)) from None
    env = pytest.MonkeyPatch()
    early_config.stash[_SESSION]["env"] = env
    for name in UNSET:
        env.delenv(name, raising=False)
    env.setenv("AWS_ENDPOINT_URL_SQS", server.endpoint_url)
    env.setenv("AWS_ACCESS_KEY_ID", ENV["AWS_ACCESS_KEY_ID"])
    env.setenv("AWS_SECRET_ACCESS_KEY", ENV["AWS_SECRET_ACCESS_KEY"])
    if not os.environ.get("AWS_DEFAULT_REGION"):
        env.setenv("AWS_DEFAULT_REGION", ENV["AWS_DEFAULT_REGION"])


def _own_emulator_first(config: pytest.Config) -> None:
    """A project whose own package is named `emulator` (in its root or src/) gets it first on
    sys.path. Plain `pytest` puts the test files' folders first, not the working folder as
    `python -m pytest` does, so the project's tests would import sqs-emulator's installed
    package of that name instead (pytest's own `pythonpath` ini option does the same)."""
    for folder in (config.rootpath, config.rootpath / "src"):
        package = folder / "emulator"
        if (package / "__init__.py").is_file() and not (package / "testing" / "embedded.py").is_file():
            if sys.path[:1] != [str(folder)]:
                sys.path.insert(0, str(folder))
                config.stash[_SESSION]["path"] = str(folder)
            return


def pytest_configure(config: pytest.Config) -> None:
    try:
        _ini_options(config)  # a bad value stops the run at once, in one line
    except Unavailable as error:
        raise pytest.UsageError(str(error)) from None
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
    if "path" in session and session["path"] in sys.path:
        sys.path.remove(session.pop("path"))


def _unknown_ini_keys(config: pytest.Config) -> None:
    """pytest only warns of an unknown ini key, and a mistyped option of ours would leave the
    emulator on its default unnoticed: refuse it, naming what was meant."""
    for key in sorted(_ini_keys(config.inipath)):
        if key.startswith("sqs_emulator_") and key not in INI_NAMES:
            close = difflib.get_close_matches(key, INI_NAMES, n=1)
            meant = f"did you mean {close[0]}? " if close else ""
            raise pytest.UsageError(
                f"sqs_emulator: unknown ini option {key} in {config.inipath} ({meant}known: {', '.join(INI_NAMES)})"
            )


def _ini_keys(path: Path | None) -> set[str]:
    """The keys of pytest's table in its ini file (pytest.ini, tox.ini, setup.cfg, pyproject.toml, pytest.toml)."""
    try:
        if path is None:
            return set()
        if path.suffix == ".toml":
            document = tomllib.loads(path.read_text(encoding="utf-8"))
            table = (
                document.get("pytest", {})
                if path.name != "pyproject.toml"
                else document.get("tool", {}).get("pytest", {})
            )
            return set(table) | set(table.get("ini_options", {}))
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        parser.read(path, encoding="utf-8")
        return {key for section in ("pytest", "tool:pytest") if parser.has_section(section) for key in parser[section]}
    except (OSError, ValueError, configparser.Error):
        return set()  # pytest read it; whatever it objects to, it says itself


def _aws_env(config: pytest.Config) -> bool:
    return _ini_flag(config, AWS_ENV)


def _ini_flag(config: pytest.Config, name: str) -> bool:
    raw = config.getini(name)
    if not raw:
        return False
    options = _emulator("server.options")
    try:
        return options.parse(options.Option(name, options.Flag(), ""), raw, f"ini option {name}")
    except options.OptionError as error:
        raise pytest.UsageError(f"sqs_emulator: {error}") from None


def _wants_summary(config: pytest.Config) -> bool:
    flag = config.getoption("--sqs-emulator-summary", None)
    return bool(flag) if flag is not None else _ini_flag(config, SUMMARY)


def summary_lines(found: dict) -> list[str]:
    """The summary's lines, from the admin API's /_emulator/histories/summary (nothing notable: none)."""

    def ids(entries: list[dict], detail) -> str:
        named = [f"{entry['id']} ({detail(entry)})" for entry in entries[:SUMMARY_IDS]]
        more = f" and {len(entries) - SUMMARY_IDS} more" if len(entries) > SUMMARY_IDS else ""
        return ", ".join(named) + more

    def queue(entry: dict) -> str:
        return entry["queue"].rstrip("/").rsplit("/", 1)[-1]

    def receives(entry: dict) -> str:
        return f"{entry['receives']} receives, {queue(entry)}"

    def stale(entry: dict) -> str:
        return f"handle of receive {entry['of_receive'] or '?'}, {queue(entry)}"

    def dead_lettered(entry: dict) -> str:
        return f"from {queue(entry)}: {entry['reason']}"

    lines = []
    if found["received_more_than_once"]:
        lines.append(f"received more than once: {ids(found['received_more_than_once'], receives)}")
    if found["stale_deletes"]:
        lines.append(
            "receipts stale at their delete (processing longer than the visibility timeout): "
            + ids(found["stale_deletes"], stale)
        )
    if found["dead_lettered"]:
        lines.append(f"moved to a dead-letter queue: {ids(found['dead_lettered'], dead_lettered)}")
    if found["empty_short_polls"]:
        polls = ", ".join(f"{entry['count']} on {queue(entry)}" for entry in found["empty_short_polls"])
        lines.append(f"empty short polls (each a billed request on AWS): {polls}")
    return lines


def _print_summary(request, server) -> None:
    lines = summary_lines(server.summary())
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if lines and reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(f"sqs-emulator summary of {request.node.nodeid}:")
        for line in lines:
            reporter.write_line(f"  {line}")


def _ini_options(config: pytest.Config) -> dict:
    if not any(config.getini(f"sqs_emulator_{name}") for name in OPTIONS):
        return {}  # nothing of the emulator imported
    options = _emulator("server.options")
    values = {}
    for name in OPTIONS:
        raw = config.getini(f"sqs_emulator_{name}")
        try:
            if raw:
                values[name] = options.parse(options.BY_NAME[name], raw, f"ini option sqs_emulator_{name}")
        except options.OptionError as error:
            raise pytest.UsageError(f"sqs_emulator: {error}") from None
    if "config" in values:
        values["config"] = str((config.inipath.parent if config.inipath else config.rootpath) / values["config"])
    return values


def _ini_name(option: str, value) -> str:
    return f"ini option sqs_emulator_{option} = {value}"


def _marker_name(option: str, value) -> str:
    return f"the marker's {option}={value!r}"


def _serve(given: dict, naming=_ini_name):
    """serve(**given); a refusal is Unavailable, in one line, naming an option as
    `naming(option, value)` does (as the ini file or the marker gave it)."""
    embedded = _emulator("testing.embedded")
    config = _emulator("server.config")
    options = _emulator("server.options")
    try:
        return embedded.serve(**given)
    except (ValueError, config.ConfigError) as error:
        raise Unavailable(f"sqs_emulator: {error}") from None
    except OSError as error:  # the bind: a port in use
        problem = options.cannot_listen(error, embedded.HOST, given.get("port", 0), naming)
        raise Unavailable(f"sqs_emulator: {problem}") from None


def _session_server(config: pytest.Config, region: str | None = None):
    session = config.stash.setdefault(_SESSION, {})
    if "server" not in session:
        given = {**_ini_options(config), **({"region": region} if region else {})}
        session["server"] = _serve(given)
    return session["server"]


def _or_fail(start, *args):
    """start(*args), or the test fails with Unavailable's one line, and no traceback."""
    try:
        return start(*args)
    except Unavailable as error:
        problem = str(error)
    pytest.fail(problem, pytrace=False)  # outside the except: no "during handling" chain


@pytest.fixture(scope="session")
def _sqs_emulator_server(pytestconfig):
    """The session's server (stopped at the end of the run); tests use `sqs_emulator`, which resets it first."""
    return _or_fail(_session_server, pytestconfig)


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
            pytest.fail(f"sqs_emulator marker: takes keywords {', '.join(OPTIONS)}, not {unknown[0]!r}", pytrace=False)
        if "config" in keywords:
            keywords["config"] = str(Path(request.node.path).parent / keywords["config"])
        # A free port unless the marker names one: the session's emulator may hold the ini's.
        try:
            given = {**_ini_options(request.config), "port": 0, **keywords}
            server = _serve(given, _marker_name if "port" in keywords else _ini_name)
        except Unavailable as error:
            pytest.fail(str(error), pytrace=False)
        request.addfinalizer(server.stop)
    if _wants_summary(request.config):
        request.addfinalizer(lambda: _print_summary(request, server))  # before the stop: finalizers run last first
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
