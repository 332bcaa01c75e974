"""Which fair-queue tenants are noisy: AWS's whole rule, on the queue's clock.

AWS (SQS Developer Guide, "How Amazon SQS fair queues work",
https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html):
a tenant is noisy when either holds

- concurrency share: more than 10% of the queue's in-flight messages, and at
  least 30 of its own;
- processing-time share: more than 10% of the consumers' recent processing time;

and it is no longer noisy once its backlog is drained or it has sent nothing for
5 consecutive minutes. AWS's detection is approximate; here it is exact, so a
test on the manual clock can rely on it. What AWS leaves open, decided here:
a message's processing time runs from its receive to its delete or the end of
its visibility (as issue 18 words it), and "recent" is the last 5 minutes (the
horizon of the quiet rule), counted by whole seconds. Messages without a group are each their own tenant:
their processing time counts in the total, and they are never noisy.
"""

from collections import deque

NOISY_MIN_INFLIGHT = 30
NOISY_SHARE_PERCENT = 10
QUIET_AFTER_SECONDS = 300.0  # without sends, a noisy tenant is quiet again
RECENT_SECONDS = 300.0  # the window of processing time a share is taken of


class NoisyTenants:
    """The rule's bookkeeping: each tenant's last send and recent processing time, the
    latter in one-second buckets so that memory stays bounded whatever the throughput.
    Called with the queue's lock held."""

    def __init__(self):
        self._last_sent: dict[str, float] = {}
        self._processing: dict[str, float] = {}  # tenant -> seconds within the window
        self._total = 0.0
        # (second, {tenant: seconds}) of processing that ended in that second, oldest first
        self._buckets: deque[tuple[int, dict[str | None, float]]] = deque()

    def sent(self, tenant: str, sent_at: float) -> None:
        if sent_at > self._last_sent.get(tenant, float("-inf")):
            self._last_sent[tenant] = sent_at

    def processed(self, tenant: str | None, started: float, now: float) -> None:
        """A message of `tenant` left the in-flight state: its processing time counts."""
        seconds = now - started if now > started else 0.0
        self._total += seconds
        second = int(now)
        buckets = self._buckets
        if not buckets or buckets[-1][0] != second:
            buckets.append((second, {}))
        bucket = buckets[-1][1]
        bucket[tenant] = bucket.get(tenant, 0.0) + seconds
        if tenant is not None:  # messages without a group count only in the total
            processing = self._processing
            processing[tenant] = processing.get(tenant, 0.0) + seconds

    def advance(self, now: float) -> None:
        """Forget processing that ended before the window (by whole seconds)."""
        buckets, processing = self._buckets, self._processing
        while buckets and buckets[0][0] + 1 <= now - RECENT_SECONDS:
            for tenant, seconds in buckets.popleft()[1].items():
                self._total -= seconds
                if tenant is None:
                    continue
                left = processing[tenant] - seconds
                if left > 0:
                    processing[tenant] = left
                else:
                    del processing[tenant]
        if not buckets:
            self._total = 0.0  # no float drift once the window is empty

    def noisy(self, tenant: str, inflight: int, queue_inflight: int, now: float) -> bool:
        """Whether a tenant with a backlog is noisy now (advance(now) first)."""
        if now - self._last_sent.get(tenant, now) >= QUIET_AFTER_SECONDS:
            return False
        if inflight >= NOISY_MIN_INFLIGHT and inflight * 100 > queue_inflight * NOISY_SHARE_PERCENT:
            return True
        share = self._processing.get(tenant)
        return share is not None and share * 100 > self._total * NOISY_SHARE_PERCENT

    def forget(self, tenant: str) -> None:
        """A tenant with no message left: nothing of it can make it noisy again but a new send."""
        self._last_sent.pop(tenant, None)
