"""GET /_emulator/metrics: Prometheus text, by prometheus_client (the format's reference library).

Requests by operation and outcome (`ok` or the SQS error name) and their
latency are counted as they are served; queue depths and totals are read from
the engine at scrape time, so a scrape costs nothing between scrapes.
"""

import math
import threading
from bisect import bisect_left
from collections import deque
from itertools import accumulate

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from werkzeug.wrappers import Response

from emulator.events.poller import COUNTERS

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20)
QUEUE_LABELS = ["queue", "account", "region"]
# AWS's fair-queue metrics of a standard queue, as Prometheus gauges.
FAIR_GAUGES = (
    ("sqs_queue_noisy_groups", "ApproximateNumberOfNoisyGroups", "Fair-queue tenants that are noisy now"),
    (
        "sqs_queue_quiet_group_messages_visible",
        "ApproximateNumberOfMessagesVisibleInQuietGroups",
        "Visible messages of quiet fair-queue tenants",
    ),
    (
        "sqs_queue_quiet_group_messages_inflight",
        "ApproximateNumberOfMessagesNotVisibleInQuietGroups",
        "In-flight messages of quiet fair-queue tenants",
    ),
    (
        "sqs_queue_quiet_group_messages_delayed",
        "ApproximateNumberOfMessagesDelayedInQuietGroups",
        "Delayed messages of quiet fair-queue tenants",
    ),
    (
        "sqs_queue_quiet_group_oldest_message_age_seconds",
        "ApproximateAgeOfOldestMessageInQuietGroups",
        "Age of the oldest visible message of quiet fair-queue tenants",
    ),
)

disable_created_metrics()  # the *_created series only say when the server started


class Metrics:
    """One registry per app, so several servers in one process (the pytest plugin) keep apart."""

    def __init__(self, broker, event_sources=None):
        self.registry = CollectorRegistry(auto_describe=False)
        self._requests = _Requests()
        self.registry.register(self._requests)
        self.registry.register(_Queues(broker))
        if event_sources is not None:
            self.registry.register(_EventSources(event_sources))
        self.registry.register(_Waits(broker.waits))
        # observe(operation, outcome, seconds): a request served. The requests' own method, not one
        # that calls it: a call less on every request.
        self.observe = self._requests.observe


class _Requests:
    """Requests by operation and outcome, and their latency.

    A request only appends its tuple to a deque (atomic, no lock: prometheus_client's
    counter and histogram took a lock each, ~4 us a request); the tuples are added up
    at scrape time, or by the request that finds FOLD_AT of them waiting, so memory stays small.
    FOLD_AT is small because what waits outlives the requests around it: 4,096 tuples and floats
    made during a drain pinned ~10 MiB of pymalloc arenas the process could not give back.
    """

    FOLD_AT = 64
    _BOUNDS = (*LATENCY_BUCKETS, math.inf)

    def __init__(self):
        self._pending: deque[tuple[str, str, float]] = deque()
        self._folding = threading.Lock()  # one adder at a time; requests never wait on it
        self._counts: dict[tuple[str, str], int] = {}
        self._latency: dict[str, list] = {}  # operation -> a count per bound, then the sum

    def observe(self, operation: str, outcome: str, seconds: float) -> None:
        self._pending.append((operation, outcome, seconds))
        if len(self._pending) >= self.FOLD_AT and self._folding.acquire(blocking=False):
            try:
                self._fold()
            finally:
                self._folding.release()

    def _fold(self) -> None:
        pending, counts, latency = self._pending, self._counts, self._latency
        while pending:
            operation, outcome, seconds = pending.popleft()  # only the folder pops: never empty here
            counts[operation, outcome] = counts.get((operation, outcome), 0) + 1
            record = latency.get(operation)
            if record is None:
                record = latency[operation] = [0] * len(self._BOUNDS) + [0.0]
            record[bisect_left(self._BOUNDS, seconds)] += 1  # the first bound >= seconds
            record[-1] += seconds

    def collect(self):
        requests = CounterMetricFamily(
            "sqs_requests", "SQS requests served, by operation and outcome", labels=["operation", "outcome"]
        )
        latency = HistogramMetricFamily(
            "sqs_request_duration_seconds", "Time to serve an SQS request", labels=["operation"]
        )
        with self._folding:
            self._fold()
            for labels, count in self._counts.items():
                requests.add_metric(list(labels), count)
            for operation, record in self._latency.items():
                cumulative = list(accumulate(record[:-1]))
                buckets = [(_le(b), n) for b, n in zip(self._BOUNDS, cumulative, strict=True)]
                latency.add_metric([operation], buckets, record[-1])
        yield requests
        yield latency


class _Queues:
    def __init__(self, broker, event_sources=None):
        self._broker = broker

    def collect(self):
        depth = GaugeMetricFamily(
            "sqs_queue_messages", "Messages in a queue, by state", labels=[*QUEUE_LABELS, "state"]
        )
        events = CounterMetricFamily(
            "sqs_queue_events",
            "What happened to a queue's messages since it was created",
            labels=[*QUEUE_LABELS, "event"],
        )
        fair = [(GaugeMetricFamily(name, text, labels=QUEUE_LABELS), key) for name, key, text in FAIR_GAUGES]
        for queue in self._broker.all_queues():
            labels = [queue.name, queue.account, queue.region]
            if not queue.fifo:
                metrics = queue.fair_metrics()
                for family, key in fair:
                    family.add_metric(labels, metrics[key])
            counts = queue.counts()
            for state, key in (
                ("visible", "ApproximateNumberOfMessages"),
                ("inflight", "ApproximateNumberOfMessagesNotVisible"),
                ("delayed", "ApproximateNumberOfMessagesDelayed"),
            ):
                depth.add_metric([*labels, state], counts[key])
            for event, total in queue.stats.as_dict().items():
                events.add_metric([*labels, event], total)
        yield depth
        yield events
        for family, _ in fair:
            yield family


class _EventSources:
    """Each event source mapping's counters (emulator/events/poller.py), read at scrape time."""

    def __init__(self, event_sources):
        self._event_sources = event_sources

    def collect(self):
        events = CounterMetricFamily(
            "sqs_event_source_events",
            "What an event source mapping did since it was created",
            labels=["mapping", *QUEUE_LABELS, "event"],
        )
        in_flight = GaugeMetricFamily(
            "sqs_event_source_invocations_in_flight",
            "Invocations of an event source mapping's target running now",
            labels=["mapping", *QUEUE_LABELS],
        )
        for mapping in self._event_sources.all():
            labels = [mapping.id, mapping.queue.name, mapping.queue.account, mapping.queue.region]
            counters = mapping.stats.as_dict()
            for event in COUNTERS:
                events.add_metric([*labels, event], counters[event])
            in_flight.add_metric(labels, counters["in_flight"])
        yield events
        yield in_flight
        pool = self._event_sources.invokers.as_dict()
        threads = GaugeMetricFamily("sqs_event_source_invoker_threads", "Threads of the process's invocation pool")
        threads.add_metric([], pool["threads"])
        waiting = GaugeMetricFamily(
            "sqs_event_source_invocations_waiting", "Invocations waiting for a thread of the pool now"
        )
        waiting.add_metric([], pool["waiting"])
        waited = CounterMetricFamily(
            "sqs_event_source_invocations_waited", "Invocations that found every thread of the pool busy"
        )
        waited.add_metric([], pool["waited"])
        yield from (threads, waiting, waited)


def response(app) -> Response:
    return Response(generate_latest(app.metrics.registry), content_type=CONTENT_TYPE_LATEST)


class _Waits:
    """Long polls waiting now, and those answered empty because --max-waits were already waiting."""

    def __init__(self, waits):
        self._waits = waits

    def collect(self):
        waiting = GaugeMetricFamily("sqs_long_polls_waiting", "Long polls waiting now")
        waiting.add_metric([], self._waits.waiting)
        refused = CounterMetricFamily(
            "sqs_long_polls_refused", "Long polls answered empty at once because the cap of waits was reached"
        )
        refused.add_metric([], self._waits.refused)
        yield waiting
        yield refused


def _le(bound: float) -> str:
    """A bucket's bound as the text format writes it (the client's own examples: "0.005", "+Inf")."""
    return "+Inf" if bound == math.inf else repr(float(bound))
