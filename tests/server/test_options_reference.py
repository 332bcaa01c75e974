"""docs/reference/options.md is generated from the options' table (scripts/options_reference.py):
an option added, renamed or re-worded without regenerating the page fails here."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_committed_options_page_is_what_the_generator_writes():
    done = subprocess.run(
        [sys.executable, "scripts/options_reference.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{done.stdout}{done.stderr}: run python scripts/options_reference.py"


def test_the_page_names_every_option_with_its_variable():
    from emulator.server import options

    text = (ROOT / "docs" / "reference" / "options.md").read_text(encoding="utf-8")
    for option in options.TABLE:
        assert f"| `{option.flag}` | `{option.env}` |" in text
