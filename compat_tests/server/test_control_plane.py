"""Anything that runs code is the operator's (issue 31, item 1): command and module
event-source targets come from the config file or Python, and over the admin API only
when the operator starts the server with --allow-code-targets, and then only from a
request that carries that start's token (the banner prints it), no Origin and no
Sec-Fetch-* header; a module target over HTTP imports nothing; a command whose program
does not exist is refused when the mapping is made. The emulator's own rules (AWS has no
such API). Each refusal is checked by what did not happen: the marker file a command or a
module's import would write is never written.
"""

import json
import sys
import time

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import admin_call as call
from compat_tests.helpers import counts, sqs_client, unique_name
from compat_tests.restartable import refused_start
from compat_tests.server.test_event_source_targets import COMMAND, wait_for
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="event source mappings are the emulator's own")

TOKEN_HEADER = "X-Emulator-Code-Token"
CORS_PAGE = "http://localhost:3000"
IMPORTED = "compat_tests.event_handlers:write_bodies"  # the config file's target: imported at start


@pytest.fixture(scope="module")
def operator(tmp_path_factory):
    """A server started with --allow-code-targets and a --cors-origins page; its config file
    maps a queue to a module function, so that module is imported. (server, its token, the file
    compat_tests/import_marker.py writes if the server ever imports it)"""
    directory = tmp_path_factory.mktemp("control")
    config, marker = directory / "control.toml", directory / "imported"
    config.write_text(
        f'[[queues]]\nname = "configured"\n\n[[event_sources]]\nqueue = "configured"\ntarget = "{IMPORTED}"\n'
    )
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("SQS_IMPORT_MARKER", str(marker))  # the server process inherits it
        server = start_emulator(
            "manual", "control", "--allow-code-targets", "--cors-origins", CORS_PAGE, "--config", str(config)
        )
    deadline = time.monotonic() + 10
    while f"{TOKEN_HEADER}: " not in server.log_path.read_text():
        assert time.monotonic() < deadline, server.log_path.read_text()
        time.sleep(0.02)
    token = server.log_path.read_text().split(f"{TOKEN_HEADER}: ", 1)[1].split()[0]
    yield server, token, marker
    server.stop()


def _queue(endpoint) -> str:
    return sqs_client(endpoint).create_queue(QueueName=unique_name("control"))["QueueUrl"]


def _touch(marker) -> list[str]:
    return ["touch", str(marker)]


def test_code_targets_over_http_are_refused_by_default_and_nothing_runs(endpoint, tmp_path, monkeypatch):
    """Any local process (another user, a container sharing the network, an SSRF) got 201 for
    ["sh", "-c", ...] and its command ran on the next message; a module target's import ran at once."""
    url = _queue(endpoint)
    marker = tmp_path / "ran"
    for target in (_touch(marker), ["sh", "-c", f"touch {marker}"], "compat_tests.import_marker:handler"):
        status, answer = call(endpoint, "POST", "/_emulator/event-sources", {"queue": url, "target": target})
        assert status == 403 and "--allow-code-targets" in answer["error"], answer
    sqs_client(endpoint).send_message(QueueUrl=url, MessageBody="would run them")
    assert not marker.exists()
    assert [m for m in call(endpoint, "GET", "/_emulator/event-sources")[1]["event_sources"] if m["queue"] == url] == []
    patched = call(endpoint, "POST", "/_emulator/event-sources", {"queue": url, "target": "http://127.0.0.1:1/x"})[1]
    status, _ = call(endpoint, "PATCH", f"/_emulator/event-sources/{patched['id']}", {"target": _touch(marker)})
    assert status == 403  # nor by changing a mapping
    call(endpoint, "DELETE", f"/_emulator/event-sources/{patched['id']}")


def test_with_the_opt_in_a_command_target_needs_the_token_and_then_runs(operator, tmp_path):
    server, token, _ = operator
    url, out, marker = _queue(server.url), tmp_path / "bodies.txt", tmp_path / "ran"
    sqs = sqs_client(server.url)
    for body in ("one", "bad", "two"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    for headers in ({}, {TOKEN_HEADER: "not-the-token"}):
        fields = {"queue": url, "target": _touch(marker)}
        status, answer = call(server.url, "POST", "/_emulator/event-sources", fields, headers=headers)
        assert status == 403 and TOKEN_HEADER in answer["error"]
    target = [sys.executable, "-c", COMMAND, str(out)]
    fields = {"queue": url, "target": target, "report_batch_item_failures": True, "timeout_seconds": 20}
    status, mapping = call(server.url, "POST", "/_emulator/event-sources", fields, headers={TOKEN_HEADER: token})
    assert status == 201 and mapping["target"] == target
    done = wait_for(server.url, mapping["id"], lambda c: c["invocations"] >= 1 and not c["in_flight"])
    assert done["counters"]["deleted"] == 2 and done["counters"]["items_reported_failed"] == 1
    assert out.read_text().split() == ["one", "bad", "two"] and not marker.exists()


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": CORS_PAGE},  # a --cors-origins page: its preflight allows a JSON POST
        {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"},  # the dashboard's own page
        {"Sec-Fetch-Dest": "empty"},
    ],
    ids=["cors-origins-page", "same-origin-page", "any-sec-fetch"],
)
def test_a_code_target_from_a_web_page_is_refused_even_with_the_token(operator, tmp_path, headers):
    """An XSS or a malicious dependency in the app on localhost:3000 became code execution."""
    server, token, _ = operator
    url, marker = _queue(server.url), tmp_path / "ran"
    for target in (_touch(marker), IMPORTED):
        fields = {"queue": url, "target": target}
        status, answer = call(
            server.url, "POST", "/_emulator/event-sources", fields, headers={TOKEN_HEADER: token, **headers}
        )
        assert status == 403 and "web page" in answer["error"], answer
    sqs_client(server.url).send_message(QueueUrl=url, MessageBody="x")
    assert not marker.exists() and counts(sqs_client(server.url), url) == (1, 0, 0)
    # The same page may still make an http(s) target, as the admin API always allows.
    fields = {"queue": url, "target": "http://127.0.0.1:1/x", "enabled": False}
    status, mapping = call(server.url, "POST", "/_emulator/event-sources", fields, headers={"Origin": CORS_PAGE})
    assert status == 201
    call(server.url, "DELETE", f"/_emulator/event-sources/{mapping['id']}")


def test_a_module_target_over_http_imports_nothing(operator, tmp_path):
    """Registration imported the module, so its import-time code ran even when the attribute was
    missing. Over HTTP a module target names a module the server imported already (here, by the
    config file); another is refused, its code never run."""
    server, token, marker = operator
    url = _queue(server.url)
    headers = {TOKEN_HEADER: token}
    for target in ("compat_tests.import_marker:handler", "compat_tests.import_marker:missing"):
        fields = {"queue": url, "target": target}
        status, answer = call(server.url, "POST", "/_emulator/event-sources", fields, headers=headers)
        assert (status, answer["field"]) == (400, "target") and "is not imported by this server" in answer["error"]
    assert not marker.exists()
    out = tmp_path / "module.txt"
    status, mapping = call(
        server.url, "POST", "/_emulator/event-sources", {"queue": url, "target": IMPORTED}, headers=headers
    )
    assert status == 201
    sqs_client(server.url).send_message(QueueUrl=url, MessageBody=json.dumps({"out": str(out), "text": "hello"}))
    wait_for(server.url, mapping["id"], lambda c: c["deleted"] == 1)
    assert out.read_text() == "hello\n"
    fields = {"queue": url, "target": "compat_tests.event_handlers:no_such_function"}
    status, answer = call(server.url, "POST", "/_emulator/event-sources", fields, headers=headers)
    assert (status, answer["field"]) == (400, "target") and "no 'no_such_function'" in answer["error"]


def test_a_command_whose_program_does_not_exist_is_refused_at_creation(operator, tmp_path):
    server, token, _ = operator
    url = _queue(server.url)
    for program, problem in (
        ("no-such-program-xyz", "no program 'no-such-program-xyz' on PATH"),
        (str(tmp_path / "missing"), "is not an executable file"),
    ):
        fields = {"queue": url, "target": [program, "arg"]}
        status, answer = call(server.url, "POST", "/_emulator/event-sources", fields, headers={TOKEN_HEADER: token})
        assert (status, answer["field"]) == (400, "target") and problem in answer["error"], answer
    config = tmp_path / "missing-program.toml"
    config.write_text(
        '[[queues]]\nname = "work"\n\n[[event_sources]]\nqueue = "work"\ntarget = ["no-such-program-xyz"]\n'
    )
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"{config}: event_sources[0]: target: no program 'no-such-program-xyz' on PATH" in result.stderr
