"""The command line: banner, configuration from the environment, keep-alive on
the wire, and a clean exit on SIGTERM and SIGINT."""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from compat_tests.conftest import TARGET
from compat_tests.servers import REPO_ROOT, free_port

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own command line")
PYTHON = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)


def _start(env_overrides: dict, *args: str, cwd=REPO_ROOT) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQS_EMULATOR_")}
    env.update(env_overrides)
    return subprocess.Popen(
        [PYTHON, "-m", "emulator", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def _banner(proc: subprocess.Popen) -> list[str]:
    # The banner is two flushed lines; readline blocks at most until the server prints them.
    return [proc.stdout.readline().strip() for _ in range(2)]


def _stop(proc: subprocess.Popen, sig: int) -> int:
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_environment_configures_the_server_and_a_signal_stops_it_cleanly(sig):
    port = free_port()
    proc = _start(
        {"SQS_EMULATOR_PORT": str(port), "SQS_EMULATOR_ACCOUNT_ID": "123456789012", "SQS_EMULATOR_REGION": "eu-west-1"}
    )
    try:
        banner = _banner(proc)
        assert f"http://127.0.0.1:{port}" in banner[0] and "123456789012" in banner[0] and "eu-west-1" in banner[0]
        assert banner[1] == (
            f"export AWS_ENDPOINT_URL_SQS=http://127.0.0.1:{port} AWS_ACCESS_KEY_ID=test "
            "AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=eu-west-1  # point an SDK at it"
        )
        # No SigV4 scope: the default account and region apply.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request(
            "POST",
            "/",
            body="Action=CreateQueue&QueueName=cli",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        assert response.status == 200
        assert f"http://127.0.0.1:{port}/123456789012/cli" in response.read().decode()
        conn.close()
    finally:
        code = _stop(proc, sig)
    assert code == 0
    assert "SQS emulator stopped" in proc.stdout.read()


def test_the_banner_line_pasted_into_a_shell_points_boto3_at_the_server():
    """Issue 38 item 9: an endpoint alone left boto3 without a region and credentials."""
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning")
    try:
        export = _banner(proc)[1]
        client = "import boto3; print(boto3.client('sqs').create_queue(QueueName='pasted')['QueueUrl'])"
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull  # nothing but the pasted line
        pasted = subprocess.run(
            ["sh", "-c", f'{export}\nexec "$0" -c "$1"', sys.executable, client],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert pasted.returncode == 0, pasted.stderr
        assert pasted.stdout.strip() == f"http://127.0.0.1:{port}/000000000000/pasted"
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


def test_connections_are_kept_alive_across_requests():
    """werkzeug's server closes every connection unless told otherwise; clients
    reuse connections, so several requests must travel over one socket."""
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning")
    try:
        _banner(proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        target = {"X-Amz-Target": "AmazonSQS.CreateQueue", "Content-Type": "application/x-amz-json-1.0"}
        sockets = set()
        for _ in range(5):
            conn.request("POST", "/", body=json.dumps({"QueueName": "kept"}), headers=target)
            response = conn.getresponse()
            assert response.status == 200 and response.getheader("Connection") != "close"
            response.read()
            sockets.add(conn.sock.getsockname())
        assert len(sockets) == 1
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


def test_the_banner_names_the_dashboard():
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning")
    try:
        _banner(proc)
        line = proc.stdout.readline().strip()
        assert line == f"Dashboard: http://127.0.0.1:{port}/_emulator/ui/"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", line.split(" ", 1)[1].removeprefix(f"http://127.0.0.1:{port}"))
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/html")
        assert b"<title>SQS emulator</title>" in response.read()
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


def test_a_server_whose_dashboard_files_vanished_says_so_with_the_fix(tmp_path):
    """Issue 38 item 8: `pip install .`, the server started, then `pip install -e .` in the same
    venv took the installed files away; the dashboard answered "no dashboard file index.html"."""
    installed = tmp_path / "emulator"  # a copy of the package the server runs from, as site-packages holds one
    shutil.copytree(REPO_ROOT / "emulator", installed, ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    proc = _start({}, "--port", str(port), "--log-level", "warning", cwd=tmp_path)
    try:
        _banner(proc)
        shutil.rmtree(installed / "server" / "admin" / "static")  # what the reinstall did
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/_emulator/ui/")
        response = conn.getresponse()
        gone = (
            f"the dashboard's files are gone from {installed / 'server' / 'admin' / 'static'}: the package "
            "was reinstalled or removed under the running server; restart sqs-emulator"
        )
        assert (response.status, json.loads(response.read())) == (503, {"error": gone})
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0
    logged = [line for line in proc.stdout.read().splitlines() if "dashboard's files" in line]
    assert len(logged) == 1 and logged[0].endswith(f"ERROR emulator.server.admin.ui: {gone}")


HOST_PROBLEM = "must be an IP address or a name this machine resolves (127.0.0.1, 0.0.0.0, ::)"
# One bad value per option, refused by the process alike from each source (emulator/server/options.py).
BAD = {
    "host": ("locahost", f"{HOST_PROBLEM}, not 'locahost'"),
    "port": ("-1", "must be from 0 to 65535, not -1"),
    "account_id": ("12", "must be 12 digits, not '12'"),
    "hostname": ("sqs:port", "must be a host name, optionally with :port, not 'sqs:port'"),
    "log_level": ("verbose", "must be one of debug, info, warning, error, not 'verbose'"),
    "clock": ("sundial", "must be one of real, manual, not 'sundial'"),
    "purge_cooldown": ("-1", "must be 0 or more seconds, not -1"),
    "recreate_cooldown": ("soon", "must be a number of seconds, not 'soon'"),
    "cooldowns": ("none", "must be one of aws, off, not 'none'"),
    "receipts": ("lenient", "must be one of aws, strict, not 'lenient'"),
    "data_dir": ("", "must name a directory (an existing one or one to create), not ''"),
    "sync": ("never", "must be one of always, interval, off, not 'never'"),
    "sync_interval_ms": ("0", "must be from 1 to 60000, not 0"),
    "config": ("", "must name a file, not ''"),
    "queue_urls": ("subdomain", "must be one of aws, path, host, not 'subdomain'"),
    "allowed_hosts": ("a b", "lists host names (or *), separated by commas, not 'a b'"),
    "cors_origins": (
        "localhost:3000",
        "lists origins such as http://localhost:3000, separated by commas, not 'localhost:3000'",
    ),
    "require_auth": ("maybe", "must be true or false (also 1/0, yes/no, on/off), not 'maybe'"),
    "allow_code_targets": ("sometimes", "must be true or false (also 1/0, yes/no, on/off), not 'sometimes'"),
    "max_body_bytes": ("0", "must be from 1 to 2147483648, not 0"),
    "request_timeout": ("0", "must be more than 0 seconds, not 0"),
    "auto_create": ("maybe", "must be true or false (also 1/0, yes/no, on/off), not 'maybe'"),
    "long_poll_cap": ("-0.5", "must be 0 or more seconds, not -0.5"),
}
REFUSALS = [
    (name, source) for name in BAD for source in ("flag", "env", "config") if (name, source) != ("config", "config")
]


@pytest.mark.parametrize("name,source", REFUSALS, ids=[f"{n}-{s}" for n, s in REFUSALS])
def test_a_bad_value_from_any_source_is_one_line_and_exit_2(name, source, tmp_path):
    value, problem = BAD[name]
    flag, env = "--" + name.replace("_", "-"), "SQS_EMULATOR_" + name.upper()
    if source == "flag":
        proc, where = _start({}, f"{flag}={value}"), flag
    elif source == "env":
        proc, where = _start({env: value}), env
    else:
        path = tmp_path / "emulator.toml"
        path.write_text(f"[server]\n{name} = {json.dumps(value)}\n")
        proc, where = _start({}, "--config", str(path)), f"{path}: [server] {name}"
    assert proc.wait(timeout=10) == 2
    assert proc.stdout.read() == f"sqs-emulator: error: {where} {problem}\n"  # one line, no traceback


def test_environment_values_are_read_as_flags_are():
    # SQS_EMULATOR_CLOCK=MANUAL once ran the real clock; SQS_EMULATOR_AUTO_CREATE=on was silently off.
    port = free_port()
    proc = _start({"SQS_EMULATOR_PORT": str(port), "SQS_EMULATOR_CLOCK": "MANUAL", "SQS_EMULATOR_AUTO_CREATE": "on"})
    try:
        assert "manual clock" in _banner(proc)[0]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request(
            "POST",
            "/_emulator/clock/advance",
            body=json.dumps({"seconds": 5}),
            headers={"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        assert response.status == 200, response.read()  # a real clock refuses (409)
        response.read()
        conn.request(
            "POST",
            "/000000000000/made-on-use",
            body="Action=SendMessage&MessageBody=hi",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        assert response.status == 200, response.read()  # auto-created
        conn.close()
    finally:
        assert _stop(proc, signal.SIGTERM) == 0


def test_a_taken_port_is_named_in_one_line():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = _start({}, "--port", str(port))
        assert proc.wait(timeout=10) == 1
        assert (
            proc.stdout.read() == f"sqs-emulator: --port {port}: address already in use (--port 0 picks a free port)\n"
        )


def test_an_address_that_is_no_address_is_one_line():
    # Before: the HTTP server's 27-line traceback ending "ValueError: Invalid host/port specified."
    proc = _start({"SQS_EMULATOR_HOST": "999.1.1.1"})
    assert proc.wait(timeout=10) == 2
    assert proc.stdout.read() == f"sqs-emulator: error: SQS_EMULATOR_HOST {HOST_PROBLEM}, not '999.1.1.1'\n"


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path):
    # Before: "cannot use data dir ...: File exists".
    (tmp_path / "notes.txt").write_text("mine")
    proc = _start({}, "--data-dir", str(tmp_path / "notes.txt"))
    assert proc.wait(timeout=10) == 2
    assert proc.stdout.read() == (
        f"sqs-emulator: error: --data-dir must name a directory (an existing one or one to create), "
        f"not '{tmp_path / 'notes.txt'}'\n"
    )


def test_serve_on_a_taken_port_names_it_in_one_line():
    # Before: a bare "OSError: [Errno 98] Address already in use" under a traceback into the server.
    program = "import sys\nfrom emulator import serve\ntry:\n    serve(port=int(sys.argv[1]))\nexcept OSError as e:\n    print(e)\n"
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(
            [PYTHON, "-c", program, str(port)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
        )
    assert done.stdout == f"[Errno 98] serve(port={port}): address already in use (serve(port=0) picks a free port)\n"


def test_help_shows_empty_defaults_as_none_and_config_takes_hocon():
    proc = _start({"COLUMNS": "200"}, "--help")
    assert proc.wait(timeout=10) == 0
    text = proc.stdout.read()
    assert "default ()" not in text and "SQS_EMULATOR_ALLOWED_HOSTS; default none)" in text
    assert "or ElasticMQ's HOCON file (.conf)" in text


def test_a_new_data_dir_is_not_reported_as_migrated(tmp_path):
    proc = _start({}, "--port", "0", "--data-dir", str(tmp_path / "new"))
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        while not lines[-1].startswith("SQS emulator listening"):
            lines.append(proc.stdout.readline())
    finally:
        assert _stop(proc, signal.SIGTERM) == 0
    assert not [line for line in lines if "migrated" in line], lines


def test_a_misspelt_variable_is_named_with_the_nearest_known_one():
    """Issue 38 item 11: SQS_EMULATOR_PROT was ignored without a word, and the server took 9324."""
    port = free_port()
    proc = _start({"SQS_EMULATOR_PROT": "9400", "SQS_EMULATOR_ZZZ": "1"}, "--port", str(port))
    try:
        lines = [proc.stdout.readline().strip()]
        while not lines[-1].startswith("SQS emulator listening"):
            lines.append(proc.stdout.readline().strip())
    finally:
        assert _stop(proc, signal.SIGTERM) == 0
    assert lines[:-1] == [
        "sqs-emulator: warning: SQS_EMULATOR_PROT is not a variable sqs-emulator reads "
        "(did you mean SQS_EMULATOR_PORT?)",
        "sqs-emulator: warning: SQS_EMULATOR_ZZZ is not a variable sqs-emulator reads "
        "(sqs-emulator --help names each variable)",
    ]


def test_version_and_the_sync_warning():
    proc = _start({}, "--version")
    assert proc.wait(timeout=10) == 0 and proc.stdout.read().startswith("sqs-emulator 0.")
    proc = _start({}, "--port", "0", "--sync", "always")
    try:
        assert "warning: --sync and --sync-interval-ms apply only with --data-dir" in proc.stdout.readline()
    finally:
        _stop(proc, signal.SIGTERM)


def test_binds_loopback_by_default():
    port = free_port()
    proc = _start({"SQS_EMULATOR_PORT": str(port)})
    try:
        assert "http://127.0.0.1:" in _banner(proc)[0]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open("/proc/net/tcp") as table:
                listening = [line for line in table.read().splitlines() if f":{port:04X} " in line]
            if listening:
                break
            time.sleep(0.05)
        # 0100007F is 127.0.0.1 in /proc/net/tcp's little-endian hex.
        assert listening and all(line.split()[1].startswith("0100007F:") for line in listening)
    finally:
        assert _stop(proc, signal.SIGTERM) == 0
