"""The journal: what the engine reports of its state transitions, for a store to keep.

The engine is the source of truth in memory; a store (emulator/store/) that
wants to survive restarts implements these methods and is handed to the
broker. Each call happens under the lock of the queue it names, so it must
only note the change (append a record) and return: the writing happens
elsewhere. Time-driven transitions that recovery can derive from stored
deadlines (a delay or visibility timeout that ended, a dedup window that
closed) are not reported.

This base class does nothing: it is the journal of a broker that keeps
nothing beyond its process.
"""


class Journal:
    def queue_saved(self, queue) -> None:
        """A queue was created, or its attributes, tags or purge time changed."""

    def queue_deleted(self, queue, deleted_at: float) -> None:
        """A queue was deleted at `deleted_at` (its name's re-create cooldown starts)."""

    def queue_emptied(self, queue) -> None:
        """Every message (and FIFO deduplication id) of a queue went at once: a purge."""

    def message_added(self, queue, message) -> None:
        """A message arrived (sent, dead-lettered or moved in)."""

    def message_changed(self, queue, message) -> None:
        """A message's delivery fields changed: received, or its visibility changed."""

    def message_removed(self, queue, message) -> None:
        """A message left the queue: deleted, expired, or moved out."""

    def dedup_added(self, queue, key, sent, expires_at: float) -> None:
        """A FIFO queue took a deduplication id: `sent` answers its duplicates until `expires_at`."""

    def task_saved(self, task) -> None:
        """A message move task started, moved messages or ended."""

    def reset(self) -> None:
        """Every queue, task and cooldown is gone (the admin reset)."""


NO_JOURNAL = Journal()
