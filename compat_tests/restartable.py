"""An emulator process on a data dir (or none), started, stopped with a signal and started
again on the same dir: the persistence tests', and the start-up refusals other tests check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

from compat_tests.helpers import JSON_BODY, sqs_client
from compat_tests.servers import REPO_ROOT, Server, free_port, start_emulator

PYTHON = os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable)


class Emulator:
    """One emulator process at a time on `data_dir`; restart() keeps the dir and the port
    (queue URLs carry it)."""

    def __init__(self, data_dir, *options: str, clock: str = "manual"):
        self.data_dir = str(data_dir)
        self.options = options
        self.clock = clock
        self.server: Server | None = None
        self.port = free_port()

    def start(self, *extra: str) -> Emulator:
        self.server = start_emulator(
            self.clock, "persistent", "--data-dir", self.data_dir, *self.options, *extra, port=self.port
        )
        self.client = sqs_client(self.server.url)
        return self

    def stop(self) -> int:
        """SIGTERM, as docker stop and systemd send: a clean shutdown."""
        return self.server.stop()

    def kill(self) -> None:
        """SIGKILL: no chance to write anything more."""
        self.server.process.kill()
        self.server.process.wait(timeout=10)

    def restart(self) -> Emulator:
        assert self.stop() in (0, -15, 143)
        return self.start()

    def admin(self, path: str) -> dict:
        request = urllib.request.Request(self.server.url + path, data=b"", method="POST", headers=JSON_BODY)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def advance(self, seconds: float) -> float:
        return self.admin(f"/_emulator/clock/advance?seconds={seconds}")["now"]

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        if self.server and self.server.process.poll() is None:
            self.server.stop()


def refused_start(*options: str) -> subprocess.CompletedProcess:
    """Run an emulator that is expected to refuse to start; its exit and output."""
    return subprocess.run(
        [PYTHON, "-m", "emulator", "--port", "0", *options],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
