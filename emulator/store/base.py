"""What every store is: the broker's journal, recovery, durability and release.

A store is the broker's journal (emulator/engine/journal.py): the engine
reports each state transition to it, under the queue's lock, and the store
only notes the change; writing happens on its own thread. On start a store
puts back what it kept (recover), before the server takes requests.

`MEMORY` keeps nothing: the emulator without --data-dir, at no cost on any
path.
"""

from collections.abc import Callable

from emulator.engine.journal import Journal

SYNC_MODES = ("always", "interval", "off")


class StoreError(Exception):
    """The store cannot be used; the message says which file and what to do."""


class Store(Journal):
    clock_time: float | None = None  # the manual clock's time when the store was last written
    replies_wait = False  # --sync always: a reply waits for its change's commit (when_durable)

    def recover(self, broker) -> None:
        """Put every kept queue, message, dedup id, task and cooldown back into `broker`
        (whose journal this store is), then start writing."""

    def when_durable(self, callback: Callable[[Exception | None], None]) -> bool:
        """When the sync policy says a reply must wait (--sync always), have `callback(error)` called once every
        change reported so far is committed (error None) or failed to be (a StoreError),
        from the store's writing thread, and return True; return False, without calling
        it, when nothing needs waiting for."""
        return False

    def close(self) -> None:
        """Write what is pending and release the data directory."""

    def describe(self) -> dict | None:
        """What the health route shows of the store (None: in memory)."""
        return None


MEMORY = Store()
