"""The pytest plugin (pytest_sqs_emulator.py), run by pytester on a test file
of its own, and `emulator.serve` without pytest's fixtures."""

import ast
import os
import socket
import subprocess
import sys
import threading
from importlib.metadata import entry_points
from pathlib import Path

import boto3
import pytest

import pytest_sqs_emulator
from emulator import serve
from emulator.inspect.client import AdminApiError, AdminClient, EmulatorUnreachable

pytest_plugins = ["pytester"]

USER_TESTS = """
import os

import boto3
import pytest


def own_client():
    # What application code does: no endpoint or credentials in the code.
    return boto3.client("sqs")


def test_visibility_timeout_passes_when_told(sqs_emulator):
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == sqs_emulator.endpoint_url
    sqs = own_client()
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    assert url == sqs_emulator.endpoint_url + "/000000000000/jobs"
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    first = sqs.receive_message(QueueUrl=url)["Messages"][0]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    [peeked] = sqs_emulator.peek("jobs", state="inflight")
    assert peeked["id"] == first["MessageId"] and peeked["receive_count"] == 1
    sqs_emulator.advance(31)
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["MessageId"] == first["MessageId"] and again["ReceiptHandle"] != first["ReceiptHandle"]
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    assert sqs_emulator.peek(url)[0]["receive_count"] == 2  # peeking counted nothing


def test_wait_for_message_and_duplicate_delivery(sqs_emulator, sqs_client):
    url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="order-1")
    sqs_client.send_message(QueueUrl=url, MessageBody="order-2")
    found = sqs_emulator.wait_for_message("orders", lambda m: m["body"] == "order-2")
    assert found["state"] == "visible" and found["receive_count"] == 0

    policy = sqs_emulator.faults("orders", duplicate_delivery=1.0, seed=7)
    assert policy["duplicate_delivery"] == 1.0 and sqs_emulator.faults("orders") == policy
    first = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    duplicate = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    assert duplicate["MessageId"] == first["MessageId"]
    assert duplicate["ReceiptHandle"] != first["ReceiptHandle"]
    [queue] = sqs_emulator.queues()
    assert queue["totals"]["duplicate_deliveries"] >= 1
    sqs_emulator.clear_faults("orders")
    assert sqs_emulator.faults("orders") is None


def test_error_rules_and_kms_keys_from_the_fixture(sqs_emulator, sqs_client):
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    rule = sqs_emulator.error_rule("ServiceUnavailable", queue="jobs", operation="SendMessage", count=1)
    answer = sqs_client.send_message(QueueUrl=url, MessageBody="x")  # botocore retries a 503
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1
    assert sqs_emulator.error_rules()["rules"][0]["id"] == rule["id"]
    sqs_emulator.clear_error_rules(rule["id"])
    sealed = sqs_client.create_queue(QueueName="sealed", Attributes={"KmsMasterKeyId": "alias/aws/sqs"})["QueueUrl"]
    assert sqs_emulator.kms_key("alias/aws/sqs", "not_found") == {"alias/aws/sqs": "not_found"}
    with pytest.raises(sqs_client.exceptions.KmsNotFound):
        sqs_client.send_message(QueueUrl=sealed, MessageBody="x")


def test_the_next_test_sees_a_reset_emulator(sqs_emulator):
    assert sqs_emulator.error_rules() == {"rules": [], "kms_keys": {}}  # the test before set some
    assert sqs_emulator.queues() == []
    assert "QueueUrls" not in own_client().list_queues()


def test_sqs_client_alone_resets_too(sqs_client):
    assert "QueueUrls" not in sqs_client.list_queues()
    sqs_client.create_queue(QueueName="left-behind")


def test_and_after_it(sqs_client):
    assert "QueueUrls" not in sqs_client.list_queues()


def test_without_the_fixtures_the_environment_is_untouched():
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == "http://from-the-shell.invalid"
"""


@pytest.fixture
def user_suite(pytester, monkeypatch):
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)  # the plugin loads by its entry point
    monkeypatch.setenv(
        "AWS_ENDPOINT_URL_SQS", "http://from-the-shell.invalid"
    )  # what a test without the fixtures keeps
    monkeypatch.setenv("AWS_PROFILE", "a-profile-this-machine-lacks")
    pytester.makepyfile(test_user_suite=USER_TESTS)
    return pytester


def test_the_plugin_is_registered_by_its_entry_point():
    [plugin] = [ep for ep in entry_points(group="pytest11") if ep.name == "sqs_emulator"]
    assert plugin.value == "pytest_sqs_emulator"


def test_loading_the_plugin_imports_nothing_of_the_emulator():
    # pytest imports the plugin in every run of the environment; the emulator only when asked for.
    tree = ast.parse(Path(pytest_sqs_emulator.__file__).read_text(encoding="utf-8"))
    imported = [alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name and name.split(".")[0] == "emulator"]


# A project of the user's own whose package is named `emulator`, with sqs-emulator installed.
OWN_EMULATOR = 'NAME = "the project\'s own emulator"\n'
OWN_TESTS = """
import emulator


def test_the_projects_own_package():
    assert emulator.NAME == "the project's own emulator"
"""


def _run_in_a_process(pytester, *args: str, command: tuple[str, ...] = (sys.executable, "-m", "pytest")):
    """`python -m pytest` (or `command`) in pytester's folder, with the plugin loaded by its
    entry point as any run of the environment does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    # This checkout's emulator after the project's own folder, as an installed one would be.
    env["PYTHONPATH"] = os.pathsep.join([str(Path(pytest_sqs_emulator.__file__).parent), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [*command, "-p", "no:cacheprovider", *args],
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_project_with_its_own_emulator_package_runs_its_tests(pytester):
    # Before: the entry point imported emulator.testing.pytest_plugin, the project's
    # emulator/ won, and pytest exited 3 (ModuleNotFoundError) before any test ran.
    pytester.mkpydir("emulator").joinpath("__init__.py").write_text(OWN_EMULATOR)
    pytester.makepyfile(test_own=OWN_TESTS)
    done = _run_in_a_process(pytester)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


@pytest.mark.parametrize("root", [".", "src"])
def test_plain_pytest_in_a_project_with_its_own_emulator_package_imports_the_projects(pytester, root):
    """Issue 38 item 11: `python -m pytest` puts the working folder first on sys.path, plain
    `pytest` only the test file's folder, so the project's tests imported sqs-emulator's package."""
    pytester.mkdir("tests").joinpath("test_own.py").write_text(OWN_TESTS)
    package = pytester.path / root / "emulator"
    package.mkdir(parents=True)
    package.joinpath("__init__.py").write_text(OWN_EMULATOR)
    done = _run_in_a_process(pytester, command=(str(Path(sys.executable).parent / "pytest"),))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_fixtures_in_such_a_project_say_why_in_one_line(pytester):
    pytester.mkpydir("emulator").joinpath("__init__.py").write_text(OWN_EMULATOR)
    pytester.makepyfile(test_own=OWN_TESTS + "\n\ndef test_wants_sqs(sqs_client):\n    pass\n")
    done = _run_in_a_process(pytester, "-rE")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed, 1 error" in done.stdout and "Traceback" not in done.stdout + done.stderr
    where = pytester.path / "emulator"
    line = (
        f"sqs_emulator: 'emulator' is {where} in this run, not sqs-emulator's package (a package of the project's "
        "own has its name), so the plugin cannot start the emulator; run it as a process (sqs-emulator, or its "
        "container) and point AWS_ENDPOINT_URL_SQS at it"
    )
    # A whole line of its own, once; pytest's short summary may repeat the message after the
    # test's name (in full where the CI variable is set), which is pytest's report, not ours.
    assert done.stdout.splitlines().count(line) == 1, done.stdout


def test_a_project_that_uses_the_plugin_in_a_process(pytester):
    # The same entry point, in a fresh interpreter: the fixtures load the emulator when used.
    pytester.makepyfile(test_user=USER_TESTS.replace("def test_without_the_fixtures", "def _unused"))
    done = _run_in_a_process(pytester)
    assert done.returncode == 0 and "6 passed" in done.stdout, done.stdout + done.stderr


def test_a_user_suite_runs_on_the_plugins_fixtures(user_suite):
    result = user_suite.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)


def test_the_environment_is_restored_after_each_test(sqs_emulator, monkeypatch):
    # This very module uses the fixtures too.
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == sqs_emulator.endpoint_url
    assert os.environ["AWS_ACCESS_KEY_ID"] == "test" and os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
    assert "AWS_PROFILE" not in os.environ
    assert sqs_emulator.queues() == []
    boto3.client("sqs").create_queue(QueueName="mine")
    assert [q["name"] for q in sqs_emulator.queues()] == ["mine"]


def test_serve_without_pytest_fixtures():
    with serve(port=0, clock="manual") as server:
        assert server.endpoint_url.startswith("http://127.0.0.1:")
        sqs = server.client()
        url = sqs.create_queue(QueueName="plain", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="one")
        handle = sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        before = AdminClient(server.endpoint_url).health()["now"]
        assert server.advance(31) == pytest.approx(before + 31)
        assert sqs.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"] != handle
        # Cooldowns are off: purge twice, delete and re-create at once.
        sqs.purge_queue(QueueUrl=url)
        sqs.purge_queue(QueueUrl=url)
        sqs.delete_queue(QueueUrl=url)
        sqs.create_queue(QueueName="plain")
        server.reset()
        assert server.queues() == []
        endpoint = server.endpoint_url
    with pytest.raises(EmulatorUnreachable):
        AdminClient(endpoint, timeout=2).health()
    server.stop()  # a second stop is harmless


def test_wait_for_message_sees_a_message_sent_from_another_thread():
    with serve() as server:
        sqs = server.client()
        url = sqs.create_queue(QueueName="later")["QueueUrl"]
        sender = threading.Timer(0.1, lambda: sqs.send_message(QueueUrl=url, MessageBody="arrived"))
        sender.start()
        try:
            message = server.wait_for_message("later", lambda m: m["body"] == "arrived", timeout=10)
        finally:
            sender.join()
        assert message["receive_count"] == 0
        assert server.peek("later")[0]["state"] == "visible"  # still there: nothing was consumed
        with pytest.raises(TimeoutError, match="no matching message in later"):
            server.wait_for_message("later", lambda m: m["body"] == "never", timeout=0.05)


def test_serve_on_the_real_clock_refuses_to_advance():
    with serve(clock="real", account_id="123456789012", region="eu-west-1") as server:
        health = AdminClient(server.endpoint_url).health()
        assert (health["clock"], health["account"], health["region"]) == ("real", "123456789012", "eu-west-1")
        with pytest.raises(AdminApiError) as refused:
            server.advance(1)
        assert refused.value.status == 409 and "real clock" in refused.value.error
        url = server.client().create_queue(QueueName="r")["QueueUrl"]
        assert url.endswith("/123456789012/r")


def test_peek_follows_pages_up_to_its_limit():
    with serve() as server:
        sqs = server.client()
        url = sqs.create_queue(QueueName="many")["QueueUrl"]
        for start in range(0, 1100, 10):
            sqs.send_message_batch(
                QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{start + i}"} for i in range(10)]
            )
        admin = AdminClient(server.endpoint_url)
        assert len(admin.peek("many")) == 100
        every = admin.peek("many", limit=None)
        assert [m["body"] for m in every] == [f"m{i}" for i in range(1100)]
        assert len(admin.peek("many", limit=1050)) == 1050
        with pytest.raises(AdminApiError) as missing:
            admin.peek("nope")
        assert missing.value.status == 404 and missing.value.error == "no queue nope"
        with pytest.raises(AdminApiError) as bad:
            admin.peek("many", state="gone")
        assert bad.value.status == 400


def test_serve_refuses_bad_options():
    with pytest.raises(ValueError, match="clock"):
        serve(clock="sundial")
    with pytest.raises(ValueError, match="12 digits"):
        serve(account_id="12")


# -- configuring the plugin: ini options, the marker, the AWS environment from the start --

APP = """
import boto3

SQS = boto3.client("sqs")  # made at import time, as application code often does


def publish(url, body):
    return SQS.send_message(QueueUrl=url, MessageBody=body)["MessageId"]
"""

APP_TESTS = """
import os

from app import SQS, publish


def test_the_import_time_client_reaches_the_emulator(sqs_emulator, sqs_client):
    assert SQS.meta.endpoint_url == sqs_emulator.endpoint_url
    url = sqs_client.create_queue(QueueName="outbox")["QueueUrl"]
    message_id = publish(url, "sent by the application")
    assert sqs_emulator.peek("outbox")[0]["id"] == message_id


def test_the_environment_holds_for_tests_without_the_fixtures():
    assert os.environ["AWS_ENDPOINT_URL_SQS"].startswith("http://127.0.0.1:")
    assert os.environ["AWS_ACCESS_KEY_ID"] == "test" and "AWS_PROFILE" not in os.environ
    assert os.environ["AWS_DEFAULT_REGION"] == "eu-west-1"  # the shell's, kept
"""


@pytest.fixture
def plugin_run(pytester, monkeypatch):
    """Runs pytester's files with the plugin loaded by its entry point, from a shell whose
    AWS endpoint points elsewhere; returns the run's result."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SQS", "http://from-the-shell.invalid")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.syspath_prepend(pytester.path)

    def run(ini: str, **files):
        pytester.makeini(f"[pytest]\n{ini}\n")
        if files:
            pytester.makepyfile(**files)
        return pytester.runpytest_inprocess("-p", "no:cacheprovider")

    return run


def test_aws_env_redirects_a_client_made_when_a_test_module_imports(plugin_run, monkeypatch):
    monkeypatch.setenv("AWS_PROFILE", "a-profile-this-machine-lacks")  # would fail the client: unset for the run
    result = plugin_run("sqs_emulator_aws_env = true", app=APP, test_app=APP_TESTS)
    result.assert_outcomes(passed=2)
    assert os.environ["AWS_ENDPOINT_URL_SQS"] == "http://from-the-shell.invalid"  # given back after the run


def test_aws_env_redirects_a_client_made_when_a_conftest_imports(plugin_run):
    conftest = "import app  # before any test runs\n"
    result = plugin_run("sqs_emulator_aws_env = true", app=APP, conftest=conftest, test_app=APP_TESTS)
    result.assert_outcomes(passed=2)


def test_without_aws_env_an_import_time_client_keeps_the_shells_endpoint(plugin_run):
    tests = (
        "from app import SQS\n\n\ndef test_it():\n    assert SQS.meta.endpoint_url == 'http://from-the-shell.invalid'\n"
    )
    plugin_run("", app=APP, test_app=tests).assert_outcomes(passed=1)


# Each ini option, with a test that sees its effect through boto3.
INI = {
    "clock": (
        "sqs_emulator_clock = REAL",
        "with pytest.raises(AdminApiError):\n        sqs_emulator.advance(1)",
    ),
    "config": (
        "sqs_emulator_config = sqs.toml",
        "assert sqs_client.get_queue_url(QueueName='from-config')['QueueUrl']",
    ),
    "auto_create": (
        "sqs_emulator_auto_create = on",
        "sqs_client.send_message(QueueUrl=sqs_emulator.endpoint_url + '/000000000000/made', MessageBody='x')",
    ),
    "purge_cooldown": (
        "sqs_emulator_purge_cooldown = 60",
        "url = sqs_client.create_queue(QueueName='p')['QueueUrl']\n    sqs_client.purge_queue(QueueUrl=url)\n"
        "    with pytest.raises(ClientError, match='PurgeQueueInProgress'):\n"
        "        sqs_client.purge_queue(QueueUrl=url)",
    ),
    "recreate_cooldown": (
        "sqs_emulator_recreate_cooldown = 60",
        "url = sqs_client.create_queue(QueueName='r')['QueueUrl']\n    sqs_client.delete_queue(QueueUrl=url)\n"
        "    with pytest.raises(ClientError, match='QueueDeletedRecently'):\n"
        "        sqs_client.create_queue(QueueName='r')",
    ),
    "receipts": (
        "sqs_emulator_receipts = strict",
        "assert sqs_emulator.options.receipts == 'strict'",
    ),
    "port": (
        "sqs_emulator_port = PORT",
        "assert sqs_emulator.endpoint_url == 'http://127.0.0.1:PORT'",
    ),
    "long_poll_cap": (
        "sqs_emulator_long_poll_cap = 0.1",
        "url = sqs_client.create_queue(QueueName='quiet')['QueueUrl']\n    started = time.monotonic()\n"
        "    assert 'Messages' not in sqs_client.receive_message(QueueUrl=url, WaitTimeSeconds=20)\n"
        "    assert time.monotonic() - started < 1",
    ),
    "account_id": (  # issue 38 item 11: moto's account, before only through a config file
        "sqs_emulator_account_id = 123456789012",
        "url = sqs_client.create_queue(QueueName='moto')['QueueUrl']\n"
        "    assert url == sqs_emulator.endpoint_url + '/123456789012/moto'",
    ),
    "loose": (  # issue 39 item 2: every standard queue loose, seeded with loose_seed (0 unless given)
        "sqs_emulator_loose = true",
        "url = sqs_client.create_queue(QueueName='loose')['QueueUrl']\n"
        "    assert sqs_emulator.faults(url)['loose'] is True and sqs_emulator.faults(url)['seed'] == 0",
    ),
    "loose_seed": (
        "sqs_emulator_loose = yes\nsqs_emulator_loose_seed = 9",
        "url = sqs_client.create_queue(QueueName='seeded')['QueueUrl']\n"
        "    assert sqs_emulator.faults(url)['seed'] == 9",
    ),
    "histories": (  # issue 39 item 4: the stories kept per queue; 0 keeps none
        "sqs_emulator_histories = 0",
        "url = sqs_client.create_queue(QueueName='untold')['QueueUrl']\n"
        "    message_id = sqs_client.send_message(QueueUrl=url, MessageBody='x')['MessageId']\n"
        "    with pytest.raises(AdminApiError, match='histories are off'):\n"
        "        sqs_emulator.history(message_id)",
    ),
    "queue_urls": (
        "sqs_emulator_queue_urls = host",
        "url = sqs_client.create_queue(QueueName='formed')['QueueUrl']\n"
        "    assert url == sqs_emulator.endpoint_url.replace('//', '//sqs.us-east-1.') + '/000000000000/formed'",
    ),
}


@pytest.mark.parametrize("name", INI)
def test_each_ini_option_configures_the_sessions_emulator(name, plugin_run, pytester):
    ini, body = INI[name]
    port = str(free_port())
    pytester.makefile(".toml", sqs='[[queues]]\nname = "from-config"\n')
    tests = (
        "import time\n\nimport pytest\nfrom botocore.exceptions import ClientError\n\n"
        "from emulator.inspect.client import AdminApiError\n\n\n"
        f"def test_option(sqs_emulator, sqs_client):\n    {body}\n"
    ).replace("PORT", port)
    plugin_run(ini.replace("PORT", port), test_option=tests).assert_outcomes(passed=1)


MARKED = """
import pytest


def test_unmarked_uses_the_sessions(sqs_emulator):
    assert sqs_emulator.clock == "manual" and sqs_emulator.queues() == []


@pytest.mark.sqs_emulator(clock="real", config="queues.toml", long_poll_cap=0.1, account_id="123456789012")
def test_marked(sqs_emulator, sqs_client):
    assert sqs_emulator.clock == "real" and sqs_emulator.options.long_poll_cap == 0.1
    url = sqs_client.get_queue_url(QueueName="marked")["QueueUrl"]
    assert url == sqs_emulator.endpoint_url + "/123456789012/marked"  # moto's account, from the marker
"""


def test_a_marked_test_gets_an_emulator_of_its_own(plugin_run, pytester):
    pytester.mkdir("sub")
    (pytester.path / "sub" / "queues.toml").write_text('[[queues]]\nname = "marked"\n')
    (pytester.path / "sub" / "test_marked.py").write_text(MARKED)
    # The ini's fixed port is the session's; the marked test's emulator takes a free one.
    plugin_run(f"sqs_emulator_port = {free_port()}").assert_outcomes(passed=2)


LOOSE = """
import pytest

SENT = [str(n) for n in range(5)]


def drain_until_an_empty_poll(sqs, url):  # a classic mistake: one empty short poll as the end
    done = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        for message in messages:
            done.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return done


def test_unmarked(sqs_client):
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    for body in SENT:
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    assert sorted(drain_until_an_empty_poll(sqs_client, url)) == SENT


@pytest.mark.sqs_emulator(loose=True, loose_seed=1)
def test_marked_loose(sqs_emulator, sqs_client):
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    for body in SENT:
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    assert sorted(drain_until_an_empty_poll(sqs_client, url)) == SENT
"""


def test_the_markers_loose_catches_a_consumer_that_takes_one_empty_short_poll_for_the_end(plugin_run, pytester):
    result = plugin_run("", test_loose_consumer=LOOSE)  # a name no module of the suite has
    result.assert_outcomes(passed=1, failed=1)  # the same consumer: fine by default, caught when loose
    result.stdout.fnmatch_lines(["FAILED test_loose_consumer.py::test_marked_loose*"])


def test_a_taken_sqs_emulator_port_is_one_line(pytester):
    # Before: 84 lines of traceback ending in "OSError: [Errno 98] Address already in use".
    tests = "def test_one(sqs_client):\n    pass\n\n\ndef test_two(sqs_client):\n    pass\n"
    pytester.makepyfile(test_taken=tests)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        pytester.makeini(f"[pytest]\nsqs_emulator_port = {port}\n")
        done = _run_in_a_process(pytester, "-rE")
    assert done.returncode == 1 and "2 errors" in done.stdout, done.stdout + done.stderr
    line = (
        f"sqs_emulator: ini option sqs_emulator_port = {port}: address already in use "
        "(ini option sqs_emulator_port = 0 picks a free port)"
    )
    # Each test that asked for the emulator says it, in one line under its heading.
    assert done.stdout.splitlines().count(line) == 2 and "Traceback" not in done.stdout + done.stderr
    assert "Errno" not in done.stdout


def test_an_unknown_ini_key_or_bad_boolean_is_one_line(plugin_run):
    result = plugin_run("sqs_emulator_colck = manual", test_it="def test_it():\n    pass\n")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: sqs_emulator: unknown ini option sqs_emulator_colck in *tox.ini (did you mean sqs_emulator_clock? known: sqs_emulator_account_id, sqs_emulator_clock, *)"
        ]
    )
    # Before: "ValueError: invalid truth value 'maybe'", under a traceback, naming no option.
    result = plugin_run("sqs_emulator_aws_env = maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: sqs_emulator: ini option sqs_emulator_aws_env must be true or false (also 1/0, yes/no, on/off), not 'maybe'"
        ]
    )


def test_a_bad_ini_value_or_marker_keyword_is_one_line(plugin_run):
    tests = "import pytest\n\n\ndef test_it(sqs_emulator):\n    pass\n"
    result = plugin_run("sqs_emulator_clock = sundial", test_bad=tests)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: sqs_emulator: ini option sqs_emulator_clock must be one of real, manual, not 'sundial'"]
    )
    marked = "import pytest\n\n\n@pytest.mark.sqs_emulator(colour='blue')\ndef test_it(sqs_emulator):\n    pass\n"
    result = plugin_run("", test_bad=marked)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*sqs_emulator marker: takes keywords account_id, clock, config*not 'colour'*"])


# A consumer with the hazards a summary names (issue 39 item 5): an empty short poll, a
# processing longer than the visibility timeout (its delete's handle is stale), a message
# received twice, and one moved to its dead-letter queue.
SLOW_CONSUMER = """
import json


def test_slow_consumer(sqs_emulator, sqs_client):
    dlq = sqs_client.create_queue(QueueName="jobs-dlq")["QueueUrl"]
    arn = sqs_client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 2})
    url = sqs_client.create_queue(QueueName="jobs", Attributes={"RedrivePolicy": policy})["QueueUrl"]
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url)  # an empty short poll
    slow = sqs_client.send_message(QueueUrl=url, MessageBody="slow")["MessageId"]
    first = sqs_client.receive_message(QueueUrl=url, VisibilityTimeout=5)["Messages"][0]
    sqs_emulator.advance(6)
    again = sqs_client.receive_message(QueueUrl=url, VisibilityTimeout=5)["Messages"][0]
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])  # stale: AWS deletes anyway
    assert [e["event"] for e in sqs_emulator.history(slow)] == [
        "sent", "received", "visibility_timeout_ended", "received", "deleted"
    ]
    poison = sqs_client.send_message(QueueUrl=url, MessageBody="poison")["MessageId"]
    for _ in range(2):
        sqs_client.receive_message(QueueUrl=url, VisibilityTimeout=5)
        sqs_emulator.advance(6)
    sqs_client.receive_message(QueueUrl=url)  # the third receive moves it
    assert sqs_emulator.history(poison)[-1]["queue"] == dlq
    print("IDS", slow, poison)


def test_quiet(sqs_emulator, sqs_client):
    sqs_client.create_queue(QueueName="quiet")
"""


def test_the_summary_names_what_a_test_met_when_asked(plugin_run):
    result = plugin_run("sqs_emulator_summary = true", test_consumer=SLOW_CONSUMER)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*sqs-emulator summary of test_consumer.py::test_slow_consumer:",
            "  received more than once: * (2 receives, jobs), * (2 receives, jobs)",
            "  receipts stale at their delete (processing longer than the visibility timeout): "
            "* (handle of receive 1, jobs)",
            "  moved to a dead-letter queue: * (from jobs: maxReceiveCount 2 reached: received 2 times, "
            "moved at receive 3)",
            "  empty short polls (each a billed request on AWS): 2 on jobs",
        ]
    )
    assert "summary of test_consumer.py::test_quiet" not in result.stdout.str()  # nothing to name: no block
    # the command line's flag does the same without the ini option
    result = plugin_run("", test_consumer=SLOW_CONSUMER)
    assert "sqs-emulator summary" not in result.stdout.str()  # off by default


def test_the_summary_flag_turns_it_on_from_the_command_line(plugin_run, pytester):
    pytester.makepyfile(test_consumer=SLOW_CONSUMER)
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--sqs-emulator-summary")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*sqs-emulator summary of test_consumer.py::test_slow_consumer:"])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
