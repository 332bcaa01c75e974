"""The FIFO queue: message groups, deduplication, sequence numbers, receive attempts.

Order within a group is send order, also after a redelivery: each group keeps
its visible messages in a heap by arrival. While any message of a group is in
flight, no other message of it is delivered. Groups that could deliver (a
visible message, none in flight) wait in one heap keyed by their oldest
message, so a receive finds the next ready group in O(log groups) and never
walks messages or groups; it takes that group's messages in order, then the
next ready group's.

Deduplication ids and receive-attempt ids live AWS's 5 minutes in expiring
maps driven by the one scheduler.
"""

import hashlib
import heapq

from emulator.engine import receipts
from emulator.engine.expiring import ExpiringMap
from emulator.engine.message import Delivery, Message, State
from emulator.engine.queue import Queue, Sent

DEDUP_WINDOW = 300.0
ATTEMPT_WINDOW = 300.0
# Sequence numbers are 20 digits, as AWS's are, and strictly increase per queue.
SEQUENCE_BASE = 10**19
COMPACT_AFTER = 1024


class _Group:
    __slots__ = ("heap", "inflight")

    def __init__(self):
        self.heap: list[tuple[int, Message]] = []  # (seq, message) of its visible messages
        self.inflight = 0


def _top(heap: list[tuple[int, Message]]) -> int | None:
    """Seq of the oldest visible message in heap, dropping entries of gone ones."""
    while heap and heap[0][1].state is not State.VISIBLE:
        heapq.heappop(heap)
    return heap[0][0] if heap else None


class GroupOrder:
    """Visible messages of a FIFO queue by group; a group is ready while none of it is in flight."""

    def __init__(self):
        self._groups: dict[str, _Group] = {}
        # (seq, group) for ready groups' oldest visible message; stale entries are skipped.
        self._ready: list[tuple[int, str]] = []
        self._live = 0
        self._gone = 0

    def add(self, message: Message) -> None:
        self._live += 1
        key = message.group_id
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        if not group.inflight and (not group.heap or message.seq < group.heap[0][0]):
            heapq.heappush(self._ready, (message.seq, key))
        heapq.heappush(group.heap, (message.seq, message))

    def discard(self, message: Message) -> None:
        self._live -= 1
        self._gone += 1
        if self._gone > COMPACT_AFTER and self._gone > self._live:
            self._compact()

    def taken(self, message: Message) -> None:
        self._groups[message.group_id].inflight += 1

    def released(self, message: Message) -> bool:
        """True when the group became ready."""
        key = message.group_id
        group = self._groups[key]
        group.inflight -= 1
        if group.inflight:
            return False
        top = _top(group.heap)
        if top is None:
            del self._groups[key]
            return False
        heapq.heappush(self._ready, (top, key))
        return True

    def available(self) -> bool:
        return self._peek_ready() is not None

    def pick(self):
        """Messages in the order receive takes them: a ready group's in order, then the next group's."""
        while True:
            key = self._pop_ready()
            if key is None:
                return
            group = self._groups[key]
            try:
                while _top(group.heap) is not None:
                    self._live -= 1
                    yield heapq.heappop(group.heap)[1]
            finally:
                self._settle(key, group)

    def _settle(self, key: str, group: _Group) -> None:
        """After a pick left a group: file it as ready again if it still is, or forget it."""
        if group.inflight:
            return
        top = _top(group.heap)
        if top is not None:
            heapq.heappush(self._ready, (top, key))
        elif self._groups.get(key) is group:
            del self._groups[key]

    def _peek_ready(self) -> str | None:
        """The next ready group, dropping stale entries (the group since locked, emptied or re-filed)."""
        while self._ready:
            seq, key = self._ready[0]
            group = self._groups.get(key)
            top = _top(group.heap) if group is not None and not group.inflight else None
            if top == seq:
                return key
            heapq.heappop(self._ready)
            if top is not None and top > seq:
                heapq.heappush(self._ready, (top, key))  # its head went away: re-file it
        return None

    def _pop_ready(self) -> str | None:
        key = self._peek_ready()
        if key is not None:
            heapq.heappop(self._ready)
        return key

    def _compact(self) -> None:
        self._ready = []
        for key, group in list(self._groups.items()):
            group.heap = [entry for entry in group.heap if entry[1].state is State.VISIBLE]
            heapq.heapify(group.heap)
            if group.heap and not group.inflight:
                self._ready.append((group.heap[0][0], key))
            elif not group.heap and not group.inflight:
                del self._groups[key]
        heapq.heapify(self._ready)
        self._gone = 0


class FifoQueue(Queue):
    kind = "fifo"
    fifo = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._dedup = ExpiringMap(DEDUP_WINDOW, self._clock, self._scheduler, self._lock)
        self._attempts = ExpiringMap(ATTEMPT_WINDOW, self._clock, self._scheduler, self._lock)

    def _receipt_policy(self, mode: str):
        return receipts.FIFO  # stricter than either mode: a handle expires with its visibility

    def _new_order(self) -> GroupOrder:
        return GroupOrder()

    def _set(self, attributes: dict[str, str]) -> None:
        super()._set(attributes)
        self.content_based_deduplication = self.attributes["ContentBasedDeduplication"] == "true"
        self.dedup_per_group = self.attributes["DeduplicationScope"] == "messageGroup"

    # -- send: deduplication and sequence numbers --------------------------

    def _accept(self, message: Message, now: float, delay: int) -> Sent:
        if message.dedup_id is None:  # the api layer checked that the queue deduplicates by content
            message.dedup_id = hashlib.sha256(message.body.encode()).hexdigest()
        key = (message.group_id, message.dedup_id) if self.dedup_per_group else message.dedup_id
        original = self._dedup.get(key)
        if original is not None:
            return original  # accepted, not delivered again
        sent = super()._accept(message, now, delay)
        self._dedup.put(key, sent)
        return sent

    def _stamp(self, message: Message) -> None:
        message.sequence_number = str(SEQUENCE_BASE + message.seq)

    # -- receive: attempt ids ----------------------------------------------

    def receive(self, max_messages: int, visibility_timeout: int, wait_seconds: int, attempt_id: str | None = None) -> list[Delivery]:
        """A retry with the same ReceiveRequestAttemptId within 5 minutes, while none
        of its messages changed, answers the same messages and handles and
        restarts their visibility timeout (ReceiveMessage docs)."""
        if attempt_id is not None:
            with self._lock:
                replay = self._replay(attempt_id, visibility_timeout)
            if replay is not None:
                return replay
        deliveries = super().receive(max_messages, visibility_timeout, wait_seconds)
        if attempt_id is not None and deliveries:
            with self._lock:
                self._attempts.put(attempt_id, [(d, d.message.nonce, d.message.timer) for d in deliveries])
        return deliveries

    def _replay(self, attempt_id: str, visibility_timeout: int) -> list[Delivery] | None:
        attempt = self._attempts.get(attempt_id)
        if attempt is None:
            return None
        unchanged = all(
            d.message.state is State.INFLIGHT and d.message.nonce == nonce and d.message.timer == timer
            for d, nonce, timer in attempt
        )
        if not unchanged:
            self._attempts.discard(attempt_id)
            return None
        now = self._clock.now()
        for delivery, _, _ in attempt:
            if visibility_timeout == 0:
                self._end_inflight(delivery.message)
            else:
                self._arm_visibility(delivery.message, now + visibility_timeout)
        attempt[:] = [(d, d.message.nonce, d.message.timer) for d, _, _ in attempt]  # the window does not restart
        return [delivery for delivery, _, _ in attempt]

    # -- dead letters -------------------------------------------------------

    def _dead_letter_sent_at(self, message: Message, now: float) -> float:
        # AWS: a FIFO message's enqueue time resets when it moves to the dead-letter queue.
        return now
