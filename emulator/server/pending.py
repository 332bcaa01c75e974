"""An SQS answer that is not ready yet, as the app's sans-IO door (app.py) hands it back
to the entry that waits without blocking (emulator/server/http/). The entry gets what
it waits for, then calls `resume(value)` for the answer (or another Pending):

- `wait`: messages for a long poll (api.Wait); value: the operation's output;
- `durable`: the store's commit under --sync always (Store.when_durable); value:
  the commit's error, or None;
- neither: slow work (a purge, a queue's deletion); `resume(None)` runs on a
  worker thread, off the event loop.
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
    durable: Store | None = None
