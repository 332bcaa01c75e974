"""The standard queue: visible messages oldest first by send order, with fair-queue tenants.

A message whose visibility ended goes back to its place by send order, so it
is received before messages sent after it (as AWS-recorded responses show).

Fair queues (AWS, July 2025): a MessageGroupId on a standard queue names a
tenant. AWS marks a tenant noisy while it holds more than 10% of the queue's
in-flight messages and at least 30 of its own, and then serves quiet tenants'
messages first; among noisy tenants, the one with the fewest in flight first
(https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html).
Here that rule is exact and deterministic: each pick takes the oldest message
of the quiet tenants (messages without a group are each their own tenant, so
always quiet); only when no quiet tenant has one, the oldest of the noisy
tenant with the fewest in flight. A noisy tenant holds over 10% of the
in-flight messages, so there are at most nine, and a pick looks at no more
than ten tenants whatever their number.
"""

import heapq
from collections.abc import Generator

from emulator.engine.message import Message, State
from emulator.engine.queue import Queue
from emulator.engine.ready_order import LazyDeletions

NOISY_MIN_INFLIGHT = 30
NOISY_SHARE_PERCENT = 10


class _Tenant:
    __slots__ = ("heap", "inflight")

    def __init__(self):
        self.heap: list[tuple[int, Message]] = []  # (seq, message) of its visible messages
        self.inflight = 0


def _top(heap: list[tuple[int, Message]]) -> int | None:
    """Seq of the oldest visible message in heap, dropping entries of gone ones."""
    while heap and heap[0][1].state is not State.VISIBLE:
        heapq.heappop(heap)
    return heap[0][0] if heap else None


class TenantOrder:
    """Visible messages of a standard queue: oldest first, quiet tenants before noisy ones
    (a ready_order.ReadyOrder: the queue calls it with its lock held).

    Entries of messages that went away while visible stay in the heaps until
    they reach the top (or a compaction); the queue counts what is visible.
    """

    def __init__(self):
        self._ungrouped: list[tuple[int, Message]] = []
        self._tenants: dict[str, _Tenant] = {}
        # (seq, tenant) for each tenant's oldest visible message; stale entries are skipped.
        self._heads: list[tuple[int, str]] = []
        self._inflight = 0
        self._entries = LazyDeletions()

    def add(self, message: Message) -> None:
        self._entries.added()
        key = message.group_id
        if key is None:
            heapq.heappush(self._ungrouped, (message.seq, message))
            return
        tenant = self._tenants.get(key)
        if tenant is None:
            tenant = self._tenants[key] = _Tenant()
        if not tenant.heap or message.seq < tenant.heap[0][0]:
            heapq.heappush(self._heads, (message.seq, key))
        heapq.heappush(tenant.heap, (message.seq, message))

    def discard(self, message: Message) -> None:
        """A visible message went away (it is GONE); its entry is dropped lazily."""
        if self._entries.departed():
            self._compact()

    def taken(self, message: Message) -> None:
        self._inflight += 1
        if message.group_id is not None:
            tenant = self._tenants.get(message.group_id)
            if tenant is None:
                tenant = self._tenants[message.group_id] = _Tenant()
            tenant.inflight += 1

    def released(self, message: Message) -> bool:
        self._inflight -= 1
        key = message.group_id
        if key is not None:
            tenant = self._tenants[key]
            tenant.inflight -= 1
            if not tenant.inflight and not tenant.heap:
                del self._tenants[key]
        return False  # nothing became visible that was not already

    def available(self) -> bool:
        return True  # every visible message of a standard queue can be received

    def pick(self) -> Generator[Message, None, None]:
        """Visible messages in the order receive should take them, each taken off on yield."""
        while True:
            message = self._pick_one()
            if message is None:
                return
            self._entries.removed()
            yield message

    def _noisy(self, tenant: _Tenant) -> bool:
        return tenant.inflight >= NOISY_MIN_INFLIGHT and tenant.inflight * 100 > self._inflight * NOISY_SHARE_PERCENT

    def _pick_one(self) -> Message | None:
        quiet = None  # (seq, key) of the oldest head among quiet tenants
        noisy = []
        while self._heads:
            seq, key = heapq.heappop(self._heads)
            tenant = self._tenants.get(key)
            if tenant is None:  # forgotten since this entry was filed
                continue
            top = _top(tenant.heap)
            if top != seq:
                if top is not None and top > seq:
                    heapq.heappush(self._heads, (top, key))  # its head went away: re-file it
                elif top is None and not tenant.inflight:
                    del self._tenants[key]
                continue
            if self._noisy(tenant):
                noisy.append((seq, key))
                continue
            quiet = (seq, key)
            break
        ungrouped = _top(self._ungrouped)
        if ungrouped is not None and (quiet is None or ungrouped < quiet[0]):
            if quiet is not None:
                noisy.append(quiet)
            chosen = None
        elif quiet is not None:
            chosen = quiet
        elif noisy:
            chosen = min(noisy, key=lambda entry: (self._tenants[entry[1]].inflight, entry[0]))
            noisy.remove(chosen)
        else:
            return None
        for entry in noisy:
            heapq.heappush(self._heads, entry)
        if chosen is None:
            return heapq.heappop(self._ungrouped)[1]
        tenant = self._tenants[chosen[1]]
        message = heapq.heappop(tenant.heap)[1]
        if tenant.heap:
            heapq.heappush(self._heads, (tenant.heap[0][0], chosen[1]))
        return message

    def _compact(self) -> None:
        live = lambda heap: [entry for entry in heap if entry[1].state is State.VISIBLE]  # noqa: E731
        self._ungrouped = live(self._ungrouped)
        heapq.heapify(self._ungrouped)
        self._heads = []
        for key, tenant in list(self._tenants.items()):
            tenant.heap = live(tenant.heap)
            heapq.heapify(tenant.heap)
            if tenant.heap:
                self._heads.append((tenant.heap[0][0], key))
            elif not tenant.inflight:
                del self._tenants[key]
        heapq.heapify(self._heads)
        self._entries.compacted()


class StandardQueue(Queue):
    kind = "standard"

    def _new_order(self) -> TenantOrder:
        return TenantOrder()
