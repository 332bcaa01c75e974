"""The standard queue: visible messages oldest first by send order, with fair-queue tenants.

A message whose visibility ended goes back to its place by send order, so it
is received before messages sent after it (as AWS-recorded responses show).

Fair queues (AWS, July 2025): a MessageGroupId on a standard queue names a
tenant. Once a tenant is noisy (AWS's whole rule: noisy_tenants.py), quiet
tenants' messages are served first; among noisy tenants, the one with the fewest
in flight first
(https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html).
Here that rule is exact and deterministic: each pick takes the oldest message
of the quiet tenants (messages without a group are each their own tenant, so
always quiet); only when no quiet tenant has one, the oldest of the noisy
tenant with the fewest in flight. A noisy tenant holds over 10% of the
in-flight messages or of the recent processing time, so there are at most
eighteen, and a pick looks at no more than nineteen tenants whatever their number.
"""

import heapq
from collections.abc import Generator

from emulator.engine.clock import Clock
from emulator.engine.lazy_deletions import LazyDeletions
from emulator.engine.message import DELAYED, INFLIGHT, VISIBLE, Message
from emulator.engine.noisy_tenants import NoisyTenants
from emulator.engine.queue import Queue
from emulator.engine.ready_order import SendOrder


class _Tenant:
    __slots__ = ("delayed", "inflight", "order", "visible")

    def __init__(self):
        self.order = SendOrder()  # its visible messages
        self.visible = 0  # messages in the order (which may hold departed ones too)
        self.inflight = 0
        self.delayed = 0

    def idle(self) -> bool:
        return not (self.order or self.inflight or self.delayed)


def _top(order: SendOrder) -> int | None:
    """Seq of the oldest visible message in order, dropping entries of gone ones."""
    message = order.top()
    return None if message is None else message.seq


class TenantOrder:
    """Visible messages of a standard queue: oldest first, quiet tenants before noisy ones
    (a ready_order.ReadyOrder: the queue calls it with its lock held).

    Entries of messages that went away while visible stay in the orders until
    they reach the top (or a compaction); the queue counts what is visible.
    """

    def __init__(self, clock: Clock):
        self._clock = clock
        self._noisy = NoisyTenants()
        self._ungrouped = SendOrder()
        self._tenants: dict[str, _Tenant] = {}
        # (seq, tenant) for each tenant's oldest visible message; stale entries are skipped.
        self._heads: list[tuple[int, str]] = []
        self._inflight = 0
        self._entries = LazyDeletions()

    def add(self, message: Message) -> None:
        self._entries.live += 1
        key = message.group_id
        if key is None:
            self._ungrouped.push(message)
            return
        tenant = self._tenant(key)
        self._noisy.sent(key, message.sent_at)
        tenant.visible += 1
        top = _top(tenant.order)
        if top is None or message.seq < top:
            heapq.heappush(self._heads, (message.seq, key))
        tenant.order.push(message)

    def _tenant(self, key: str) -> _Tenant:
        tenant = self._tenants.get(key)
        if tenant is None:
            tenant = self._tenants[key] = _Tenant()
        return tenant

    def _forget_if_idle(self, key: str, tenant: _Tenant) -> None:
        if tenant.idle():
            del self._tenants[key]
            self._noisy.forget(key)

    def discard(self, message: Message) -> None:
        """A visible message went away (it is GONE); its entry is dropped lazily."""
        if message.group_id is not None:
            self._tenants[message.group_id].visible -= 1
        if self._entries.departed():
            self._compact()

    def delayed(self, message: Message, entering: bool) -> None:
        if message.group_id is not None:
            tenant = self._tenant(message.group_id)
            tenant.delayed += 1 if entering else -1
            if not entering:
                self._forget_if_idle(message.group_id, tenant)

    def taken(self, message: Message) -> None:
        self._inflight += 1
        if message.group_id is not None:
            self._tenant(message.group_id).inflight += 1

    def released(self, message: Message) -> bool:
        self._inflight -= 1
        key = message.group_id
        self._noisy.processed(key, message.delivery_fields.received_at, self._clock.now())  # type: ignore[union-attr]
        if key is not None:
            tenant = self._tenants[key]
            tenant.inflight -= 1
            self._forget_if_idle(key, tenant)
        return False  # nothing became visible that was not already

    def available(self) -> bool:
        return True  # every visible message of a standard queue can be received

    def pick(self) -> Generator[Message, None, None]:
        """Visible messages in the order receive should take them, each taken off on yield."""
        now = self._clock.now()
        self._noisy.advance(now)
        while True:
            # Without a tenant with visible messages, the oldest message without a group.
            message = self._pick_one(now) if self._heads else self._ungrouped.pop()
            if message is None:
                return
            self._entries.live -= 1
            if message.group_id is not None:
                self._tenants[message.group_id].visible -= 1
            yield message

    def _is_noisy(self, key: str, tenant: _Tenant, now: float) -> bool:
        return self._noisy.noisy(key, tenant.inflight, self._inflight, now)

    def _pick_one(self, now: float) -> Message | None:
        quiet = None  # (seq, key) of the oldest head among quiet tenants
        noisy = []
        while self._heads:
            seq, key = heapq.heappop(self._heads)
            tenant = self._tenants.get(key)
            if tenant is None:  # forgotten since this entry was filed
                continue
            top = _top(tenant.order)
            if top != seq:
                if top is not None and top > seq:
                    heapq.heappush(self._heads, (top, key))  # its head went away: re-file it
                elif top is None:
                    self._forget_if_idle(key, tenant)
                continue
            if self._is_noisy(key, tenant, now):
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
            return self._ungrouped.pop()
        tenant = self._tenants[chosen[1]]
        message = tenant.order.pop()
        top = _top(tenant.order)
        if top is not None:
            heapq.heappush(self._heads, (top, chosen[1]))
        return message

    def fair_metrics(self, now: float, visible: int, inflight: int, delayed: int) -> dict[str, int]:
        """The fair-queue metrics AWS publishes (CloudWatch), from the queue's counts by state:
        noisy tenants are those with a backlog that the rule calls noisy now; every other
        message (also each one without a group) is a quiet tenant's."""
        self._noisy.advance(now)
        noisy = [
            (key, tenant)
            for key, tenant in self._tenants.items()
            if tenant.visible and self._is_noisy(key, tenant, now)
        ]
        noisy_keys = {key for key, _ in noisy}
        orders = [self._ungrouped] + [t.order for key, t in self._tenants.items() if key not in noisy_keys]
        sent_at = min((top.sent_at for order in orders if (top := order.top()) is not None), default=None)
        return {
            "ApproximateNumberOfNoisyGroups": len(noisy),
            "ApproximateNumberOfMessagesVisibleInQuietGroups": visible - sum(t.visible for _, t in noisy),
            "ApproximateNumberOfMessagesNotVisibleInQuietGroups": inflight - sum(t.inflight for _, t in noisy),
            "ApproximateNumberOfMessagesDelayedInQuietGroups": delayed - sum(t.delayed for _, t in noisy),
            "ApproximateAgeOfOldestMessageInQuietGroups": 0 if sent_at is None else max(0, int(now - sent_at)),
        }

    def _compact(self) -> None:
        self._ungrouped = self._ungrouped.compacted()
        self._heads = []
        for key, tenant in list(self._tenants.items()):
            tenant.order = tenant.order.compacted()
            top = _top(tenant.order)
            if top is not None:
                self._heads.append((top, key))
            else:
                self._forget_if_idle(key, tenant)
        heapq.heapify(self._heads)
        self._entries.compacted()


class StandardQueue(Queue):
    kind = "standard"
    _order: TenantOrder

    def fair_metrics(self) -> dict[str, int]:
        """AWS's fair-queue metrics of this queue now (TenantOrder.fair_metrics)."""
        with self._lock:
            counts = (self._states.count(state) for state in (VISIBLE, INFLIGHT, DELAYED))
            return self._order.fair_metrics(self._clock.now(), *counts)

    def _new_order(self) -> TenantOrder:
        self._order = TenantOrder(self._clock)
        return self._order
