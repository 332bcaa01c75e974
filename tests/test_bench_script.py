"""scripts/bench.py's figures without a server, at tiny sizes, and its verdicts.

The benchmark builds engine messages and calls the app the way the emulator does
today; these keep it in step when either changes (a run that fails after 10
minutes is a poor way to learn it), and check that a target is judged the way the
issues word it.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import bench
import bench_local


def test_engine_triples_are_counted_per_cpu_second():
    figure = bench_local.engine_triples(200)
    assert figure["triples"] == 200
    assert figure["triples_per_s_batch10"] > 0
    assert figure["triples_per_s_single"] > 0
    assert figure["queue_Queue_put_get_per_s"] > 0


def test_depth_rounds_keep_the_queue_at_its_depth_in_every_kind():
    figures = bench_local.depth_figure([50, 200], rounds=20, report=lambda line: None)
    steps = ("50", "200", "50#again")  # the smallest depth again at the end, after a purge and a refill
    assert sorted(figures) == sorted(f"{kind}@{step}" for kind, _ in bench_local.KINDS for step in steps)
    for figure in figures.values():
        assert figure["requests"] == 60  # send, receive, delete per round: every receive found a message
        assert figure["receive_cpu_us"] > 0 and figure["p50_us"] <= figure["p99_us"]


def test_tracemalloc_counts_the_queued_messages():
    figure = bench_local.tracemalloc_per_message(500)
    assert figure["messages"] == 500
    assert figure["bytes_per_msg"] > len(bench_local.BODY)  # the body alone is kept
    assert figure["by_line"]


def _verdicts(local: dict, results: dict) -> dict[str, str]:
    args = bench.parse_args(["--quick", "--depths", "1000,1000000", "--local-depths", "1000,1000000"])
    args.drain_count, args.heartbeats = 200_000, 100_000
    return {figure: target for figure, _, target in bench.verdicts(local, results, ["emulator", "floor"], args)}


def test_each_target_is_judged_as_the_issue_words_it():
    local = {
        "engine": {"triples_per_s_batch10": 250_000, "triples_per_s_single": 150_000},
        "tracemalloc": {"bytes_per_msg": 600},
        "local_depth": {
            "standard@1000": {"receive_cpu_us": 100, "p99_cpu_us": 300, "p99_us": 400},
            "standard@1000000": {"receive_cpu_us": 121, "p99_cpu_us": 600, "p99_us": 700},
        },
    }
    results = {
        "send": {"emulator": [{"cpu_us_per_msg": 500}, {"cpu_us_per_msg": 520}], "floor": [{"cpu_us_per_msg": 410}]},
        "rss_heartbeat": {"emulator": [{"growth_mib": 16.0}]},
        "rss_drain": {"emulator": [{"growth_mib": 31.9}]},
        "long_poll": {"emulator": [{"p99_ms": 0.99}]},
    }
    verdicts = _verdicts(local, results)
    assert verdicts["engine triples/s, batches of 10"].endswith(": met")
    assert verdicts["engine triples/s, one at a time"].endswith(": NOT MET")
    assert verdicts["tracemalloc bytes per queued 256-byte message"].endswith(": met")  # at most 600
    assert verdicts["in-process standard: receive CPU (median) @ 1,000,000 / @ 1,000"].endswith(": NOT MET")  # 1.21x
    assert verdicts["in-process standard: request p99 CPU @ 1,000,000 / @ 1,000"].endswith(": met")  # 2x
    assert verdicts["in-process standard: request p99 wall @ 1,000,000 / @ 1,000"].endswith(": met")  # 1.75x
    assert verdicts["server CPU per SendMessage, emulator / floor"].endswith(": met")  # 510 / 410 = 1.24x
    assert verdicts["server emulator RSS growth after 100,000 ChangeMessageVisibility and a delete"].endswith(
        ": NOT MET"  # less than 16
    )
    assert verdicts["server emulator RSS growth after 200,000 drained and the queue deleted"].endswith(": met")
    assert verdicts["long-poll wake p99 (emulator)"].endswith(": met")
    assert verdicts["server CPU per message in batches of 10, emulator / fauxqs"].endswith(": not measured")


class _NoConnection:
    def __init__(self, server):
        pass

    def close(self):
        pass


@pytest.mark.parametrize("count", [1, 7, 10, 200_001])
def test_a_fill_is_split_over_its_threads_without_losing_a_message(count, monkeypatch):
    monkeypatch.setattr(bench, "Wire", _NoConnection)
    shares = []

    def work(wire, share, thread):
        shares.append(share)
        return share

    assert bench.in_threads(None, count, work) == count
    assert sum(shares) == count and max(shares) - min(shares) <= 1
