"""Byte-level wire fixtures: replay each stored transcript, compare the exact response text.

Each file under fixtures/wire/<protocol>/ was recorded by
scripts/record_fixtures.py (re-record with `python scripts/record_fixtures.py`).
The replay runs on a fresh app with the same manual clock, turns the id
placeholders of the stored requests back into this run's ids, normalizes the
live responses with the recorder's own Normalizer (recorded.py) and compares
status, pinned headers and body as text: a change of key order, spacing,
element order, XML declaration or header-name casing fails here.
"""

import json

import pytest

from .recorded import FIXTURES, PROTOCOLS, ROOT, T0, fixture_files, replay

FILES = fixture_files()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_fixtures_exist(protocol):
    recorded = [json.loads(p.read_text(encoding="utf-8")) for p in FILES if p.parent == FIXTURES / protocol]
    assert recorded, f"no fixtures for {protocol}: run scripts/record_fixtures.py"
    assert {t["protocol"] for t in recorded} == {protocol}


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_wire_fixture(path):
    transcript = json.loads(path.read_text(encoding="utf-8"))
    assert transcript["scenario"] == path.stem
    assert transcript["clock_start"] == T0
    for label, stored, live in replay(transcript):
        where = f"{path.relative_to(ROOT)} {label}"
        assert live["status"] == stored["status"], where
        # Names compare case-sensitively (x-amzn-RequestId), their order is free.
        assert live["headers"] == stored["headers"], where
        assert live["body"] == stored["body"], where
