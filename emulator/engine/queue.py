"""A standard queue: one lock, one condition, SQS's message states.

Every message is in exactly one state (delayed, visible, in flight, gone).
Visible messages wait in insertion order in an OrderedDict, so receive takes
from the front and delete/purge/expiry remove by id, all O(1); time-driven
transitions are callbacks on the shared scheduler, guarded by the message's
state and timer so a superseded callback does nothing.

Retention needs no callback per message: messages are kept in arrival order,
which is send order, so the oldest is always first and one callback per queue,
armed for the oldest deadline, expires them. Only dead-lettered messages arrive
with an older send time; a small heap of their ids covers them.
"""

import enum
import heapq
import threading
import uuid
from collections import OrderedDict
from typing import Callable, Iterable

from emulator.engine import attributes as queue_attributes
from emulator.engine import receipts, redrive
from emulator.engine.message import Delivery, Message, State
from emulator.errors import SqsError, invalid_parameter

MAX_VISIBILITY_TIMEOUT = 43_200
MAX_INFLIGHT = 120_000
# How long a move into another queue waits for that queue's lock. Bounded, so
# two queues that are each other's dead-letter queue cannot deadlock; a move
# that gives up leaves the message where it was, to be moved on a later try.
TRANSFER_WAIT = 0.05


class Transfer(enum.Enum):
    MOVED = "moved"
    BUSY = "busy"  # the target's lock was not free in time
    NO_TARGET = "no target"  # the target queue does not exist (any more)


class Queue:
    def __init__(
        self,
        account: str,
        region: str,
        name: str,
        attributes: dict[str, str],
        clock,
        scheduler,
        find_queue: Callable[[str], "Queue | None"] = lambda arn: None,
    ):
        self.account = account
        self.region = region
        self.name = name
        self.arn = f"arn:aws:sqs:{region}:{account}:{name}"
        self._clock = clock
        self._scheduler = scheduler
        self._find_queue = find_queue  # by ARN: dead-letter targets
        self._lock = threading.Lock()
        self._message_visible = threading.Condition(self._lock)
        self._messages: OrderedDict[str, Message] = OrderedDict()  # arrival order
        self._older_arrivals: list[tuple[float, str]] = []  # heap of (sent_at, id): dead-lettered messages
        self._newest_sent_at = 0.0
        self._retention_due: float | None = None  # when the armed retention callback fires
        self._retention_timer = 0  # bumped on every re-arm, so a superseded callback does nothing
        self._visible: OrderedDict[str, Message] = OrderedDict()
        self._inflight = 0
        self._delayed = 0
        self.deleted = False
        self.created_at = self.modified_at = int(clock.now())
        self.purged_at: float | None = None
        self.attributes = queue_attributes.defaults()
        self.tags: dict[str, str] = {}
        self._set(attributes)

    # -- attributes -------------------------------------------------------

    def _set(self, attributes: dict[str, str]) -> None:
        self.attributes.update({name: queue_attributes.canonical(name, v) for name, v in attributes.items()})
        if "KmsMasterKeyId" in attributes:
            # AWS: choosing a KMS key turns SQS-managed encryption off, for good.
            self.attributes["SqsManagedSseEnabled"] = "false"
        for name in [name for name, value in self.attributes.items() if value == ""]:
            del self.attributes[name]  # an empty Policy or redrive setting removes it
        policy = self.attributes.get("RedrivePolicy")
        self.redrive = redrive.parse_redrive_policy(policy) if policy else None
        allow = self.attributes.get("RedriveAllowPolicy")
        self.redrive_allow = redrive.parse_redrive_allow_policy(allow) if allow else None
        self.delay_seconds = int(self.attributes["DelaySeconds"])
        self.visibility_timeout = int(self.attributes["VisibilityTimeout"])
        self.retention_period = int(self.attributes["MessageRetentionPeriod"])
        self.maximum_message_size = int(self.attributes["MaximumMessageSize"])
        self.receive_wait_seconds = int(self.attributes["ReceiveMessageWaitTimeSeconds"])

    def set_attributes(self, attributes: dict[str, str]) -> None:
        with self._lock:
            self._set(attributes)
            self.modified_at = int(self._clock.now())
            self._retention_due = None  # the period may have changed: re-arm for the new deadline
            self._arm_retention()

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
                "ApproximateNumberOfMessages": len(self._visible),
                "ApproximateNumberOfMessagesNotVisible": self._inflight,
                "ApproximateNumberOfMessagesDelayed": self._delayed,
            }

    # -- messages ---------------------------------------------------------

    def send(self, batch: Iterable[tuple[Message, int]]) -> None:
        """Enqueue (message, delay seconds) pairs; a delay of 0 makes the message visible now."""
        with self._lock:
            now = self._clock.now()
            for message, delay in batch:
                self._enqueue(message, now, delay)

    def receive(self, max_messages: int, visibility_timeout: int, wait_seconds: int) -> list[Delivery]:
        """Deliver up to max_messages visible messages, hiding each for visibility_timeout.

        Waits up to wait_seconds (on the queue's clock) for the first visible
        message; returns as soon as any is there.
        """
        with self._lock:
            if not self._visible and wait_seconds > 0:
                deadline = self._clock.now() + wait_seconds
                while not self._visible and not self.deleted and self._clock.now() < deadline:
                    self._clock.wait(self._message_visible, deadline)
            if self._inflight >= MAX_INFLIGHT:
                # AWS: a short poll at the in-flight limit is OverLimit; a long poll just gets nothing.
                if wait_seconds > 0:
                    return []
                raise SqsError("OverLimit", f"Too many messages in flight for queue {self.name}.")
            now = self._clock.now()
            deliveries = []
            held_back = []
            while self._visible and len(deliveries) < max_messages and self._inflight < MAX_INFLIGHT:
                _, message = self._visible.popitem(last=False)
                if self.redrive and message.receive_count >= self.redrive.max_receive_count:
                    outcome = self._dead_letter(message)
                    if outcome is Transfer.MOVED:
                        continue
                    if outcome is Transfer.BUSY:
                        held_back.append(message)
                        continue
                    # No dead-letter queue to move to: deliver it as usual.
                deliveries.append(self._deliver(message, now, visibility_timeout))
            for message in reversed(held_back):
                self._visible[message.id] = message
                self._visible.move_to_end(message.id, last=False)
            if visibility_timeout == 0:
                for delivery in deliveries:
                    self._end_inflight(delivery.message)
            return deliveries

    def _deliver(self, message: Message, now: float, visibility_timeout: int) -> Delivery:
        message.state = State.INFLIGHT
        self._inflight += 1
        message.receive_count += 1
        if message.first_receive_at is None:
            message.first_receive_at = now
        message.nonce = receipts.new_nonce()
        message.received_at = now
        self._arm_visibility(message, now + visibility_timeout)
        handle = receipts.encode(message.id, message.nonce)
        return Delivery(message, handle, message.receive_count, message.first_receive_at)

    def delete(self, receipt_handle: str) -> None:
        """Delete the message this handle received. A stale handle (the message
        was received again since) or a gone message deletes nothing, as on AWS."""
        message_id, nonce = receipts.decode(receipt_handle)
        with self._lock:
            message = self._messages.get(message_id)
            if message is not None and message.nonce == nonce:
                self._remove(message)

    def change_visibility(self, receipt_handle: str, timeout: int) -> None:
        message_id, nonce = receipts.decode(receipt_handle)
        with self._lock:
            message = self._messages.get(message_id)
            if message is None or message.nonce != nonce:
                raise invalid_parameter(
                    f"Value {receipt_handle} for parameter ReceiptHandle is invalid. "
                    "Reason: Message does not exist or is not available for visibility timeout change."
                )
            if message.state is not State.INFLIGHT:
                return  # its visibility already ended: AWS answers 200 and changes nothing
            now = self._clock.now()
            if now + timeout > message.received_at + MAX_VISIBILITY_TIMEOUT:
                raise invalid_parameter(
                    f"Value {timeout} for parameter VisibilityTimeout is invalid. Reason: Total "
                    f"VisibilityTimeout for the message is beyond the limit [{MAX_VISIBILITY_TIMEOUT} seconds]."
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

    def move_out(self, limit: int, destination: Callable[[Message], "Queue | None"]) -> tuple[int, bool]:
        """Move up to `limit` visible messages, oldest first, each as a new message
        into destination(message). Returns (moved, failed): failed when a
        message has no destination queue."""
        moved = 0
        with self._lock:
            while self._visible and moved < limit:
                message = next(iter(self._visible.values()))
                target = destination(message)
                if target is None:
                    return moved, True
                del self._visible[message.id]
                outcome = self._transfer(message, target, message.redriven(str(uuid.uuid4())), self._clock.now())
                if outcome is not Transfer.MOVED:
                    self._visible[message.id] = message
                    self._visible.move_to_end(message.id, last=False)
                    return moved, outcome is Transfer.NO_TARGET
                moved += 1
        return moved, False

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

    # -- transitions (caller holds the lock) ------------------------------

    def _enqueue(self, message: Message, sent_at: float, delay: int) -> None:
        message.sent_at = sent_at
        self._messages[message.id] = message
        if sent_at < self._newest_sent_at:
            heapq.heappush(self._older_arrivals, (sent_at, message.id))
        self._newest_sent_at = max(self._newest_sent_at, sent_at)
        self._arm_retention()
        if delay > 0:
            message.state = State.DELAYED
            self._delayed += 1
            self._scheduler.call_at(self._clock.now() + delay, self._delay_ended, message)
        else:
            self._make_visible(message)

    def _dead_letter(self, message: Message) -> Transfer:
        """Move a message (taken off the visible list) that reached maxReceiveCount."""
        target = self._find_queue(self.redrive.target_arn)
        if target is None or target is self:
            return Transfer.NO_TARGET
        # A standard queue keeps the original enqueue time, so retention counts from the first send.
        return self._transfer(message, target, message.dead_lettered(self.arn), message.sent_at)

    def _transfer(self, message: Message, target: "Queue", replacement: Message, sent_at: float) -> Transfer:
        """Atomically replace `message` (off the visible list) here by `replacement` in `target`."""
        if not target._lock.acquire(timeout=TRANSFER_WAIT):
            return Transfer.BUSY
        try:
            if target.deleted:
                return Transfer.NO_TARGET
            message.state = State.GONE
            del self._messages[message.id]
            target._enqueue(replacement, sent_at, 0)
            return Transfer.MOVED
        finally:
            target._lock.release()

    def _make_visible(self, message: Message) -> None:
        message.state = State.VISIBLE
        self._visible[message.id] = message
        self._message_visible.notify()

    def _end_inflight(self, message: Message) -> None:
        message.timer += 1
        self._inflight -= 1
        self._make_visible(message)

    def _arm_visibility(self, message: Message, deadline: float) -> None:
        message.timer += 1
        self._scheduler.call_at(deadline, self._visibility_ended, message, message.timer)

    def _remove(self, message: Message) -> None:
        if message.state is State.VISIBLE:
            del self._visible[message.id]
        elif message.state is State.INFLIGHT:
            self._inflight -= 1
        elif message.state is State.DELAYED:
            self._delayed -= 1
        message.state = State.GONE
        del self._messages[message.id]

    def _drop_all(self) -> None:
        for message in self._messages.values():
            message.state = State.GONE
        self._messages.clear()
        self._older_arrivals.clear()
        self._visible.clear()
        self._inflight = self._delayed = 0

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
                self._remove(oldest)
            while self._older_arrivals and self._older_arrivals[0][0] <= cutoff:
                _, message_id = heapq.heappop(self._older_arrivals)
                message = self._messages.get(message_id)
                if message is not None:
                    self._remove(message)
            self._arm_retention()
