"""Stores: what keeps the engine's state beyond the process.

base.py     the interface (Store), the no-op MEMORY store, StoreError, SYNC_MODES
sqlite.py   SqliteStore: everything under --data-dir in one SQLite file, which
            opening.py opens, rows.py (its SQL and change records) and codec.py
            (values to columns and back) encode, recovery.py reads back and
            writer.py writes
"""

from emulator.store.base import MEMORY, SYNC_MODES, Store, StoreError
from emulator.store.sqlite import SqliteStore

__all__ = ["MEMORY", "SYNC_MODES", "SqliteStore", "Store", "StoreError", "open_store"]


def open_store(data_dir: str | None, sync: str = "interval", interval_ms: int = 100) -> Store:
    if data_dir is None:
        return MEMORY
    return SqliteStore(data_dir, sync, interval_ms)
