"""The server's event source mappings: created, changed, deleted, listed, stopped.

Mappings live in memory: the config file's are made again at every start; those
made through the admin API or serve() end with the server.

As on AWS, a queue has at most one mapping to a function: a second one (made, or
changed to that target) is refused with Lambda's ResourceConflictException
(CreateEventSourceMapping, HTTP 409; its wording as AWS answered it in aws/chalice#2146
and getlift/lift#295); a mapping of the same queue to another function is made. The
same function is the same callable object or "package.module:function", the same
URL, or the same command line (targets.py, `identity`).
"""

import re
import threading
import time
import uuid

from emulator.engine.clock import Clock
from emulator.events import spec as specs
from emulator.events.invokers import INVOKERS
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

    def __repr__(self) -> str:
        return f"<Mapping {self.id} {self.queue.name} -> {self.spec.target.name}: {self.state}>"

    @property
    def function_name(self) -> str:
        return re.sub(r"[^A-Za-z0-9_-]+", "-", self.spec.target.name).strip("-")[:64] or "function"

    @property
    def function_arn(self) -> str:
        return f"arn:aws:lambda:{self.queue.region}:{self.queue.account}:function:{self.function_name}"

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


class MappingConflict(specs.MappingError):
    """The queue has a mapping to this function already (Lambda's ResourceConflictException)."""

    def __init__(self, existing: Mapping):
        super().__init__(
            "target",
            f'An event source mapping with SQS arn (" {existing.queue.arn} ") and function '
            f'(" {existing.function_name} ") already exists. Please update or delete the existing '
            f"mapping with UUID {existing.id}",
        )
        self.existing = existing

    def __str__(self) -> str:
        return self.problem  # AWS's sentence, without the field before it


class EventSources:
    """The mappings, and who may give code targets over HTTP: nobody, unless the operator
    started the server with --allow-code-targets, whose per-start `code_token` a request
    must then carry (emulator/server/admin/event_sources.py)."""

    def __init__(self, clock: Clock, code_token: str | None = None):
        self._clock = clock
        self._lock = threading.Lock()
        self._mappings: dict[str, Mapping] = {}
        self.code_token = code_token
        self.invokers = INVOKERS  # the process's pool of invocation threads, shared by every mapping

    def create(self, queue, fields: dict, remote: bool = False) -> Mapping:
        """A new mapping on `queue` from its fields (spec.py; `remote`: they came over HTTP);
        MappingError if one is bad, MappingConflict if the queue has a mapping to that function."""
        mapping = Mapping(queue, specs.parse(fields, queue, remote=remote))
        with self._lock:
            self._check_unique(mapping, mapping.spec)
            self._mappings[mapping.id] = mapping
        mapping.run(self._clock, mapping.spec)
        return mapping

    def update(self, mapping_id: str, fields: dict, remote: bool = False) -> Mapping:
        """Change the fields given; the counters carry on. KeyError for an unknown id."""
        mapping = self.get(mapping_id)
        spec = specs.parse(fields, mapping.queue, mapping.spec, remote)
        with self._lock:
            self._check_unique(mapping, spec)
        mapping.run(self._clock, spec)
        return mapping

    def _check_unique(self, mapping: Mapping, spec: specs.MappingSpec) -> None:
        for other in self._mappings.values():
            same_function = other.spec.target.identity == spec.target.identity
            if other is not mapping and other.queue is mapping.queue and same_function:
                raise MappingConflict(other)

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
