"""The checks of Options (emulator/server/build.py), written once: the command
line prints each refusal as it always has (exit code 2), serve() raises it as a
ValueError naming its keyword."""

import os

import pytest

from emulator.server import cli
from emulator.server.build import OptionError, Options, build

# (Options fields, the same on the command line, what the command line prints, what serve() raises)
BAD = [
    ({"account_id": "12"}, ["--account-id", "12"], "--account-id must be 12 digits", "account_id must be 12 digits"),
    (
        {"hostname": "sqs:port"},
        ["--hostname", "sqs:port"],
        "--hostname must be a host name, optionally with :port",
        "hostname must be a host name, optionally with :port",
    ),
    (
        {"sync_interval_ms": 0},
        ["--sync-interval-ms", "0"],
        "--sync-interval-ms must be between 1 and 60000",
        "sync_interval_ms must be between 1 and 60000",
    ),
    (
        {"purge_cooldown": -1},
        ["--purge-cooldown", "-1"],
        "cooldowns are seconds, 0 or more",
        "cooldowns are seconds, 0 or more",
    ),
    (
        {"recreate_cooldown": -0.5},
        ["--recreate-cooldown", "-0.5"],
        "cooldowns are seconds, 0 or more",
        "cooldowns are seconds, 0 or more",
    ),
    ({"port": 70000}, ["--port", "70000"], "--port must be from 0 to 65535", "port must be from 0 to 65535"),
    ({"data_dir": ""}, ["--data-dir", ""], "--data-dir must name a directory", "data_dir must name a directory"),
    *(
        (
            {field: 0},
            [f"--{field.replace('_', '-')}", "0"],
            f"--{field.replace('_', '-')} must be more than 0",
            f"{field} must be more than 0",
        )
        for field in ("max_body_bytes", "max_connections", "max_waits", "request_timeout", "idle_timeout")
    ),
]


@pytest.mark.parametrize("fields,argv,command_line,python", BAD, ids=[case[2] for case in BAD])
def test_a_bad_option_is_refused_with_the_command_lines_message(fields, argv, command_line, python, capsys):
    with pytest.raises(OptionError) as refused:
        Options(**fields)
    assert refused.value.command_line == command_line
    assert str(refused.value) == python
    with pytest.raises(SystemExit) as exited:
        cli.parse_args(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith(f"sqs-emulator: error: {command_line}\n")


@pytest.mark.parametrize("field,value", [("clock", "sundial"), ("receipts", "lenient"), ("sync", "sometimes")])
def test_a_choice_outside_its_list_is_refused(field, value):
    # The command line's argparse refuses these first, with its own "invalid choice" message.
    with pytest.raises(OptionError, match=f"^{field} is one of .*, not '{value}'$"):
        Options(**{field: value})


def test_the_command_line_builds_its_options_from_arguments_and_environment(monkeypatch):
    for name in [name for name in os.environ if name.startswith("SQS_EMULATOR_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SQS_EMULATOR_REGION", "eu-west-1")
    args = cli.parse_args(["--port", "0", "--clock", "manual", "--receipts", "strict", "--auto-create"])
    assert args.options == Options(port=0, region="eu-west-1", clock="manual", receipts="strict", auto_create=True)


def test_the_front_doors_limits_come_from_flags_and_environment(monkeypatch):
    monkeypatch.setenv("SQS_EMULATOR_MAX_WAITS", "7")
    args = cli.parse_args(["--max-body-bytes", "2048", "--max-connections", "5", "--request-timeout", "2.5"])
    assert args.options == Options(max_body_bytes=2048, max_connections=5, max_waits=7, request_timeout=2.5)


def test_build_without_listening_wires_a_manual_clock_from_its_start():
    emulator = build(Options(clock="manual", clock_start=1_000.0, purge_cooldown=0), listen=False)
    try:
        assert emulator.http is None
        assert emulator.broker.clock.manual and emulator.broker.clock.now() == 1_000.0
        assert emulator.broker.purge_cooldown == 0 and emulator.app.broker is emulator.broker
    finally:
        emulator.close()
