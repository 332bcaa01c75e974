"""What a run measured: figure -> target label -> one result per round, and the one way to
read a number out of them (a path "figure/target/key", the key dotted into nested results)."""

from __future__ import annotations

import statistics


class Results:
    def __init__(self) -> None:
        self.rounds: dict[str, dict[str, list[dict]]] = {}

    def add(self, figure: str, label: str, result: dict) -> None:
        self.rounds.setdefault(figure, {}).setdefault(label, []).append(result)

    def runs(self, figure: str, label: str) -> list[dict]:
        return self.rounds.get(figure, {}).get(label, [])

    def labels(self, figures: tuple[str, ...]) -> list[str]:
        """Every target label that has a result in one of `figures`, in first-seen order."""
        return list(dict.fromkeys(label for figure in figures for label in self.rounds.get(figure, {})))

    def mean(self, figure: str, label: str, key: str) -> float | None:
        """The mean over rounds of `key` (dotted for nested results), rounds without it left out."""
        values = [v for v in (dig(run, key) for run in self.runs(figure, label)) if isinstance(v, int | float)]
        return statistics.mean(values) if values else None

    def spread(self, figure: str, label: str, key: str) -> tuple[float, float] | None:
        values = [v for v in (dig(run, key) for run in self.runs(figure, label)) if isinstance(v, int | float)]
        return (min(values), max(values)) if values else None

    def value(self, path: str) -> float | None:
        figure, label, key = path.split("/", 2)
        return self.mean(figure, label, key)

    def as_json(self) -> dict:
        return _json_safe(self.rounds)


def dig(result, key: str):
    for part in key.split("."):
        if not isinstance(result, dict):
            return None
        result = result.get(part, result.get(int(part)) if part.isdigit() else None)
    return result


def _json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj
