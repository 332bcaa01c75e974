"""Fault injection: the per-queue policy the engine asks before it acts.

SQS promises at-least-once delivery; exactly-once is the consumer's job. These
faults let a user prove their consumer copes, reproducibly (seeded):

* duplicate delivery: a received message becomes receivable again at once,
  while its first consumer still holds it, so a second consumer gets it under
  a new receipt handle (what happens on SQS when a visibility timeout is too short);
* lost delete: DeleteMessage answers success, the message stays and comes back
  when its visibility timeout ends;
* delayed visibility: a sent message becomes visible that many seconds late;
* loose (standard queues only): best-effort order and short polls that see a
  sample, as AWS documents them (loose.py).

Off by default: a queue without a policy pays one attribute test per call.
"""

import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from emulator import limits
from emulator.engine.loose import loosened
from emulator.engine.message import Message


@dataclass
class FaultPolicy:
    duplicate_delivery: float = 0.0  # probability per delivered message
    lost_delete: float = 0.0  # probability per delete
    delayed_visibility_seconds: float = 0.0
    loose: bool = False
    seed: int | None = None
    _rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("duplicate_delivery", "lost_delete"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a probability, from 0 to 1")
        if not 0.0 <= self.delayed_visibility_seconds <= limits.MAX_DELAY_SECONDS:
            raise ValueError(f"delayed_visibility_seconds is from 0 to {limits.MAX_DELAY_SECONDS}")
        if not isinstance(self.loose, bool):
            raise ValueError("loose is true or false")
        self._rng = random.Random(self.seed)

    def duplicate(self) -> bool:
        return self.duplicate_delivery > 0 and self._rng.random() < self.duplicate_delivery

    def lose_delete(self) -> bool:
        return self.lost_delete > 0 and self._rng.random() < self.lost_delete

    def loosen(
        self, picks: Generator[Message, None, None], room: int, short_poll: bool, put_back: Callable[[Message], None]
    ) -> Generator[Message, None, None]:
        """A loose receive's picks (loose.py), from this policy's seeded sequence."""
        return loosened(picks, room, short_poll, self._rng, put_back)

    def as_dict(self) -> dict:
        return {
            "duplicate_delivery": self.duplicate_delivery,
            "lost_delete": self.lost_delete,
            "delayed_visibility_seconds": self.delayed_visibility_seconds,
            "loose": self.loose,
            "seed": self.seed,
        }
