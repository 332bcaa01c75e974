"""The server's event source mappings: created, changed, deleted, listed, stopped.

Mappings live in memory: the config file's are made again at every start; those
made through the admin API or serve() end with the server.
"""

import re
import threading
import time
import uuid

from emulator.engine.clock import Clock
from emulator.events import spec as specs
from emulator.events.poller import Poller, Stats


class Mapping:
    def __init__(self, queue, spec: specs.MappingSpec):
        self.id = str(uuid.uuid4())  # Lambda's mappings are named by a UUID too
        self.queue = queue
        self.spec = spec
        self.stats = Stats()
        self.created_at = time.time()
        self._poller: Poller | None = None
        self._running = threading.Lock()  # one change of poller at a time

    @property
    def function_arn(self) -> str:
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", self.spec.target.name).strip("-")[:64] or "function"
        return f"arn:aws:lambda:{self.queue.region}:{self.queue.account}:function:{name}"

    @property
    def state(self) -> str:
        if self.queue.deleted:
            return "queue deleted"
        if self._poller is not None and self._poller.ended:
            return self._poller.ended
        return "enabled" if self.spec.enabled else "disabled"

    def run(self, clock: Clock, spec: specs.MappingSpec) -> None:
        """Poll with `spec` from now on (stopping the poller of the settings before)."""
        with self._running:
            self._stop()
            self.spec = spec
            if spec.enabled:
                self._poller = Poller(self.id, self.queue, clock, spec, self.stats, self.function_arn)
                self._poller.start()

    def stop(self) -> None:
        with self._running:
            self._stop()

    def _stop(self) -> None:
        if self._poller is not None:
            self._poller.stop()
            self._poller = None

    def describe(self) -> dict:
        return {
            "id": self.id,
            "queue_arn": self.queue.arn,
            "queue_name": self.queue.name,
            "account": self.queue.account,
            "region": self.queue.region,
            "function_arn": self.function_arn,
            **self.spec.as_dict(),
            "state": self.state,
            "created_at": self.created_at,
            "counters": self.stats.as_dict(),
        }


class EventSources:
    def __init__(self, clock: Clock):
        self._clock = clock
        self._lock = threading.Lock()
        self._mappings: dict[str, Mapping] = {}

    def create(self, queue, fields: dict) -> Mapping:
        """A new mapping on `queue` from its fields (spec.py); MappingError if one is bad."""
        mapping = Mapping(queue, specs.parse(fields, queue))
        with self._lock:
            self._mappings[mapping.id] = mapping
        mapping.run(self._clock, mapping.spec)
        return mapping

    def update(self, mapping_id: str, fields: dict) -> Mapping:
        """Change the fields given; the counters carry on. KeyError for an unknown id."""
        mapping = self.get(mapping_id)
        mapping.run(self._clock, specs.parse(fields, mapping.queue, mapping.spec))
        return mapping

    def delete(self, mapping_id: str) -> Mapping:
        with self._lock:
            mapping = self._mappings.pop(mapping_id)
        mapping.stop()
        return mapping

    def get(self, mapping_id: str) -> Mapping:
        with self._lock:
            return self._mappings[mapping_id]

    def all(self) -> list[Mapping]:
        with self._lock:
            return sorted(self._mappings.values(), key=lambda mapping: mapping.created_at)

    def on_queue(self, queue) -> list[Mapping]:
        return [mapping for mapping in self.all() if mapping.queue is queue]

    def clear(self) -> None:
        """Stop and forget every mapping (the admin reset; closing the server)."""
        with self._lock:
            mappings = list(self._mappings.values())
            self._mappings.clear()
        for mapping in mappings:
            mapping.stop()
