"""The servers the compat tests start: this emulator, or moto's as the oracle,
each a subprocess on a free loopback port, run by the current-model interpreter
(SQS_COMPAT_SERVER_PYTHON, for the old-boto3 env) and stopped at the end.

With SQS_COMPAT_LOG_DIR set, emulators log every request (operation, protocol,
status, client) there; scripts/compat_table.py builds docs/reference/compatibility.md's table from them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)
LOG_DIR = os.environ.get("SQS_COMPAT_LOG_DIR")
START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, timeout: float = 10) -> int:
    """Terminate a subprocess, kill it if it does not exit; return its exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    return proc.returncode


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path

    def stop(self) -> int:
        return stop(self.process)


def start_emulator(clock: str, name: str = "emulator", *options: str, port: int | None = None) -> Server:
    log_level = "debug" if LOG_DIR else "warning"
    return _start(
        name,
        lambda port: [
            "-m",
            "emulator",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--clock",
            clock,
            "--log-level",
            log_level,
            *options,
        ],
        port=port,
    )


# How each WSGI server the docs name serves compat_tests/wsgi_app.py's `app` on a port.
WSGI_SERVERS = {
    "gunicorn": lambda port: ["-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "compat_tests.wsgi_app:app"],
    "waitress": lambda port: ["-m", "waitress", f"--listen=127.0.0.1:{port}", "compat_tests.wsgi_app:app"],
    "cheroot": lambda port: ["-m", "cheroot", "--bind", f"127.0.0.1:{port}", "compat_tests.wsgi_app:app"],
    "werkzeug": lambda port: ["-m", "compat_tests.wsgi_app", str(port)],
}


def start_wsgi(server: str, options_json: str) -> Server:
    """The emulator's WSGI app behind `server` (a key of WSGI_SERVERS), built with these Options."""
    return _start(server, WSGI_SERVERS[server], {"SQS_WSGI_TEST_OPTIONS": options_json})


def start_moto(name: str = "moto") -> Server:
    return _start(
        name,
        lambda port: ["-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        {"MOTO_ACCOUNT_ID": "000000000000"},
    )


def _start(name: str, arguments, env_extra: dict | None = None, port: int | None = None) -> Server:
    port = port or free_port()
    if LOG_DIR:
        os.makedirs(LOG_DIR, exist_ok=True)
    with tempfile.NamedTemporaryFile(prefix=f"sqs-{name}-", suffix=".log", dir=LOG_DIR, delete=False) as log:
        process = subprocess.Popen(
            [PYTHON, *arguments(port)],
            cwd=REPO_ROOT,
            env={**os.environ, **(env_extra or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    log_path = Path(log.name)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"{name} exited with {process.returncode}:\n{log_path.read_text(errors='replace')[-4000:]}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return Server(f"http://127.0.0.1:{port}", process, log_path)
        except OSError:
            time.sleep(0.05)
    stop(process)
    raise RuntimeError(
        f"{name} not listening on port {port} after {START_TIMEOUT}s:\n{log_path.read_text(errors='replace')[-4000:]}"
    )
