"""Every shell and Python block of the README and the guides, run as pasted against a
running emulator, so that an example that fails as pasted fails CI.

Each page gets an emulator of its own (`--clock manual`, as the examples that move
time say to start it); its blocks run in order, so a block may use a queue an earlier
one made. `http://127.0.0.1:9324` in a block is this server's address, and the
environment carries AWS_ENDPOINT_URL_SQS and test credentials, as the guides tell a
reader to set them. In a shell block, `curl` fails on an HTTP error (a 415 for a
missing Content-Type, a 404 for a queue never made). A comment just before a block
says how else to take it (docs/contributing.md, "The documentation"):

    <!-- illustrative: why -->           not run: it installs, needs Docker, starts a server in the foreground
    <!-- pytest -->                      a test file, run by pytest with the plugin
    <!-- pytest: INI LINE -->            the same, with that line in pytest.ini
    <!-- file: NAME -->                  written as NAME in the page's folder, for the blocks after it

Blocks in other languages (TOML, HOCON, YAML, text output) are not run.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from compat_tests.conftest import TARGET
from compat_tests.servers import PYTHON, REPO_ROOT, start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="runs the emulator's own documentation")

RUN = {"python": "python", "py": "python", "sh": "shell", "bash": "shell", "shell": "shell", "console": "shell"}
# The internals describe the code; their blocks are not instructions to a user.
INTERNALS = {"architecture.md", "sqs-reference.md", "shared-store.md", "server.md"}
DIRECTIVE = re.compile(r"<!--\s*(illustrative|pytest|file)(?::\s*(.*?))?\s*-->")
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
# curl fails on an HTTP error unless the block chose how itself (-f, --fail...).
PRELUDE = """curl() {
    case " $* " in
        *" -f"* | *" -sf"* | *" --fail"*) command curl "$@" ;;
        *) command curl --fail-with-body --silent --show-error "$@" ;;
    esac
}
"""
TIMEOUT = 120  # seconds for one block: an example that hangs fails


def pages() -> list[Path]:
    docs = REPO_ROOT / "docs"
    found = [REPO_ROOT / "README.md", *sorted(docs.glob("*.md")), *sorted((docs / "guides").glob("*.md"))]
    return [page for page in found if page.name not in INTERNALS]


@dataclass
class Block:
    page: Path
    line: int
    language: str
    text: str
    directive: str | None
    argument: str | None

    def where(self) -> str:
        return f"{self.page.relative_to(REPO_ROOT)}:{self.line} ({self.language})"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, language = opening.group(1), opening.group(2).lower()
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        before = next((line for line in reversed(lines[:index]) if line.strip()), "")
        directive = DIRECTIVE.fullmatch(before.strip())
        found.append(
            Block(
                page,
                index + 1,
                language,
                "\n".join(lines[index + 1 : end]) + "\n",
                directive.group(1) if directive else None,
                directive.group(2) if directive else None,
            )
        )
        index = end + 1
    return found


def _environment(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SQS_EMULATOR_"))}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)  # the pytest blocks use the plugin
    env["PATH"] = os.pathsep.join([str(Path(PYTHON).parent), env.get("PATH", "")])  # sqs-emulator
    env.update(
        AWS_ENDPOINT_URL_SQS=url,
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        AWS_DEFAULT_REGION="us-east-1",
    )
    return env


def _run(block: Block, text: str, folder: Path, env: dict[str, str]) -> None:
    if block.directive == "file":
        (folder / Path(block.argument or "").name).write_text(text)
        return
    if block.directive == "pytest":
        (folder / "pytest.ini").write_text(f"[pytest]\n{block.argument or ''}\n")
        test_file = folder / f"test_example_{block.line}.py"
        test_file.write_text(text)
        # The plugin points the environment at its own emulator, from the shell's as a user's is.
        plain = {k: v for k, v in env.items() if k != "AWS_ENDPOINT_URL_SQS"}
        command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file.name]
        done = subprocess.run(command, cwd=folder, env=plain, capture_output=True, text=True, timeout=TIMEOUT)
        test_file.unlink()
    elif RUN[block.language] == "python":
        done = subprocess.run(
            [PYTHON, "-"], input=text, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    else:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", PRELUDE + text],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, f"{block.where()} fails as pasted:\n{text}\n--- output:\n{done.stdout}{done.stderr}"


def test_every_block_not_run_says_why():
    unexplained = [
        block.where()
        for page in pages()
        for block in blocks(page)
        if block.directive == "illustrative" and not block.argument
    ]
    assert not unexplained, f"say why a block is illustrative (<!-- illustrative: why -->): {unexplained}"


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(REPO_ROOT)))
def test_the_pages_examples_run_as_pasted(page, tmp_path):
    runnable = [
        block
        for block in blocks(page)
        if block.directive != "illustrative" and (block.language in RUN or block.directive in ("pytest", "file"))
    ]
    if not runnable:
        return  # a page with nothing to run (its blocks are illustrative or not code)
    server = start_emulator("manual", "docs-examples")
    try:
        host = server.url.removeprefix("http://")
        env = _environment(server.url)
        for block in runnable:
            text = block.text.replace("127.0.0.1:9324", host).replace("localhost:9324", host)
            _run(block, text, tmp_path, env)
    finally:
        server.stop()
