"""Byte-level wire fixtures: replay each stored transcript, compare the exact response text.

Each file under fixtures/wire/<protocol>/ was recorded by
scripts/record_fixtures.py (re-record with `python scripts/record_fixtures.py`).
The replay runs on a fresh app with the same manual clock, turns the id
placeholders of the stored requests back into this run's ids, normalizes the
live responses with the recorder's own Normalizer and compares status, pinned
headers and body as text: a change of key order, spacing, element order, XML
declaration or header-name casing fails here.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("record_fixtures", ROOT / "scripts" / "record_fixtures.py")
recorder = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("record_fixtures", recorder)  # dataclasses look their module up
_spec.loader.exec_module(recorder)

FILES = recorder.fixture_files()


def test_fixtures_exist():
    assert len(FILES) >= 2 * len(recorder.SCENARIOS), "run scripts/record_fixtures.py"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_wire_fixture(path):
    transcript = json.loads(path.read_text(encoding="utf-8"))
    assert transcript["clock_start"] == recorder.T0
    for label, stored, live in recorder.replay(transcript):
        where = f"{path.relative_to(ROOT)} {label}"
        assert live["status"] == stored["status"], where
        # Names compare case-sensitively (x-amzn-RequestId), their order is free.
        assert live["headers"] == stored["headers"], where
        assert live["body"] == stored["body"], where
