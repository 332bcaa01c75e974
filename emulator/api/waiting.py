"""A ReceiveMessage that has to wait, handed back to its caller, which waits (the
server's drivers, emulator/server/drivers.py): `attempt(last)` answers once a
message came (the queue's `polls.watch()` says when to try again), or with
whatever there is when `last` (its deadline came); None means: wait on."""

from collections.abc import Callable
from typing import NamedTuple

from emulator.engine.clock import Deadline
from emulator.engine.queue import Queue
from emulator.engine.waits import Waits


class Wait(NamedTuple):
    queue: Queue
    deadline: Deadline  # the wait's end on the server's clock
    attempt: Callable[[bool], dict | None]
    places: Waits  # the cap on waiting polls (--max-waits): enter() before waiting, leave() after
