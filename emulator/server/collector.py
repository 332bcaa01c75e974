"""The server's garbage-collector policy: full collections kept off the queued messages.

Queued messages are long-lived objects. CPython runs a full collection whenever
the objects that survived the younger ones grew by a quarter, and a full
collection walks every tracked object: at a million messages that is the
request that triggered it waiting the better part of a second. Whatever
survived a full collection is long-lived, so it is frozen (gc.freeze: kept
where no collection looks) and the next full collection walks only what came
since; a large load is frozen as it goes, every FREEZE_EVERY messages sent, so
that stays small too. A store's recovery runs with collections paused, and
what start-up loaded (modules, the service model, the queues a store or a
config file put back) is frozen once it is done.

A frozen object is still freed when its last reference goes; only a reference
cycle among frozen objects waits for gc.unfreeze(). A deleted queue is one (its
messages are dropped at once, the queue object waits), so deleting a queue
thaws everything and the next full collection takes it, once walking all.

The collector is the process's, so this is the program's choice: the command
line makes it (Options.tune_gc, on by default); serve() and the pytest plugin
leave the user's process alone unless asked (serve(tune_gc=True)). The engine
imports no gc: the broker tells this policy what it did (engine/observer.py).
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from emulator.engine.observer import BrokerObserver

FREEZE_EVERY = 25_000  # messages sent between freezes


class CollectorPolicy(BrokerObserver):
    def __init__(self, freeze_every: int = FREEZE_EVERY):
        self.freeze_every = freeze_every
        self._sent = 0  # since the last freeze; unlocked: a lost count only moves a freeze a little

    def start(self) -> None:
        """Freeze what start-up loaded, and from now on whatever survives a full collection."""
        if self._after_collection not in gc.callbacks:
            gc.callbacks.append(self._after_collection)
        self.freeze()

    def stop(self) -> None:
        """Leave the collector as it was found: no callback, nothing frozen."""
        if self._after_collection in gc.callbacks:
            gc.callbacks.remove(self._after_collection)
        gc.unfreeze()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No collection while the block runs (a store's recovery: it only creates objects,
        which cyclic collections would rescan again and again)."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if collecting:
                gc.enable()

    def freeze(self) -> None:
        """Everything alive now is long-lived: out of the collector's walks."""
        self._sent = 0
        gc.freeze()

    def messages_sent(self, count: int) -> None:
        self._sent += count
        if self._sent >= self.freeze_every:
            self.freeze()

    def queues_gone(self) -> None:
        """Let the collector see everything again, the deleted queues' cycles included."""
        gc.unfreeze()

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            self.freeze()
