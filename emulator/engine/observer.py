"""What the broker tells the program it runs in about the messages it holds.

The engine touches no process-wide state (tests/test_layout.py checks it): the
garbage collector's settings, signals, the environment and logging belong to
the program. A program that tunes the process to the engine's load (the
server's garbage-collector policy, emulator/server/collector.py) hands the
broker an observer and does what it decides there.

Each call comes from the thread that did the work, with no queue's lock held,
and should return at once.
"""


class BrokerObserver:
    """The broker's events a program may act on; this base class ignores them all."""

    def messages_sent(self, count: int) -> None:
        """A queue took `count` new messages (one SendMessage or SendMessageBatch)."""

    def queues_gone(self) -> None:
        """Queues were deleted, or the broker was reset: what they held is garbage now."""
