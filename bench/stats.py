"""The few statistics the figures share."""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The value at fraction `q` of the sorted values (nearest rank, no interpolation)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def growth(by_depth: dict[int, float | None], again: float | None = None) -> float | None:
    """The figure at the largest depth over the figure at the smallest (averaged with `again`,
    the smallest measured once more at the end: the machine's load drifts over a minute)."""
    if len(by_depth) < 2:
        return None
    low, high = by_depth[min(by_depth)], by_depth[max(by_depth)]
    if low is None or high is None:
        return None
    if again is not None:
        low = (low + again) / 2
    return high / low if low else None
