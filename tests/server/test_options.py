"""The options' one table (emulator/server/options.py): every option read alike from
a flag, the environment and the config file's [server] table, and from Python
(Options, serve()); the precedence flag > environment > file > default; the help.
The process's exit codes and one-line errors: compat_tests/server/test_cli.py."""

import dataclasses
import json

import pytest

from emulator import serve
from emulator.server import cli, options
from emulator.server.build import OptionError, Options, build

# Each option: (a good value as written, as read, a bad value as written, the problem said).
# None: every string is a good value (the config file's refusal of a number is tested below).
CASES = {
    "host": ("0.0.0.0", "0.0.0.0", None, None),
    "port": ("0", 0, "70000", "must be from 0 to 65535, not 70000"),
    "account_id": ("123456789012", "123456789012", "12", "must be 12 digits, not '12'"),
    "region": ("eu-west-1", "eu-west-1", None, None),
    "hostname": (
        "sqs.local:4566",
        "sqs.local:4566",
        "sqs:port",
        "must be a host name, optionally with :port, not 'sqs:port'",
    ),
    "log_level": ("DEBUG", "debug", "verbose", "must be one of debug, info, warning, error, not 'verbose'"),
    "clock": ("MANUAL", "manual", "sundial", "must be one of real, manual, not 'sundial'"),
    "purge_cooldown": ("0", 0.0, "-1", "must be 0 or more seconds, not -1"),
    "recreate_cooldown": ("2.5", 2.5, "soon", "must be a number of seconds, not 'soon'"),
    "cooldowns": ("OFF", "off", "none", "must be one of aws, off, not 'none'"),
    "receipts": ("Strict", "strict", "lenient", "must be one of aws, strict, not 'lenient'"),
    "histories": ("0", 0, "-5", "must be from 0 to 1000000, not -5"),
    "data_dir": (
        "/tmp/sqs-data",
        "/tmp/sqs-data",
        "",
        "must name a directory (an existing one or one to create), not ''",
    ),
    "sync": ("ALWAYS", "always", "never", "must be one of always, interval, off, not 'never'"),
    "sync_interval_ms": ("50", 50, "0", "must be from 1 to 60000, not 0"),
    "config": ("CONFIG", "CONFIG", "", "must name a file, not ''"),  # CONFIG: an empty file of the test's
    "queue_urls": ("PATH", "path", "subdomain", "must be one of aws, path, host, not 'subdomain'"),
    "allowed_hosts": (
        "sqs, queues.internal",
        ("sqs", "queues.internal"),
        "a b",
        "lists host names (or *), separated by commas, not 'a b'",
    ),
    "cors_origins": (
        "http://localhost:3000",
        ("http://localhost:3000",),
        "localhost:3000",
        "lists origins such as http://localhost:3000, separated by commas, not 'localhost:3000'",
    ),
    "allow_code_targets": ("1", True, "sometimes", "must be true or false (also 1/0, yes/no, on/off), not 'sometimes'"),
    "require_auth": ("yes", True, "maybe", "must be true or false (also 1/0, yes/no, on/off), not 'maybe'"),
    "max_body_bytes": ("2048", 2048, "0", "must be from 1 to 2147483648, not 0"),
    "max_connections": ("5", 5, "0", "must be from 1 to 1000000, not 0"),
    "max_waits": ("7", 7, "-1", "must be from 1 to 1000000, not -1"),
    "request_timeout": ("2.5", 2.5, "0", "must be more than 0 seconds, not 0"),
    "idle_timeout": ("60", 60.0, "never", "must be a number of seconds, not 'never'"),
    "write_timeout": ("10", 10.0, "0", "must be more than 0 seconds, not 0"),
    "auto_create": ("on", True, "maybe", "must be true or false (also 1/0, yes/no, on/off), not 'maybe'"),
    "long_poll_cap": ("0.1", 0.1, "-0.1", "must be 0 or more seconds, not -0.1"),
    "loose": ("on", True, "often", "must be true or false (also 1/0, yes/no, on/off), not 'often'"),
    "loose_seed": ("42", 42, "-1", "must be from 0 to 4294967295, not -1"),
}
SOURCES = ["flag", "env", "config"]
GOOD = [(name, source) for name in CASES for source in SOURCES if not (name == "config" and source == "config")]
BAD = [(name, source) for name, source in GOOD if CASES[name][2] is not None]


def test_every_field_of_options_is_in_the_table_or_python_only():
    # A field added without its table line would have no flag, no environment variable, no check.
    python_only = {"clock_start", "tune_gc"}
    fields = {field.name for field in dataclasses.fields(Options)}
    assert fields - python_only == {option.name for option in options.TABLE}
    assert set(CASES) == {option.name for option in options.TABLE}


def _given(name: str, written, source: str, tmp_path) -> tuple[list[str], dict[str, str]]:
    """argv and environment that give option `name` the value `written` from `source`."""
    option = options.BY_NAME[name]
    # require_auth needs a config file (of credentials); the config source is one.
    needed = []
    if name == "require_auth" and source != "config":
        (tmp_path / "credentials.toml").write_text("")
        needed = ["--config", str(tmp_path / "credentials.toml")]
    if source == "flag":
        return [option.flag, written, *needed], {}
    if source == "env":
        return needed, {option.env: written}
    path = tmp_path / "emulator.toml"
    path.write_text(f"[server]\n{name} = {json.dumps(written)}\n")  # a JSON string is a TOML string
    return ["--config", str(path)], {}


@pytest.mark.parametrize("name,source", GOOD, ids=[f"{n}-{s}" for n, s in GOOD])
def test_a_good_value_is_read_alike_from_each_source(name, source, tmp_path):
    written, read, _, _ = CASES[name]
    if written == "CONFIG":
        (tmp_path / "empty.toml").write_text("")
        written = read = str(tmp_path / "empty.toml")
    argv, environ = _given(name, written, source, tmp_path)
    assert getattr(cli.parse_args(argv, environ).options, name) == read
    # The config file may write the value as TOML's own type too.
    if source == "config" and not isinstance(read, str):
        (tmp_path / "emulator.toml").write_text(f"[server]\n{name} = {json.dumps(read)}\n")
        assert getattr(cli.parse_args(argv, {}).options, name) == read


@pytest.mark.parametrize("name,source", BAD, ids=[f"{n}-{s}" for n, s in BAD])
def test_a_bad_value_is_refused_alike_naming_its_source(name, source, tmp_path, capsys):
    _, _, written, problem = CASES[name]
    argv, environ = _given(name, written, source, tmp_path)
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(argv, environ)
    assert exited.value.code == 2
    option = options.BY_NAME[name]
    where = {"flag": option.flag, "env": option.env, "config": f"{tmp_path / 'emulator.toml'}: [server] {name}"}
    assert capsys.readouterr().err == f"sqs-emulator: error: {where[source]} {problem}\n"
    # Python (Options, serve()) refuses it too, naming the keyword.
    with pytest.raises(OptionError) as refused:
        Options(**{name: written})
    assert str(refused.value) == f"{name} {problem}"


def test_precedence_is_flag_then_environment_then_file_then_default(tmp_path):
    path = tmp_path / "emulator.toml"
    path.write_text('[server]\nregion = "eu-west-1"\nclock = "manual"\nreceipts = "strict"\n')
    environ = {"SQS_EMULATOR_CONFIG": str(path), "SQS_EMULATOR_REGION": "eu-west-2", "SQS_EMULATOR_CLOCK": "real"}
    chosen = cli.parse_args(["--region", "eu-west-3"], environ).options
    assert (chosen.region, chosen.clock, chosen.receipts, chosen.port) == ("eu-west-3", "real", "strict", 9324)


@pytest.mark.parametrize(
    "text,error",
    [
        ('[server]\ncolour = "blue"\n', "[server] unknown key 'colour' (known: host, port,"),
        ('[server]\nconfig = "other.toml"\n', "[server] unknown key 'config'"),
        ("[server]\nhost = 5\n", "[server] host must be a string, not 5"),
        ("[server]\nport = 9324.5\n", "[server] port must be a whole number from 0 to 65535, not 9324.5"),
        ("[server]\nauto_create = 1.0\n", "[server] auto_create must be true or false"),
    ],
)
def test_the_config_files_server_table_is_checked_naming_file_and_key(text, error, tmp_path, capsys):
    path = tmp_path / "emulator.toml"
    path.write_text(text)
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(["--config", str(path)], {})
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith(f"sqs-emulator: error: {path}: {error}")


def test_a_file_that_is_not_a_config_stops_the_start_as_before(tmp_path):
    # As when its queues are applied (compat_tests/server/test_config.py): exit code 1, the file named.
    path = tmp_path / "emulator.toml"
    path.write_text('server = "x"\n')
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(["--config", str(path)], {})
    assert exited.value.code == f"sqs-emulator: {path}: server must be a table, written [server]"


def test_the_file_takes_the_flags_spelling_of_a_key_too(tmp_path):
    path = tmp_path / "emulator.toml"
    path.write_text("[server]\nsync-interval-ms = 20\n")
    assert cli.parse_args(["--config", str(path)], {}).options.sync_interval_ms == 20


@pytest.mark.parametrize("argv", [["--auto-create"], ["--auto-create", "yes"], ["--auto-create=TRUE"]])
def test_auto_create_as_a_bare_flag_or_with_a_value(argv):
    assert cli.parse_args(argv, {}).options.auto_create is True
    assert cli.parse_args(["--auto-create", "off"], {"SQS_EMULATOR_AUTO_CREATE": "1"}).options.auto_create is False


def test_sync_without_a_data_dir_is_warned_about(capsys):
    cli.parse_args(["--sync", "always"], {})
    assert "warning: --sync and --sync-interval-ms apply only with --data-dir" in capsys.readouterr().err
    cli.parse_args(["--sync", "always", "--data-dir", "/tmp/x"], {})
    assert capsys.readouterr().err == ""


def test_help_gives_each_options_sentence_env_and_default(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps to the terminal, breaking words at hyphens
    with pytest.raises(SystemExit):
        cli.parse_args(["--help"], {})
    text = " ".join(capsys.readouterr().out.split())
    for option in options.TABLE:
        assert option.flag in text and option.env in text and " ".join(option.help.split()) in text
    assert "(env SQS_EMULATOR_PORT; default 9324)" in text and "default none" in text
    assert "a flag wins over the environment, the environment over the file" in text


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(["--version"], {})
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("sqs-emulator 0.")


def test_an_unknown_flag_is_one_line_too(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(["--colour", "blue"], {})
    assert exited.value.code == 2
    assert capsys.readouterr().err == "sqs-emulator: error: unrecognized arguments: --colour blue\n"


def test_serve_reads_its_keywords_and_the_files_server_table_alike(tmp_path):
    path = tmp_path / "emulator.toml"
    path.write_text('[server]\nclock = "real"\nreceipts = "strict"\n[[queues]]\nname = "from-file"\n')
    with serve(config=str(path), receipts="AWS", long_poll_cap=0.2) as server:
        # The keyword wins over the file, the file over serve()'s default (manual clock).
        assert (server.options.clock, server.options.receipts, server.options.long_poll_cap) == ("real", "aws", 0.2)
        assert [q["name"] for q in server.queues()] == ["from-file"]
    with pytest.raises(OptionError, match=r"^long_poll_cap must be 0 or more seconds, not -1$"):
        serve(long_poll_cap=-1)


def test_build_without_listening_wires_a_manual_clock_from_its_start():
    emulator = build(Options(clock="manual", clock_start=1_000.0, purge_cooldown=0, long_poll_cap=0.5), listen=False)
    try:
        assert emulator.http is None
        assert emulator.broker.clock.manual and emulator.broker.clock.now() == 1_000.0
        assert emulator.broker.clock.wait_cap == 0.5
        assert emulator.broker.purge_cooldown == 0 and emulator.app.broker is emulator.broker
    finally:
        emulator.close()


@pytest.mark.parametrize(
    "argv,env", [(["--cooldowns", "off"], {}), ([], {"SQS_EMULATOR_COOLDOWNS": "off"})], ids=["flag", "environment"]
)
def test_cooldowns_off_is_a_preset_that_zeroes_both_cooldowns(argv, env):
    chosen = cli.parse_args(["--recreate-cooldown", "30", *argv], env).options
    assert chosen.cooldowns == "off"
    emulator = build(chosen, listen=False)
    try:
        assert (emulator.broker.purge_cooldown, emulator.broker.recreate_cooldown) == (0, 0)
    finally:
        emulator.close()


def test_require_auth_needs_a_config_file():
    with pytest.raises(OptionError, match=r"^require_auth needs --config with \[\[credentials\]\]"):
        Options(require_auth=True)


@pytest.mark.parametrize(
    "host, address", [("0.0.0.0", "127.0.0.1"), ("::", "[::1]"), ("127.0.0.1", "127.0.0.1"), ("fe80::1", "[fe80::1]")]
)
def test_the_banner_shows_an_address_a_client_can_use(host, address):
    assert cli.client_address(host) == address


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "sqs.internal"])
def test_binding_beyond_loopback_without_auth_warns(host):
    assert "without --require-auth" in cli.exposure_warning(host, require_auth=False)
    assert cli.exposure_warning(host, require_auth=True) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_needs_no_warning(host):
    assert cli.exposure_warning(host, require_auth=False) is None


def test_serve_takes_the_queue_url_form():
    with serve(queue_urls="path", region="us-east-1") as server:
        sqs = server.client(region="eu-west-1")
        assert sqs.create_queue(QueueName="q")["QueueUrl"].endswith("/eu-west-1/000000000000/q")
