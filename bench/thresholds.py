"""The targets of the performance issues, read from bench/thresholds.toml, and their verdicts
on a run's results. The data file says what is judged; this module only reads and compares."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from bench.results import Results

THRESHOLDS = Path(__file__).resolve().parent / "thresholds.toml"
COMPARISONS = {"at_least": ">=", "at_most": "<=", "below": "<"}
KEYS = {"issue", "says", "value", "over", "otherwise", "unit", "judged_from", "retired"}


@dataclass(frozen=True)
class Threshold:
    issue: str  # the issue that set it, or several: "32, 37"
    says: str
    value: str  # "figure/target/key"
    comparison: str  # a key of COMPARISONS
    limit: float
    over: str | None = None
    otherwise: float | None = None
    unit: str = ""
    judged_from: tuple[str, float] | None = None
    retired: bool = False

    def met(self, figure: float) -> bool:
        if self.comparison == "at_least":
            return figure >= self.limit
        if self.comparison == "at_most":
            return figure <= self.limit
        return figure < self.limit

    def figure(self, results: Results) -> float | None:
        """The number judged: the value, or its ratio to `over` (to `otherwise` when not measured)."""
        value = results.value(self.value)
        if self.over is None or value is None:
            return value
        over = results.value(self.over)
        if over is None:
            over = self.otherwise
        return value / over if over else None


@dataclass(frozen=True)
class Verdict:
    threshold: Threshold
    figure: float | None
    verdict: str  # met, NOT MET, not measured, not judged at this size, retired


def load(path: Path = THRESHOLDS) -> list[Threshold]:
    with open(path, "rb") as f:
        entries = tomllib.load(f)["target"]
    out = []
    for entry in entries:
        comparisons = [key for key in COMPARISONS if key in entry]
        if len(comparisons) != 1:
            raise ValueError(f"{path}: {entry.get('says')!r} needs exactly one of {', '.join(COMPARISONS)}")
        unknown = set(entry) - set(COMPARISONS) - KEYS
        if unknown:
            raise ValueError(f"{path}: {entry.get('says')!r} has unknown keys {sorted(unknown)}")
        judged_from = entry.get("judged_from")
        out.append(
            Threshold(
                issue=", ".join(str(i) for i in entry["issue"])
                if isinstance(entry["issue"], list)
                else str(entry["issue"]),
                says=entry["says"],
                value=entry["value"],
                comparison=comparisons[0],
                limit=float(entry[comparisons[0]]),
                over=entry.get("over"),
                otherwise=entry.get("otherwise"),
                unit=entry.get("unit", "x" if "over" in entry else ""),
                judged_from=(judged_from[0], float(judged_from[1])) if judged_from else None,
                retired=entry.get("retired", False),
            )
        )
    return out


def judge(thresholds: list[Threshold], results: Results) -> list[Verdict]:
    out = []
    for threshold in thresholds:
        figure = threshold.figure(results)
        if threshold.retired:
            verdict = "retired: no verdict"
        elif figure is None:
            verdict = "not measured"
        elif threshold.judged_from and (results.value(threshold.judged_from[0]) or 0) < threshold.judged_from[1]:
            verdict = "not judged at this size"
        else:
            verdict = "met" if threshold.met(figure) else "NOT MET"
        out.append(Verdict(threshold, figure, verdict))
    return out
