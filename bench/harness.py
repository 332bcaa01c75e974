"""Rounds of the pyperf programs (bench/figures/inprocess.py, bench/figures/engine.py),
alternated across checkouts: this one, --baseline's, this one, ...

pyperf controls what happens inside a round: it spawns fresh worker processes,
calibrates the loops to a minimum time, runs warm-up values it then drops, and
keeps every value. The programs time with the process's CPU clock, not the wall
clock (the machines are shared): a value is CPU seconds per operation. What this
module adds is the alternation (one checkout's rounds never all land in the same
minute of someone else's load) and the merge of every round into one benchmark.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import pyperf

from bench.processes import Checkout, run_pyperf


@dataclass(frozen=True)
class Rounds:
    rounds: int  # alternated pyperf runs per checkout
    processes: int  # worker processes per run
    values: int  # timed values per process
    warmups: int  # values per process run first and dropped
    loops: int  # operations per value; 0: pyperf calibrates them (to 100 ms of CPU)

    def pyperf_args(self) -> list[str]:
        return [
            f"--processes={self.processes}",
            f"--values={self.values}",
            f"--warmups={self.warmups}",
            f"--loops={self.loops}",
        ]


def alternated(module: str, checkouts: dict[str, Checkout], rounds: Rounds) -> dict[str, dict[str, dict]]:
    """{checkout label: {benchmark name: summary}}, every round of a checkout merged.
    A summary's times are CPU seconds per operation."""
    merged: dict[str, dict[str, pyperf.Benchmark]] = {label: {} for label in checkouts}
    with tempfile.TemporaryDirectory(prefix="sqs-bench-pyperf-") as folder:
        for number in range(rounds.rounds):
            for label, checkout in checkouts.items():
                output = Path(folder) / f"{label}-{number}.json"
                run_pyperf(module, rounds.pyperf_args(), output, checkout)
                for benchmark in pyperf.BenchmarkSuite.load(str(output)).get_benchmarks():
                    name = benchmark.get_name()
                    if name in merged[label]:
                        merged[label][name].add_runs(benchmark)
                    else:
                        merged[label][name] = benchmark
    return {label: {name: summary(b) for name, b in benchmarks.items()} for label, benchmarks in merged.items()}


def summary(benchmark: pyperf.Benchmark) -> dict:
    values = benchmark.get_values()
    loads = [run.get_metadata().get("load_avg_1min") for run in benchmark.get_runs()]
    loads = [load for load in loads if load is not None]
    return {
        "median_s": benchmark.median(),
        "mean_s": benchmark.mean(),
        "stdev_s": benchmark.stdev() if len(values) > 1 else 0.0,
        "values": len(values),
        "runs": len(benchmark.get_runs()),
        "load_avg_1min": max(loads) if loads else None,
    }
