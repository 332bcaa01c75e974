"""GET /_emulator/metrics: Prometheus text, by prometheus_client (the format's reference library).

Requests by operation and outcome (`ok` or the SQS error name) and their
latency are counted as they are served; queue depths and totals are read from
the engine at scrape time, so a scrape costs nothing between scrapes.
"""

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from werkzeug.wrappers import Response

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20)
QUEUE_LABELS = ["queue", "account", "region"]

disable_created_metrics()  # the *_created series only say when the server started


class Metrics:
    """One registry per app, so several servers in one process (the pytest plugin) keep apart."""

    def __init__(self, broker):
        self.registry = CollectorRegistry(auto_describe=False)
        self._requests = Counter(
            "sqs_requests",
            "SQS requests served, by operation and outcome",
            ["operation", "outcome"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "sqs_request_duration_seconds",
            "Time to serve an SQS request",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_Queues(broker))
        self.registry.register(_Waits(broker.waits))
        self._children: dict[tuple[str, str], tuple] = {}

    def observe(self, operation: str, outcome: str, seconds: float) -> None:
        children = self._children.get((operation, outcome))
        if children is None:  # labels() is the slow part: look each pair up once
            children = (self._requests.labels(operation, outcome), self._latency.labels(operation))
            self._children[(operation, outcome)] = children
        children[0].inc()
        children[1].observe(seconds)


class _Queues:
    def __init__(self, broker):
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
        for queue in self._broker.all_queues():
            labels = [queue.name, queue.account, queue.region]
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
