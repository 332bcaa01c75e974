"""The state machine every queue shares: one lock, one condition, SQS's message states.

Every message is in exactly one state (delayed, visible, in flight, gone).
Which visible message a receive gets is the queue type's question, answered
by its ready order (``self._ready``): standard queues serve the oldest first,
with fair-queue tenants (standard.py); FIFO queues serve ready message groups
(fifo.py). Time-driven transitions are callbacks on the shared scheduler,
guarded by the message's state and timer so a superseded callback does nothing.

Retention needs no callback per message: messages are kept in arrival order,
which is send order, so the oldest is always first and one callback per queue,
armed for the oldest deadline, expires them. Only dead-lettered messages of a
standard queue arrive with an older send time; a small heap of their ids
covers them.
"""

import enum
import heapq
import threading
import uuid
from collections import OrderedDict
from typing import Callable, Iterable

from emulator import limits
from emulator.engine import attributes as queue_attributes
from emulator.engine import receipts
from emulator.engine.faults import FaultPolicy
from emulator.engine.journal import NO_JOURNAL, Journal
from emulator.engine.message import Delivery, Message, Sent, State
from emulator.engine.stats import QueueStats
from emulator.errors import SqsError, invalid_parameter

# How long a move into another queue waits for that queue's lock. Bounded, so
# two queues that are each other's dead-letter queue cannot deadlock; a move
# that gives up leaves the message where it was, to be moved on a later try.
TRANSFER_WAIT = 0.05


class Transfer(enum.Enum):
    MOVED = "moved"
    BUSY = "busy"  # the target's lock was not free in time
    NO_TARGET = "no target"  # the target queue does not exist (any more)


def setting(name: str) -> property:
    """A read-only attribute that reads the typed setting `name` (attributes.Settings)."""
    return property(lambda queue: getattr(queue.settings, name), doc=f"settings.{name}")


class Queue:
    """Subclasses set ``kind`` and provide ``_new_order()``; see standard.py and fifo.py."""

    kind = ""
    fifo = False

    delay_seconds = setting("delay_seconds")
    visibility_timeout = setting("visibility_timeout")
    retention_period = setting("retention_period")
    maximum_message_size = setting("maximum_message_size")
    receive_wait_seconds = setting("receive_wait_seconds")
    redrive = setting("redrive")
    redrive_allow = setting("redrive_allow")

    def __init__(
        self,
        account: str,
        region: str,
        name: str,
        attributes: dict[str, str],
        clock,
        scheduler,
        find_queue: Callable[[str], "Queue | None"] = lambda arn: None,
        receipt_mode: str = "aws",
        journal: Journal = NO_JOURNAL,
    ):
        self.account = account
        self.region = region
        self.name = name
        self.arn = f"arn:aws:sqs:{region}:{account}:{name}"
        self._clock = clock
        self._scheduler = scheduler
        self._find_queue = find_queue  # by ARN: dead-letter targets
        self._receipts = self._receipt_policy(receipt_mode)
        self._journal = journal
        self._lock = threading.Lock()
        self._message_visible = threading.Condition(self._lock)
        self._messages: OrderedDict[str, Message] = OrderedDict()  # arrival order
        self._older_arrivals: list[tuple[float, str]] = []  # heap of (sent_at, id): dead-lettered messages
        self._newest_sent_at = 0.0
        self._retention_due: float | None = None  # when the armed retention callback fires
        self._retention_timer = 0  # bumped on every re-arm, so a superseded callback does nothing
        self._ready = self._new_order()
        self._seq = 0  # arrival counter: the order visible messages are served in
        self._visible = 0
        self._inflight = 0
        self._delayed = 0
        self.deleted = False
        self.created_at = self.modified_at = int(clock.now())
        self.purged_at: float | None = None
        self.stats = QueueStats()
        self.faults: FaultPolicy | None = None
        self.attributes = queue_attributes.defaults(self.fifo)
        self.tags: dict[str, str] = {}
        self._set(attributes)

    def _receipt_policy(self, mode: str):
        return receipts.POLICIES[mode]

    def _new_order(self):
        raise NotImplementedError

    # -- attributes -------------------------------------------------------

    def _set(self, attributes: dict[str, str]) -> None:
        queue_attributes.apply(self.attributes, attributes)
        self.settings = queue_attributes.Settings.of(self.attributes)

    def set_attributes(self, attributes: dict[str, str]) -> None:
        with self._lock:
            self._set(attributes)
            self.modified_at = int(self._clock.now())
            self._retention_due = None  # the period may have changed: re-arm for the new deadline
            self._arm_retention()
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

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "ApproximateNumberOfMessages": self._visible,
                "ApproximateNumberOfMessagesNotVisible": self._inflight,
                "ApproximateNumberOfMessagesDelayed": self._delayed,
            }

    # -- messages ---------------------------------------------------------

    def send(self, batch: Iterable[tuple[Message, int]]) -> list[Sent]:
        """Enqueue (message, delay seconds) pairs; a delay of 0 makes the message visible now."""
        with self._lock:
            now = self._clock.now()
            return [self._accept(message, now, delay) for message, delay in batch]

    def _accept(self, message: Message, now: float, delay: float) -> Sent:
        if self.faults and self.faults.delayed_visibility_seconds:
            delay += self.faults.delayed_visibility_seconds
            self.stats.delayed_visibilities += 1
        self._enqueue(message, now, delay)
        self.stats.sent += 1
        return Sent(message.id, message.sequence_number)

    def receive(self, max_messages: int, visibility_timeout: int, wait_seconds: int, attempt_id: str | None = None) -> list[Delivery]:
        """Deliver up to max_messages visible messages, hiding each for visibility_timeout.

        Waits up to wait_seconds (on the queue's clock) for the first visible
        message; returns as soon as any is there. ``attempt_id`` only means
        something to a FIFO queue.
        """
        with self._lock:
            if wait_seconds > 0 and not self._available():
                deadline = self._clock.now() + wait_seconds
                while not self._available() and not self.deleted and self._clock.now() < deadline:
                    self._clock.wait(self._message_visible, deadline)
            if self._inflight >= limits.MAX_INFLIGHT:
                # AWS: a short poll of a standard queue at the in-flight limit is OverLimit;
                # a long poll, or a FIFO queue, just gets nothing.
                if wait_seconds > 0 or self.fifo:
                    return []
                raise SqsError("OverLimit", f"Too many messages in flight for queue {self.name}.")
            return self._take(max_messages, visibility_timeout)

    def _available(self) -> bool:
        """Whether a receive would get a message now (a FIFO queue's visible ones may all be in locked groups)."""
        return self._visible > 0 and self._ready.available()

    def _take(self, max_messages: int, visibility_timeout: int) -> list[Delivery]:
        now = self._clock.now()
        deliveries = []
        held_back = None
        picks = self._ready.pick()
        try:
            for message in picks:
                self._visible -= 1
                if self.redrive and message.receive_count >= self.redrive.max_receive_count:
                    outcome = self._dead_letter(message, now)
                    if outcome is Transfer.MOVED:
                        continue
                    if outcome is Transfer.BUSY:
                        # Stop here: a FIFO group must not get ahead of its head message.
                        held_back = message
                        break
                    # No dead-letter queue to move to: deliver it as usual.
                deliveries.append(self._deliver(message, now, visibility_timeout))
                if len(deliveries) >= max_messages or self._inflight >= limits.MAX_INFLIGHT:
                    break
        finally:
            picks.close()
        if held_back is not None:
            self._return_visible(held_back)
        for delivery in deliveries:
            if visibility_timeout == 0:
                self._end_inflight(delivery.message)
            elif self.faults and self.faults.duplicate():
                # Injected: receivable again at once, while this consumer still holds it.
                self.stats.duplicate_deliveries += 1
                self._end_inflight(delivery.message)
        return deliveries

    def _deliver(self, message: Message, now: float, visibility_timeout: int) -> Delivery:
        message.state = State.INFLIGHT
        self._inflight += 1
        self._ready.taken(message)
        message.receive_count += 1
        if message.first_receive_at is None:
            message.first_receive_at = now
        message.nonce = receipts.new_nonce()
        message.received_at = now
        self._arm_visibility(message, now + visibility_timeout)
        self.stats.received += 1
        handle = receipts.encode(message.id, message.nonce)
        return Delivery(message, handle, message.receive_count, message.first_receive_at)

    def _handle_target(self, message_id: str, nonce: str) -> tuple[Message | None, bool]:
        """The message a decoded handle names here, and whether the handle is its latest;
        counts a handle whose receive is over or whose message is gone (caller holds the lock)."""
        message = self._messages.get(message_id)
        if message is None:  # deleted or expired since: the handle is stale too
            self.stats.stale_receipts += 1
            return None, False
        latest = message.nonce == nonce
        if not (latest and message.state is State.INFLIGHT):
            self.stats.stale_receipts += 1
        return message, latest

    def delete(self, receipt_handle: str) -> None:
        """Delete the message this handle received, as the queue's receipt policy allows.
        A gone message deletes nothing and succeeds, as on AWS."""
        message_id, nonce = receipts.decode(receipt_handle)
        with self._lock:
            message, latest = self._handle_target(message_id, nonce)
            if message is None:
                return
            if self._receipts.may_delete(receipt_handle, latest, message.state is State.INFLIGHT):
                if self.faults and self.faults.lose_delete():
                    self.stats.lost_deletes += 1  # injected: success, and the message stays
                    return
                self._remove(message)
                self.stats.deleted += 1

    def change_visibility(self, receipt_handle: str, timeout: int) -> None:
        message_id, nonce = receipts.decode(receipt_handle)
        with self._lock:
            message, latest = self._handle_target(message_id, nonce)
            if message is None:
                raise receipts.not_available(receipt_handle)
            self._receipts.may_change(receipt_handle, latest, message.state is State.INFLIGHT)
            if message.state is not State.INFLIGHT:
                return  # its visibility already ended: AWS answers 200 and changes nothing
            now = self._clock.now()
            if now + timeout > message.received_at + limits.MAX_VISIBILITY_TIMEOUT:
                raise invalid_parameter(
                    f"Value {timeout} for parameter VisibilityTimeout is invalid. Reason: Total "
                    f"VisibilityTimeout for the message is beyond the limit [{limits.MAX_VISIBILITY_TIMEOUT} seconds]."
                )
            if timeout == 0:
                self._end_inflight(message)
            else:
                self._arm_visibility(message, now + timeout)

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
            self._drop_all()
            self._journal.queue_emptied(self)
            self._journal.queue_saved(self)

    def move_out(self, limit: int, destination: Callable[[Message], "Queue | None"]) -> tuple[int, bool]:
        """Move up to `limit` visible messages, in the order a receive would take
        them, each as a new message into destination(message). Returns (moved,
        failed): failed when a message has no destination queue."""
        moved = 0
        outcome = Transfer.MOVED
        if limit <= 0:
            return moved, False
        with self._lock:
            now = self._clock.now()
            picks = self._ready.pick()
            try:
                for message in picks:
                    target = destination(message)
                    outcome = Transfer.NO_TARGET
                    if target is not None:
                        outcome = self._transfer(message, target, message.redriven(str(uuid.uuid4())), now)
                    if outcome is not Transfer.MOVED:
                        break
                    self._visible -= 1
                    moved += 1
                    if moved >= limit:
                        break
            finally:
                picks.close()
            if outcome is not Transfer.MOVED:
                self._ready.add(message)  # it stays here, first in line
        return moved, outcome is Transfer.NO_TARGET

    def peek(self, states: frozenset[State], limit: int, after: int = 0) -> tuple[list[dict], int | None]:
        """Messages in the given states, in arrival order, after arrival number
        `after`; changes nothing (no receive count, no visibility). Returns (up
        to `limit` snapshots, the cursor of the next page or None)."""
        found = []
        with self._lock:
            for message in self._messages.values():
                if message.seq <= after or message.state not in states:
                    continue
                if len(found) == limit:
                    return found, found[-1]["cursor"]
                found.append(message.snapshot())
        return found, None

    def close(self) -> None:
        """The queue was deleted: drop its messages and release its long polls."""
        with self._lock:
            self.deleted = True
            self._drop_all()
            self._message_visible.notify_all()

    def wake_waiters(self) -> None:
        """Let long polls re-check their deadline (the manual clock moved)."""
        with self._lock:
            self._message_visible.notify_all()

    # -- recovery: a store puts back what it kept --------------------------------

    def restore(self, seq: int, messages: Iterable[Message]) -> list[Message]:
        """Put back a store's messages, in arrival order, as of the clock's now: a
        visibility timeout or delay that ended while the emulator was down has
        ended. Returns the messages left out because their retention is over."""
        expired = []
        with self._lock:
            now = self._clock.now()
            self._seq = max(self._seq, seq)
            for message in messages:
                if message.sent_at + self.retention_period <= now:
                    expired.append(message)
                    continue
                self._seq = max(self._seq, message.seq)
                self._place(message)
                if message.state is State.INFLIGHT and message.due > now:
                    self._inflight += 1
                    self._ready.taken(message)
                    self._schedule_visibility_end(message)
                elif message.state is State.DELAYED and message.due > now:
                    self._delayed += 1
                    self._scheduler.call_at(message.due, self._delay_ended, message)
                else:
                    self._show(message)  # no notify: nobody waits yet
            self._retention_due = None
            self._arm_retention()
        return expired

    # -- transitions (caller holds the lock) ------------------------------

    def _enqueue(self, message: Message, sent_at: float, delay: int) -> None:
        self._seq += 1
        message.seq = self._seq
        message.sent_at = sent_at
        self._stamp(message)
        self._place(message)
        if self._retention_due is None or sent_at + self.retention_period < self._retention_due:
            self._arm_retention()  # only a message older than the armed deadline's needs it
        if delay > 0:
            message.state = State.DELAYED
            self._delayed += 1
            message.due = self._clock.now() + delay
            self._scheduler.call_at(message.due, self._delay_ended, message)
        else:
            self._make_visible(message)
        self._journal.message_added(self, message)

    def _place(self, message: Message) -> None:
        """Keep a message in arrival order; one sent before the newest (a dead letter) also goes on the heap."""
        self._messages[message.id] = message
        if message.sent_at < self._newest_sent_at:
            heapq.heappush(self._older_arrivals, (message.sent_at, message.id))
        else:
            self._newest_sent_at = message.sent_at

    def _stamp(self, message: Message) -> None:
        """Set what the queue type adds to a message it takes (FIFO: its sequence number)."""

    def _dead_letter(self, message: Message, now: float) -> Transfer:
        """Move a message (taken off the ready order) that reached maxReceiveCount."""
        target = self._find_queue(self.redrive.target_arn)
        if target is None or target is self:
            return Transfer.NO_TARGET
        outcome = self._transfer(message, target, *self._dead_letter_copy(message, now))
        if outcome is Transfer.MOVED:
            self.stats.dead_lettered += 1
        return outcome

    def _dead_letter_copy(self, message: Message, now: float) -> tuple[Message, float]:
        """The message as the dead-letter queue takes it, and its enqueue time there.
        A standard queue keeps the original, so retention counts from the first send."""
        return message.dead_lettered(self.arn), message.sent_at

    def _transfer(self, message: Message, target: "Queue", replacement: Message, sent_at: float) -> Transfer:
        """Atomically replace `message` (off the ready order) here by `replacement` in `target`."""
        if not target._lock.acquire(timeout=TRANSFER_WAIT):
            return Transfer.BUSY
        try:
            if target.deleted:
                return Transfer.NO_TARGET
            message.state = State.GONE
            del self._messages[message.id]
            self._journal.message_removed(self, message)
            target._enqueue(replacement, sent_at, 0)
            return Transfer.MOVED
        finally:
            target._lock.release()

    def _make_visible(self, message: Message) -> None:
        self._show(message)
        self._message_visible.notify()

    def _show(self, message: Message) -> None:
        message.state = State.VISIBLE
        self._visible += 1
        self._ready.add(message)

    def _return_visible(self, message: Message) -> None:
        """A message taken off the ready order but neither delivered nor moved goes back."""
        self._visible += 1
        self._ready.add(message)

    def _end_inflight(self, message: Message) -> None:
        message.timer += 1
        self._inflight -= 1
        self._make_visible(message)
        self._release(message)
        self._journal.message_changed(self, message)

    def _release(self, message: Message) -> None:
        """A message left the in-flight state; a FIFO group it held may be ready now."""
        if self._ready.released(message):
            self._message_visible.notify()

    def _arm_visibility(self, message: Message, deadline: float) -> None:
        message.due = deadline
        self._schedule_visibility_end(message)
        self._journal.message_changed(self, message)

    def _schedule_visibility_end(self, message: Message) -> None:
        message.timer += 1  # supersedes the callback armed before
        self._scheduler.call_at(message.due, self._visibility_ended, message, message.timer)

    def _remove(self, message: Message) -> None:
        state = message.state
        message.state = State.GONE
        del self._messages[message.id]
        self._journal.message_removed(self, message)
        if state is State.VISIBLE:
            self._visible -= 1
            self._ready.discard(message)
        elif state is State.INFLIGHT:
            self._inflight -= 1
            self._release(message)
        elif state is State.DELAYED:
            self._delayed -= 1

    def _drop_all(self) -> None:
        for message in self._messages.values():
            message.state = State.GONE
        self._messages.clear()
        self._older_arrivals.clear()
        self._ready = self._new_order()
        self._visible = self._inflight = self._delayed = 0

    def _oldest_sent_at(self) -> float | None:
        """Send time of the oldest message still here (dropping ids of gone ones off the heap)."""
        while self._older_arrivals and self._older_arrivals[0][1] not in self._messages:
            heapq.heappop(self._older_arrivals)
        candidates = [sent_at for sent_at, _ in self._older_arrivals[:1]]
        if self._messages:
            candidates.append(next(iter(self._messages.values())).sent_at)
        return min(candidates, default=None)

    def _arm_retention(self) -> None:
        oldest = self._oldest_sent_at()
        if oldest is None:
            return
        due = oldest + self.retention_period
        if self._retention_due is None or due < self._retention_due:
            self._retention_due = due
            self._retention_timer += 1
            self._scheduler.call_at(due, self._retention_ended, self._retention_timer)

    def _expire(self, message: Message) -> None:
        self._remove(message)
        self.stats.expired += 1

    # -- scheduler callbacks ----------------------------------------------

    def _visibility_ended(self, message: Message, timer: int) -> None:
        with self._lock:
            if message.state is State.INFLIGHT and message.timer == timer:
                self._end_inflight(message)

    def _delay_ended(self, message: Message) -> None:
        with self._lock:
            if message.state is State.DELAYED:
                self._delayed -= 1
                self._make_visible(message)

    def _retention_ended(self, timer: int) -> None:
        """Remove every message older than the retention period, then re-arm for the next."""
        with self._lock:
            if timer != self._retention_timer:
                return
            self._retention_due = None
            cutoff = self._clock.now() - self.retention_period
            while self._messages:
                oldest = next(iter(self._messages.values()))
                if oldest.sent_at > cutoff:
                    break
                self._expire(oldest)
            while self._older_arrivals and self._older_arrivals[0][0] <= cutoff:
                _, message_id = heapq.heappop(self._older_arrivals)
                message = self._messages.get(message_id)
                if message is not None:
                    self._expire(message)
            self._arm_retention()
