"""The run's report: one row per scenario, agree / deviation (why, source) / disagree / bug."""

from __future__ import annotations

from collections import Counter

import boto3
import botocore

from compat_tests.oracle.deviations import CATALOGUE, GLOBAL

VERDICTS: list = []  # engine.Verdict, in test order


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _detail(v) -> str:
    if v.status == "error":
        return _cell(v.note)
    parts = []
    for s in v.steps:
        for path, a, b in s.unexplained:
            parts.append(f"step `{s.label}` `{path}`: emulator={a!r} moto={b!r}")
        for bug in s.bugs:
            parts.append(f"EMULATOR BUG at `{s.label}`: {bug}")
    if v.status in ("disagree", "bug"):
        return _cell("; ".join(([v.note] if v.note else []) + parts))
    if v.status == "deviation":
        return _cell(
            "; ".join(
                f"**{n}**: {CATALOGUE[n].why} ({CATALOGUE[n].source})"
                for n in sorted(v.deviations, key=lambda n: n in GLOBAL)
            )
        )
    return ""


def markdown() -> str:
    protocols = sorted({v.protocol for v in VERDICTS})
    counts = Counter(v.status for v in VERDICTS)
    lines = [
        "# SQS conformance oracle: emulator vs moto",
        "",
        f"Client: boto3 {boto3.__version__} / botocore {botocore.__version__}, protocol: {', '.join(protocols)}.",
        f"Scenarios: {len(VERDICTS)}. "
        + ", ".join(f"{k}: {counts.get(k, 0)}" for k in ("agree", "deviation", "disagree", "bug", "error")),
        "",
        "| scenario | verdict | why |",
        "|---|---|---|",
    ]
    for v in VERDICTS:
        lines.append(f"| {v.scenario} | {v.status} | {_detail(v)} |")
    used = sorted({n for v in VERDICTS for n in v.deviations})
    if used:
        lines += ["", "## Deviations seen (moto departs from AWS's documented behaviour)", ""]
        for n in used:
            d = CATALOGUE[n]
            lines.append(f"- **{n}**: {d.why} Source: {d.source}")
    unseen = not_seen()
    if unseen:
        lines += ["", "## Deviations allowed but not seen (moto may behave as AWS now: check, then drop them)", ""]
        lines += [f"- **{n}** (allowed by {', '.join(scenarios)})" for n, scenarios in sorted(unseen.items())]
    return "\n".join(lines)


def not_seen() -> dict[str, list[str]]:
    """The deviations each scenario that ran allows but that did not fire in it: the list's
    stale entries once moto changes (as 5.2.6 did for PurgeQueue, ListQueues, SenderFault)."""
    from compat_tests.oracle.scenarios import SCENARIOS

    scenarios = {sc.id: sc for sc in SCENARIOS}
    allowed: dict[str, list[str]] = {}
    for v in VERDICTS:
        for allow in scenarios[v.scenario].allows():
            if allow.name not in v.deviations:
                allowed.setdefault(allow.name, []).append(v.scenario)
    return allowed
