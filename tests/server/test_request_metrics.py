"""Request metrics count every request exactly, from many threads and across the folds
that keep their pending observations few (emulator/server/admin/metrics.py)."""

import threading

from prometheus_client.parser import text_string_to_metric_families

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.server.admin import metrics

PER_THREAD = 3000  # with 4 threads, many times FOLD_AT: requests fold while others append


def test_counts_and_latency_buckets_are_exact_across_threads():
    broker = Broker(ManualClock(0))
    registry_owner = metrics.Metrics(broker)

    def serve(outcome: str) -> None:
        for i in range(PER_THREAD):
            registry_owner.observe("SendMessage", outcome, 0.0002 if i % 2 else 0.3)

    threads = [threading.Thread(target=serve, args=(outcome,)) for outcome in ("ok", "ok", "ok", "QueueDoesNotExist")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    text = metrics.generate_latest(registry_owner.registry).decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    requests = {s.labels["outcome"]: s.value for s in families["sqs_requests"].samples}
    assert requests == {"ok": 3 * PER_THREAD, "QueueDoesNotExist": PER_THREAD}
    samples = families["sqs_request_duration_seconds"].samples
    buckets = {s.labels["le"]: s.value for s in samples if s.name.endswith("_bucket")}
    half = 4 * PER_THREAD / 2
    assert (buckets["0.0005"], buckets["0.25"], buckets["0.5"], buckets["+Inf"]) == (half, half, 2 * half, 2 * half)
    (total,) = [s.value for s in samples if s.name.endswith("_sum")]
    assert abs(total - half * (0.0002 + 0.3)) < 1e-6
    broker.close()
