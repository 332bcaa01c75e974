"""Fixtures the server tests share (pytest finds them here)."""

from compat_tests.event_sources import mappings  # noqa: F401 (a fixture: the event-source tests' mappings)
