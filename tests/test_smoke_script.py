"""scripts/smoke.py, the smoke suite CI runs against the container image and the wheel
(.ci/image, .ci/release), run here against the command line on this checkout, so that
a change that breaks it is seen before the image is built."""

import shlex
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_smoke_suite_passes_against_a_started_emulator_and_its_restart(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = [sys.executable, "-m", "emulator", "--port", str(port), "--allowed-hosts", "sqs"]
    start += ["--data-dir", str(tmp_path / "data"), "--log-level", "warning"]
    smoke = [sys.executable, "scripts/smoke.py", "--url", f"http://127.0.0.1:{port}", "--allowed-host", "sqs"]
    done = subprocess.run(
        [*smoke, "--start", shlex.join(start), "--health", shlex.join([sys.executable, "-c", "pass"])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "smoke: 8 passed, 0 failed"
