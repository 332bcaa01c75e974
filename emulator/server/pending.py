"""An SQS answer that is not ready yet, as `EmulatorApp.answer()` (app.py) hands it back.
A driver (drivers.py: on the event loop, or on the calling thread) gets what it waits
for, then calls `resume(value)` for the answer (or another Pending):

- `wait`: a long poll's messages (api.Wait: its queue's wake-ups, its deadline, its
  place under --max-waits); value: the operation's output, or the error its last
  attempt raised;
- `commit`: the store's commit under --sync always (Store.when_durable); value:
  the commit's error, or None;
- neither: slow work (a purge, a queue's deletion); `resume(None)` runs it, off the
  event loop (on a worker thread, or the calling one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from emulator.api import Wait
from emulator.protocol import Answer
from emulator.store import Store


class Pending(NamedTuple):
    resume: Callable[[Any], Answer | Pending]
    wait: Wait | None = None
    commit: Store | None = None
