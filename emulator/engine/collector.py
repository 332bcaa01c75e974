"""The cyclic garbage collector kept off the queued messages.

Queued messages are long-lived objects. CPython runs a full collection whenever
the objects that survived the younger ones grew by a quarter, and a full
collection walks every tracked object: at a million messages that is the
request that triggered it waiting the better part of a second. Whatever
survived a full collection is long-lived, so it is frozen (gc.freeze: kept
where no collection looks) and the next full collection walks only what came
since; a large load is frozen as it goes, every FREEZE_EVERY messages taken, so
that stays small too.

A frozen object is still freed when its last reference goes; only a reference
cycle among frozen objects waits for gc.unfreeze(). A deleted queue is one (its
messages are dropped at once, the queue object waits), so deleting a queue
thaws everything and the next full collection takes it, once walking all.
"""

import gc
from typing import Any

FREEZE_EVERY = 25_000  # messages sent between freezes

_taken = 0  # since the last freeze; unlocked: a lost count only moves a freeze a little


def install() -> None:
    """Freeze after every full collection (once per process, whatever the number of brokers)."""
    if _after_collection not in gc.callbacks:
        gc.callbacks.append(_after_collection)


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info["generation"] == 2:
        freeze()


def took(messages: int) -> None:
    """A queue took this many messages."""
    global _taken
    _taken += messages
    if _taken >= FREEZE_EVERY:
        freeze()


def freeze() -> None:
    """Everything alive now is long-lived (after a large load or a recovery): out of the collector's walks."""
    global _taken
    _taken = 0
    gc.freeze()


def thaw() -> None:
    """Queues went away: let the collector see everything again, their cycles included."""
    gc.unfreeze()
