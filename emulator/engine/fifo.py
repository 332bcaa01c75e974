"""The FIFO queue: message groups, deduplication, sequence numbers, receive attempts.

Order within a group is send order, also after a redelivery: each group keeps
its visible messages in arrival order (a SendOrder). A group is blocked from its first
in-flight message onward: its visible messages sent before that one may be
received, those after it wait (AWS-recorded: receive m1 and m2 of a group,
return m1 with ChangeMessageVisibility 0, and m1 is receivable while m2 is
still in flight). One receive takes a group's deliverable messages in order,
then the next group's.

Groups wait in the order they became ready, a group just received from going
behind the others (AWS-recorded: g1, g2, g3 ready; a receive of g1's and one
of g2's messages with VisibilityTimeout 0; the next receive starts with g3).
The ready groups are a deque checked lazily, so a receive finds the next one
in O(1) and never walks messages or groups.

Deduplication ids and receive-attempt ids live AWS's 5 minutes in expiring
maps driven by the one scheduler.
"""

import hashlib
import heapq
from collections import deque
from collections.abc import Generator

from emulator import limits
from emulator.engine import receipts
from emulator.engine.expiring import ExpiringMap
from emulator.engine.lazy_deletions import LazyDeletions
from emulator.engine.message import INFLIGHT, Delivery, Message, Sent
from emulator.engine.queue import Queue
from emulator.engine.ready_order import SendOrder
from emulator.errors import invalid_parameter

DEDUP_WINDOW = float(limits.DEDUP_WINDOW_SECONDS)
ATTEMPT_WINDOW = float(limits.DEDUP_WINDOW_SECONDS)
# AWS's sequence numbers are large and non-consecutive, 20 digits as returned (e.g.
# 18849496460467696128), and increase per queue (docs/sqs-reference.md 1.8; issue 18).
# Here: a base from the queue's creation second, then a stride per arrival number plus a
# scrambled offset below the stride, so they stay strictly increasing, and across a
# restart, since the store keeps the arrival counter.
SEQUENCE_STRIDE = 1 << 20
_MASK64 = (1 << 64) - 1
NEVER = float("inf")
# A group is keyed by its messages' group_id, typed as the field is: the api layer
# gives every FIFO message one, and the order needs no more than equal keys.
GroupKey = str | None


def sequence_number(created_at: int, seq: int) -> str:
    """The SequenceNumber of a queue's `seq`-th arrival: 20 digits, strictly increasing in seq.
    The base is the queue's own (from its creation second), between 1e19 and 5e19, which leaves
    room for 4e13 arrivals before a 21st digit."""
    base = 10**19 + _scattered(created_at) % (4 * 10**19)
    return str(base + seq * SEQUENCE_STRIDE + _scattered(seq) % SEQUENCE_STRIDE)


def _scattered(n: int) -> int:
    """n's bits mixed (a multiply and an xor-shift): neighbouring numbers get unrelated values."""
    n = (n * 0x9E3779B97F4A7C15) & _MASK64
    return n ^ (n >> 29)


def _armed(message: Message) -> list | None:
    """The entry of a message's deadline (deadlines.py): another one means its visibility was set again."""
    return None if message.delivery_fields is None else message.delivery_fields.entry


class _Group:
    __slots__ = ("inflight", "queued", "visible")

    def __init__(self):
        self.visible = SendOrder()  # its visible messages
        self.inflight: list[tuple[int, Message]] = []  # heap (seq, message) of its messages in flight
        self.queued = False  # in the ready deque

    def first_visible(self) -> int | None:
        """Seq of its oldest visible message, dropping entries of messages no longer visible."""
        first = self.visible.top()
        return None if first is None else first.seq

    def first_inflight(self) -> float:
        heap = self.inflight
        while heap and heap[0][1].state is not INFLIGHT:
            heapq.heappop(heap)
        return heap[0][0] if heap else NEVER

    def ready(self) -> bool:
        first = self.first_visible()
        return first is not None and first < self.first_inflight()

    def empty(self) -> bool:
        return self.first_visible() is None and self.first_inflight() is NEVER


class GroupOrder:
    """Visible messages of a FIFO queue by group, and the groups ready to deliver
    (a ready_order.ReadyOrder: the queue calls it with its lock held)."""

    def __init__(self):
        self._groups: dict[GroupKey, _Group] = {}
        self._ready: deque[GroupKey] = deque()  # each group at most once (its `queued` flag)
        self._entries = LazyDeletions()

    def add(self, message: Message) -> None:
        self._entries.live += 1
        key = message.group_id
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        group.visible.push(message)
        self._file_if_ready(key, group)

    def discard(self, message: Message) -> None:
        if self._entries.departed():
            self._compact()

    def taken(self, message: Message) -> None:
        group = self._groups.get(message.group_id)
        if group is None:  # only on recovery: a group with nothing visible
            group = self._groups[message.group_id] = _Group()
        heapq.heappush(group.inflight, (message.seq, message))

    def delayed(self, message: Message, entering: bool) -> None:
        pass  # a FIFO group waits on its visible and in-flight messages only

    def released(self, message: Message) -> bool:
        """The message left the in-flight state: True when its group became ready."""
        key = message.group_id
        group = self._groups[key]
        if group.empty():
            del self._groups[key]
            return False
        return self._file_if_ready(key, group)

    def available(self) -> bool:
        return self._ready_first()

    def pick(self) -> Generator[Message, None, None]:
        """Messages in the order receive takes them: a ready group's deliverable ones, then the next group's."""
        while self._ready_first():
            key = self._ready.popleft()
            group = self._groups[key]
            group.queued = False
            # Messages taken by this receive do not block the ones after them.
            limit = group.first_inflight()
            try:
                while (message := group.visible.top()) is not None and message.seq < limit:
                    self._entries.live -= 1
                    group.visible.pop()
                    yield message
            finally:
                self._refile_or_forget(key, group)

    def _file_if_ready(self, key: GroupKey, group: _Group) -> bool:
        """Put a ready group that is not in line at the back of the ready deque: True if it went in."""
        if group.queued or not group.ready():
            return False
        group.queued = True
        self._ready.append(key)
        return True

    def _refile_or_forget(self, key: GroupKey, group: _Group) -> None:
        """After a pick left a group: back of the line if still ready, forgotten if empty."""
        if group.empty():
            if self._groups.get(key) is group:
                del self._groups[key]
        else:
            self._file_if_ready(key, group)

    def _ready_first(self) -> bool:
        """Whether a group is ready, dropping entries of groups that stopped being ready:
        when True, the first entry of the ready deque is a ready group's."""
        while self._ready:
            key = self._ready[0]
            group = self._groups.get(key)
            if group is not None and group.ready():
                return True
            self._ready.popleft()
            if group is not None:
                group.queued = False
                if group.empty():
                    del self._groups[key]
        return False

    def _compact(self) -> None:
        for key, group in list(self._groups.items()):
            group.visible = group.visible.compacted()
            group.inflight = [entry for entry in group.inflight if entry[1].state is INFLIGHT]
            heapq.heapify(group.inflight)
            if group.empty():
                del self._groups[key]
        self._ready = deque(key for key in self._ready if key in self._groups)
        self._entries.compacted()


class FifoQueue(Queue):
    kind = "fifo"
    fifo = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Deduplication keeps the scope the queue was created with: AWS, recorded both ways (issue 18),
        # changes the attribute SetQueueAttributes sets but not whether ids are per group.
        self.dedup_scope = self.attributes["DeduplicationScope"]
        self._dedup = ExpiringMap(DEDUP_WINDOW, self._clock, self._scheduler, self._lock)
        self._attempts = ExpiringMap(ATTEMPT_WINDOW, self._clock, self._scheduler, self._lock)

    def _receipt_policy(self, mode: str):
        return receipts.FIFO  # stricter than either mode: a handle expires with its visibility

    def _new_order(self) -> GroupOrder:
        return GroupOrder()

    # -- send: deduplication and sequence numbers --------------------------

    def _accept(self, message: Message, now: float, delay: float) -> Message | Sent:
        if message.dedup_id is None:  # the api layer checked that the queue deduplicates by content
            message.dedup_id = hashlib.sha256(message.body.encode()).hexdigest()
        key = (message.group_id, message.dedup_id) if self.dedup_scope == "messageGroup" else message.dedup_id
        original = self._dedup.get(key)
        if original is not None:
            return original  # accepted, not delivered again
        super()._accept(message, now, delay)
        sent = Sent(message.id, message.sequence_number)
        self._dedup.put(key, sent)
        self._journal.dedup_added(self, key, sent, now + DEDUP_WINDOW)
        return message

    def restore_dedup(self, entries) -> None:
        """Put back (key, Sent, expires_at) deduplication ids a store kept, oldest first."""
        with self._lock:
            now = self._clock.now()
            for key, sent, expires_at in entries:
                if expires_at > now:
                    self._dedup.put(key, sent, since=expires_at - DEDUP_WINDOW)

    def _stamp(self, message: Message) -> None:
        message.sequence_number = sequence_number(self.created_at, message.seq)

    # -- receive: attempt ids ----------------------------------------------

    # A retry with the same ReceiveRequestAttemptId within 5 minutes, while none of its
    # messages changed, answers the same messages and handles and restarts their visibility
    # timeout (ReceiveMessage docs); once one changed, the attempt is no longer retryable.
    # Checking for the attempt, receiving and recording it are one step under the lock, so
    # concurrent retries answer alike; a retry may receive while this one waits, which
    # answers this one too.

    def _answered(self, attempt_id: str | None) -> bool:
        return attempt_id is not None and self._attempts.get(attempt_id) is not None

    def _receive_ready(
        self, max_messages: int, visibility_timeout: int, wait_seconds: int, attempt_id: str | None
    ) -> list[Delivery]:
        if attempt_id is None:
            return self._receive_now(max_messages, visibility_timeout, wait_seconds)
        if self._attempts.get(attempt_id) is not None:
            return self._replay(attempt_id, visibility_timeout)
        deliveries = self._receive_now(max_messages, visibility_timeout, wait_seconds)
        if deliveries:
            self._attempts.put(attempt_id, [(d, d.message.nonce, _armed(d.message)) for d in deliveries])
            self._message_visible.notify_all()  # wakes a retry waiting with the same id
        return deliveries

    def _replay(self, attempt_id: str, visibility_timeout: int) -> list[Delivery]:
        attempt = self._attempts.get(attempt_id)
        unchanged = all(
            d.message.state is INFLIGHT and d.message.nonce == nonce and _armed(d.message) is armed
            for d, nonce, armed in attempt
        )
        if not unchanged:
            # AWS's answer to a reused id whose messages were deleted or had their visibility changed.
            raise invalid_parameter(
                f"Value {attempt_id} for parameter ReceiveRequestAttemptId is invalid. "
                "Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable."
            )
        now = self._clock.now()
        for delivery, _, _ in attempt:
            if visibility_timeout == 0:
                self._states.end_inflight(delivery.message)
            else:
                self._states.arm_visibility(delivery.message, now + visibility_timeout)
        attempt[:] = [(d, d.message.nonce, _armed(d.message)) for d, _, _ in attempt]  # the window does not restart
        return [delivery for delivery, _, _ in attempt]

    # -- dead letters and purges -----------------------------------------------

    def _dead_letter_copy(self, message: Message, now: float) -> tuple[Message, float]:
        # AWS: in a FIFO dead-letter queue the deduplication id becomes the original
        # message's id, and the enqueue time resets.
        copy = message.dead_lettered(self.arn)
        copy.dedup_id = message.id
        return copy, now

    def _drop_all(self) -> None:
        # A purge forgets deduplication ids too: LocalStack's AWS-validated
        # test_purge_queue_clears_fifo_deduplication_cache (disputed, see docs/research).
        super()._drop_all()
        self._dedup.clear()
        self._attempts.clear()
