"""What a queue is set to: its attributes as AWS shows them, and its tags.

A part of Queue (queue.py), which holds one as `config` and changes it under
its lock, then reports the change to the journal. It needs nothing of the
queue: the typed settings the queue acts on (attributes.Settings) are what
set() returns, and the queue keeps them.
"""

from operator import attrgetter

from emulator.engine import attributes as queue_attributes


def setting(name: str) -> property:
    """A read-only attribute of Queue that reads its typed setting `name` (attributes.Settings)."""
    return property(attrgetter(f"settings.{name}"), doc=f"settings.{name}")


class QueueConfig:
    def __init__(self, fifo: bool):
        self.attributes = queue_attributes.defaults(fifo)
        self.tags: dict[str, str] = {}

    def set(self, attributes: dict[str, str]) -> queue_attributes.Settings:
        """Apply validated attributes; returns the typed settings read from all of them."""
        queue_attributes.apply(self.attributes, attributes)
        return queue_attributes.Settings.of(self.attributes)

    def tag(self, tags: dict[str, str]) -> None:
        self.tags.update(tags)

    def untag(self, keys) -> None:
        for key in keys:
            self.tags.pop(key, None)

    def differing_attribute(self, attributes: dict[str, str]) -> str | None:
        """The first given attribute whose value differs from this queue's, for CreateQueue."""
        for name, value in attributes.items():
            current = self.attributes.get(name, queue_attributes.SETTINGS[name].default)
            if current != queue_attributes.canonical(name, value):
                return name
        return None
