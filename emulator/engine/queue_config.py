"""What a queue is set to: its attributes as AWS shows them, the typed settings
read from them (attributes.Settings), and its tags.

The base of Queue (queue.py), which adds the messages. A change takes the
queue's one lock, as every operation on the queue does, and is reported to
the journal so a store keeps it.
"""

import threading

from emulator.engine import attributes as queue_attributes
from emulator.engine.clock import Clock
from emulator.engine.journal import Journal


def setting(name: str) -> property:
    """A read-only attribute that reads the typed setting `name` (attributes.Settings)."""
    return property(lambda queue: getattr(queue.settings, name), doc=f"settings.{name}")


class QueueConfig:
    fifo = False

    delay_seconds = setting("delay_seconds")
    visibility_timeout = setting("visibility_timeout")
    retention_period = setting("retention_period")
    maximum_message_size = setting("maximum_message_size")
    receive_wait_seconds = setting("receive_wait_seconds")
    redrive = setting("redrive")
    redrive_allow = setting("redrive_allow")
    # FIFO only (False on a standard queue, as in Settings); here so that code holding a Queue may ask.
    content_based_deduplication = setting("content_based_deduplication")
    dedup_scope: str | None = None  # FIFO: DeduplicationScope as created (fifo.py)

    settings: queue_attributes.Settings

    def __init__(self, account: str, region: str, name: str, clock: Clock, journal: Journal):
        self.account = account
        self.region = region
        self.name = name
        self.arn = f"arn:aws:sqs:{region}:{account}:{name}"
        self._clock = clock
        self._journal = journal
        self._lock = threading.Lock()  # the queue's one lock: its messages' too
        self.created_at = self.modified_at = int(clock.now())
        self.attributes = queue_attributes.defaults(self.fifo)
        self.tags: dict[str, str] = {}

    def _set(self, attributes: dict[str, str]) -> None:
        queue_attributes.apply(self.attributes, attributes)
        self.settings = queue_attributes.Settings.of(self.attributes)
        self._settings_changed()

    def _settings_changed(self) -> None:
        """What the settings steer beyond themselves (the queue: retention's deadline)."""

    def set_attributes(self, attributes: dict[str, str]) -> None:
        with self._lock:
            self._set(attributes)
            self.modified_at = int(self._clock.now())
            self._journal.queue_saved(self)

    def tag(self, tags: dict[str, str]) -> None:
        with self._lock:
            self.tags.update(tags)
            self._journal.queue_saved(self)

    def untag(self, keys) -> None:
        with self._lock:
            for key in keys:
                self.tags.pop(key, None)
            self._journal.queue_saved(self)

    def differing_attribute(self, attributes: dict[str, str]) -> str | None:
        """The first given attribute whose value differs from this queue's, for CreateQueue."""
        for name, value in attributes.items():
            current = self.attributes.get(name, queue_attributes.SETTINGS[name].default)
            if current != queue_attributes.canonical(name, value):
                return name
        return None
