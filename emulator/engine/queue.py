"""A queue: what SQS's operations on one queue do, under the queue's one lock.

One class, as CPython's queue.Queue is, whose parts are members made with what
they need: what it is set to (`config`, queue_config.py) and its message states
(states.py), which keep the arrival order and retention (retention.py), the
deadlines (deadlines.py) and the ready order a receive picks from
(ready_order.py). Time-driven transitions are callbacks on the shared
scheduler; every transition to visible wakes one long poll (wakeups.py).
Standard and FIFO queues (standard.py, fifo.py) fill in its hooks: _new_order()
(required), _receipt_policy(), _accept(), _stamp(), _dead_letter_copy(),
_drop_all(), and for a receive's ReceiveRequestAttemptId _answered() and
_receive_ready(). What a receive takes is taking.py's, what a receipt handle
does handles.py's; a long poll waits through the queue's `polls` (long_polls.py),
holding no thread. A move into another queue is under both queues' locks
(transfers.py).
"""

import threading
from collections.abc import Callable, Iterable
from functools import partial
from operator import attrgetter
from typing import Any

from emulator.engine import attributes as queue_attributes
from emulator.engine import handles, history, receipts, taking, transfers
from emulator.engine.clock import Clock
from emulator.engine.faults import FaultPolicy
from emulator.engine.journal import NO_JOURNAL, Journal
from emulator.engine.long_polls import LongPolls
from emulator.engine.message import DELAYED, INFLIGHT, VISIBLE, Delivery, Message, Sent, State
from emulator.engine.queue_config import QueueConfig, setting
from emulator.engine.scheduler import Scheduler
from emulator.engine.states import MessageStates
from emulator.engine.stats import QueueStats
from emulator.engine.transfers import Transfer
from emulator.engine.wakeups import Wakeups
from emulator.errors import SqsError


class Queue:
    kind = ""
    fifo = False
    dedup_scope: str | None = None  # FIFO: DeduplicationScope as created (fifo.py)

    delay_seconds = setting("delay_seconds")
    visibility_timeout = setting("visibility_timeout")
    retention_period = setting("retention_period")
    maximum_message_size = setting("maximum_message_size")
    receive_wait_seconds = setting("receive_wait_seconds")
    redrive = setting("redrive")
    redrive_allow = setting("redrive_allow")
    # FIFO only (False on a standard queue, as in Settings); here so that code holding a Queue may ask.
    content_based_deduplication = setting("content_based_deduplication")
    attributes = property(attrgetter("config.attributes"), doc="config.attributes: as AWS shows them")
    tags = property(attrgetter("config.tags"), doc="config.tags")

    settings: queue_attributes.Settings  # read from the attributes each time they change (_configure)

    def __init__(
        self,
        account: str,
        region: str,
        name: str,
        attributes: dict[str, str],
        clock: Clock,
        scheduler: Scheduler,
        find_queue: Callable[[str], "Queue | None"] = lambda arn: None,
        receipt_mode: str = "aws",
        journal: Journal = NO_JOURNAL,
        on_sent: Callable[[int], None] | None = None,
        histories: int = 0,
    ):
        self.account = account
        self.region = region
        self.name = name
        self.arn = f"arn:aws:sqs:{region}:{account}:{name}"
        self.created_at = self.modified_at = int(clock.now())
        self._clock = clock
        self._journal = journal
        self._lock = threading.Lock()  # the queue's one lock: its messages' too
        self._scheduler = scheduler
        self._find_queue = find_queue  # by ARN: dead-letter targets
        self._on_sent = on_sent  # told how many messages each send took (observer.py)
        self._receipts = self._receipt_policy(receipt_mode)
        self._message_visible = Wakeups()
        self.polls = LongPolls(self._lock, self._message_visible, self._may_end, self._receive_ready)
        self.stats = QueueStats()
        self._states = MessageStates(
            self, self._new_order, clock, scheduler, self._lock, self._message_visible, journal, self.stats
        )
        self._messages = self._states.arrivals  # by id, in arrival order
        self.deleted = False
        self.purged_at: float | None = None
        self.faults: FaultPolicy | None = None
        # Every message's story (history.py), at most `histories` of them; None: none kept.
        self.history = history.MessageHistories(self._lock, clock, histories) if histories else None
        self.config = QueueConfig(self.fifo)
        self._configure(attributes)

    def __repr__(self) -> str:
        # No lock and no walk: a debugger may stop while a thread holds the lock.
        counts = self._states.count
        return (
            f"<{type(self).__name__} {self.name} {self.account}/{self.region}"
            f"{' deleted' if self.deleted else ''}: {counts(VISIBLE)} visible, "
            f"{counts(INFLIGHT)} in flight, {counts(DELAYED)} delayed>"
        )

    def _receipt_policy(self, mode: str):
        return receipts.POLICIES[mode]

    def _new_order(self):
        raise NotImplementedError

    def _configure(self, attributes: dict[str, str]) -> None:
        self.settings = self.config.set(attributes)
        self._messages.retain_for(self.settings.retention_period)

    # -- what the queue is set to ---------------------------------------------

    def set_attributes(self, attributes: dict[str, str]) -> None:
        with self._lock:
            self._configure(attributes)
            self.modified_at = int(self._clock.now())
            self._journal.queue_saved(self)

    def tag(self, tags: dict[str, str]) -> None:
        with self._lock:
            self.config.tag(tags)
            self._journal.queue_saved(self)

    def untag(self, keys) -> None:
        with self._lock:
            self.config.untag(keys)
            self._journal.queue_saved(self)

    def differing_attribute(self, attributes: dict[str, str]) -> str | None:
        """The first given attribute whose value differs from this queue's, for CreateQueue."""
        return self.config.differing_attribute(attributes)

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "ApproximateNumberOfMessages": self._states.count(VISIBLE),
                "ApproximateNumberOfMessagesNotVisible": self._states.count(INFLIGHT),
                "ApproximateNumberOfMessagesDelayed": self._states.count(DELAYED),
            }

    # -- messages ---------------------------------------------------------

    def send(self, batch: Iterable[tuple[Message, int]], origin: Any = None) -> list[Message | Sent]:
        """Enqueue (message, delay seconds) pairs; a delay of 0 makes the message visible now.
        Answers each with the message taken, or what a FIFO queue kept of the original of a
        duplicate (fifo.py): either has the `id` and `sequence_number` the caller answers with.
        `origin`: who sent them and how, for their stories (history.py)."""
        with self._lock:
            now = self._clock.now()
            sent = [self._accept(message, now, delay) for message, delay in batch]
            if self.history is not None:
                self.history.sent(sent, origin)
        if self._on_sent is not None:
            self._on_sent(len(sent))
        return sent

    def _accept(self, message: Message, now: float, delay: float) -> Message | Sent:
        if self.faults and self.faults.delayed_visibility_seconds:
            delay += self.faults.delayed_visibility_seconds
            self.stats.delayed_visibilities += 1
        self._enqueue(message, now, delay)
        self.stats.sent += 1
        return message

    def receive(
        self, max_messages: int, visibility_timeout: int, wait_seconds: int = 0, attempt_id: str | None = None
    ) -> list[Delivery]:
        """Deliver up to max_messages visible messages now, hiding each for visibility_timeout:
        what a long poll (wait_seconds > 0) answers at its end; one that waits polls
        (self.polls: long_polls.py). ``attempt_id`` only means something to a FIFO queue."""
        with self._lock:
            return self._receive_ready(max_messages, visibility_timeout, wait_seconds, attempt_id)

    def _may_end(self, attempt_id: str | None) -> bool:
        """Whether a long poll need wait no more (the lock held)."""
        return self._states.available() or self.deleted or self._answered(attempt_id)

    def _answered(self, attempt_id: str | None) -> bool:  # fifo.py: a retry of this attempt was answered
        return False

    def _receive_ready(
        self, max_messages: int, visibility_timeout: int, wait_seconds: int, attempt_id: str | None
    ) -> list[Delivery]:
        """The receive once it waits no more, with the lock held (fifo.py adds attempt ids)."""
        return self._receive_now(max_messages, visibility_timeout, wait_seconds)

    def _receive_now(self, max_messages: int, visibility_timeout: int, wait_seconds: int) -> list[Delivery]:
        dead_letter = self._dead_letter if self.settings.redrive else None
        now = self._clock.now()
        return taking.take(self._states, now, max_messages, visibility_timeout, wait_seconds, dead_letter, self)

    def delete(self, receipt_handle: str) -> None:
        """Delete the message this handle received, as the queue's receipt policy allows.
        A gone message deletes nothing and succeeds, as on AWS."""
        with self._lock:
            self._delete(receipt_handle)

    def delete_batch(self, receipt_handles: list[str]) -> list[SqsError | None]:
        """delete() each handle, in order, under one hold of the lock (DeleteMessageBatch):
        each one's error, or None where it succeeded."""
        outcomes: list[SqsError | None] = []
        with self._lock:
            for receipt_handle in receipt_handles:
                try:
                    self._delete(receipt_handle)
                except SqsError as error:
                    outcomes.append(error)
                else:
                    outcomes.append(None)
        return outcomes

    def change_visibility(self, receipt_handle: str, timeout: int) -> None:
        with self._lock:
            now = self._clock.now()
            handles.change_visibility(self._states, self._receipts, now, receipt_handle, timeout, self.history)

    def purge(self, cooldown: float = 0.0) -> None:
        """Remove every message: visible, delayed and in flight. AWS allows one purge per 60 s."""
        with self._lock:
            now = self._clock.now()
            if cooldown and self.purged_at is not None and now - self.purged_at < cooldown:
                raise SqsError(
                    "PurgeQueueInProgress",
                    f"Only one PurgeQueue operation on {self.name} is allowed every {cooldown:g} seconds.",
                )
            self.purged_at = now
            if self.history is not None:
                self.history.end_all(self._messages, "purged")
            self._drop_all()
            self._journal.queue_emptied(self)
            self._journal.queue_saved(self)

    def peek(
        self, states: frozenset[State], limit: int, after: int = 0, view: Callable[[Message], Any] = Message.snapshot
    ) -> tuple[list[Any], int | None]:
        """view(message) (a snapshot by default) of up to `limit` messages in the given states
        after arrival number `after`, and the next page's cursor (or None); changes nothing
        (retention.py). The view runs under the queue's lock, so it sees one consistent state."""
        with self._lock:
            return self._messages.peek(states, limit, after, view)

    def close(self) -> None:
        """The queue was deleted: drop its messages and release its long polls."""
        with self._lock:
            self.deleted = True
            self._drop_all()
            self._message_visible.notify_all()

    def restore(self, seq: int, messages: Iterable[Message]) -> list[Message]:
        """Put back a store's messages, in arrival order, as of the clock's now (states.py);
        returns the messages left out because their retention is over."""
        with self._lock:
            self._messages.count_from(seq)
            return self._states.restore(messages, self._clock.now(), self.retention_period)

    # -- moves between queues (transfers.py) -----------------------------------

    def move_out(self, limit: int, destination: Callable[[Message], "Queue | None"]) -> tuple[int, bool]:
        """Move up to `limit` visible messages, in the order a receive would take
        them, each as a new message into destination(message). Returns (moved,
        failed): failed when a message has no destination queue."""
        if limit <= 0:
            return 0, False
        with self._lock:
            return transfers.move_out(self, self._states, self._clock.now(), limit, destination)

    # -- caller holds the lock ------------------------------------------------

    def _dead_letter(self, message: Message, now: float) -> Transfer | None:
        """Move a picked message that reached maxReceiveCount to its dead-letter queue
        (None: it has not reached it)."""
        redrive = self.settings.redrive
        if redrive is None or message.receive_count < redrive.max_receive_count:
            return None
        target = self._find_queue(redrive.target_arn)
        if target is None or target is self:
            return Transfer.NO_TARGET
        note = partial(history.dead_lettered, self, target, message, redrive.max_receive_count)
        outcome = transfers.transfer(self._states, message, target, *self._dead_letter_copy(message, now), note)
        if outcome is Transfer.MOVED:
            self.stats.dead_lettered += 1
        return outcome

    def _dead_letter_copy(self, message: Message, now: float) -> tuple[Message, float]:
        """The message as the dead-letter queue takes it, and its enqueue time there.
        A standard queue keeps the original, so retention counts from the first send."""
        return message.dead_lettered(self.arn), message.sent_at

    def _delete(self, receipt_handle: str) -> None:
        handles.delete(self._states, self._receipts, self, receipt_handle)

    def _enqueue(self, message: Message, sent_at: float, delay: float) -> None:
        message.seq = self._messages.next_seq()
        message.sent_at = sent_at
        self._stamp(message)
        self._states.arrive(message, delay)
        self._journal.message_added(self, message)

    def _stamp(self, message: Message) -> None:
        """Set what the queue type adds to a message it takes (FIFO: its sequence number)."""

    def _drop_all(self) -> None:
        self._states.drop_all()
