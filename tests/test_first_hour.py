"""What a new user runs first, as the README and the Docker guide give it (issue 38 items 8
and 10): the README's two commands share one install, and the podman flags that CI needs
to start the image are where a user runs it."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _two_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("pip install")]


def test_the_readme_two_commands_begin_with_the_same_editable_install():
    # Before: `pip install . && sqs-emulator` then `pip install -e ".[test]"` in the same venv
    # replaced the files under the running server (its dashboard lost its page).
    commands = _two_commands()
    installs = {command.split(" && ")[0] for command in commands}
    assert len(commands) == 2 and installs == {'pip install -e ".[test]"'}, commands


def test_ci_runs_the_readme_test_command_not_the_server():
    # .ci/run takes the test command out of the README with this pipeline; the server's would never end.
    pipeline = re.search(r"readme_tests=\$\((.+)\)\n", (ROOT / ".ci" / "run").read_text(encoding="utf-8")).group(1)
    found = subprocess.run(["bash", "-c", pipeline], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == 'pip install -e ".[test]" && pytest tests'


def test_the_podman_flags_ci_needs_are_where_a_user_runs_the_image():
    # runc refuses podman's default of 1,048,576 open files on a host with a lower hard limit,
    # before the image's first process: no image can start without these flags there.
    flags = re.search(r"RUN_FLAGS=\(([^)]*)\)", (ROOT / ".ci" / "image").read_text(encoding="utf-8")).group(1)
    ulimits = re.findall(r"--ulimit (\w+)=(\d+):\2\b", flags)  # soft and hard alike
    assert dict(ulimits) == {"nofile": "20000", "nproc": "4096"}
    shown = " ".join(f"--ulimit {name}={value}:{value}" for name, value in ulimits)
    guide = (ROOT / "docs" / "guides" / "docker.md").read_text(encoding="utf-8")
    assert f"podman run --rm -p 127.0.0.1:9324:9324 {shown} sqs-emulator" in guide
    assert f"Under podman add `{shown}`" in (ROOT / "README.md").read_text(encoding="utf-8")
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert "".join(f"\n      {name}: {value}" for name, value in ulimits) in compose
