"""What the event-source tests share: mappings made through the admin API and deleted after
the test, and a wait for a mapping's counters."""

from __future__ import annotations

import time

import pytest

from compat_tests.helpers import admin_call as call

REAL_WAIT = 20.0  # seconds a poller in the server process gets to act


def wait_for(endpoint, mapping_id, predicate, timeout=REAL_WAIT) -> dict:
    """The mapping once predicate(its counters) holds."""
    deadline = time.monotonic() + timeout
    while True:
        status, mapping = call(endpoint, "GET", f"/_emulator/event-sources/{mapping_id}")
        assert status == 200, mapping
        if predicate(mapping["counters"]):
            return mapping
        assert time.monotonic() < deadline, f"no match after {timeout} s: {mapping}"
        time.sleep(0.02)


@pytest.fixture
def mappings(endpoint):
    """create(body) -> the new mapping; every mapping made is deleted after the test."""
    made = []

    def create(body):
        status, mapping = call(endpoint, "POST", "/_emulator/event-sources", body)
        assert status == 201, mapping
        made.append(mapping["id"])
        return mapping

    yield create
    for mapping_id in made:
        call(endpoint, "DELETE", f"/_emulator/event-sources/{mapping_id}")
