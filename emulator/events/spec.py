"""A mapping's settings, checked as Lambda checks an SQS event source mapping's.

Sources (Lambda Developer Guide): "Lambda parameters for Amazon SQS event source
mappings" (BatchSize 1 to 10,000, FIFO 10; default 10; no batching window on a
FIFO queue), the CreateEventSourceMapping reference (MaximumBatchingWindowInSeconds
0 to 300; a BatchSize over 10 needs a window of at least 1 s), "Configuring scaling
behavior for SQS event source mappings" (MaximumConcurrency 2 to 1,000), "Control
which events Lambda sends to your function" (five filters by default), and
"Using Lambda with Amazon SQS" (the queue's visibility timeout must be at least
the function's timeout).
"""

from dataclasses import dataclass, replace
from typing import Any

from emulator.events import targets
from emulator.events.filters import Pattern

MAX_BATCH_SIZE = 10_000
MAX_FIFO_BATCH_SIZE = 10
MAX_BATCHING_WINDOW = 300
MIN_CONCURRENCY, MAX_CONCURRENCY = 2, 1000
MAX_FILTERS = 5  # Lambda's default quota
DEFAULT_TIMEOUT = 3  # seconds: a Lambda function's default timeout
MAX_TIMEOUT = 900
MAX_PAYLOAD_BYTES = targets.MAX_PAYLOAD_BYTES  # the event's limit is the answer's too

FIELDS = (
    "target",
    "batch_size",
    "batching_window_seconds",
    "report_batch_item_failures",
    "maximum_concurrency",
    "filters",
    "enabled",
    "timeout_seconds",
)


class MappingError(ValueError):
    """A field's value is refused; str() names the field."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class MappingSpec:
    target: targets.Target
    batch_size: int = 10
    batching_window_seconds: int = 0
    report_batch_item_failures: bool = False
    maximum_concurrency: int | None = None  # None: Lambda's five concurrent batches (poller.py)
    filters: tuple[Pattern, ...] = ()
    enabled: bool = True
    timeout_seconds: int = DEFAULT_TIMEOUT

    def as_dict(self) -> dict:
        return {
            "target": self.target.describe(),
            "batch_size": self.batch_size,
            "batching_window_seconds": self.batching_window_seconds,
            "report_batch_item_failures": self.report_batch_item_failures,
            "maximum_concurrency": self.maximum_concurrency,
            "filters": [pattern.source for pattern in self.filters],
            "enabled": self.enabled,
            "timeout_seconds": self.timeout_seconds,
        }


def parse(fields: dict, queue, base: MappingSpec | None = None, remote: bool = False) -> MappingSpec:
    """The settings `fields` give (over `base`'s, for a change) for a mapping on `queue`.
    Raises MappingError naming the first bad field. `remote`: the fields came over HTTP
    (whoever may give code targets so has been checked, emulator/server/admin/event_sources.py),
    so a module target is found without importing anything (targets.py)."""
    unknown = sorted(fields.keys() - set(FIELDS))
    if unknown:
        raise MappingError(unknown[0], f"is not a field of a mapping (known: queue, {', '.join(FIELDS)})")
    if base is None:
        if "target" not in fields:
            raise MappingError("target", "is required: a URL, 'package.module:function' or a command list")
        base = MappingSpec(target=_target(fields["target"], remote))
    changes: dict[str, Any] = {}
    if "target" in fields:
        changes["target"] = _target(fields["target"], remote)
    if "batch_size" in fields:
        changes["batch_size"] = _integer(fields, "batch_size", 1, MAX_BATCH_SIZE)
    if "batching_window_seconds" in fields:
        changes["batching_window_seconds"] = _integer(fields, "batching_window_seconds", 0, MAX_BATCHING_WINDOW)
    for name in ("report_batch_item_failures", "enabled"):
        if name in fields:
            if not isinstance(fields[name], bool):
                raise MappingError(name, "must be true or false")
            changes[name] = fields[name]
    if "maximum_concurrency" in fields:
        concurrency = fields["maximum_concurrency"]
        changes["maximum_concurrency"] = (
            None if concurrency is None else _integer(fields, "maximum_concurrency", MIN_CONCURRENCY, MAX_CONCURRENCY)
        )
    if "filters" in fields:
        changes["filters"] = _filters(fields["filters"])
    if "timeout_seconds" in fields:
        changes["timeout_seconds"] = _integer(fields, "timeout_seconds", 1, MAX_TIMEOUT)
    spec = replace(base, **changes)
    _check_against_queue(spec, queue)
    return spec


def _check_against_queue(spec: MappingSpec, queue) -> None:
    if queue.fifo:
        if spec.batch_size > MAX_FIFO_BATCH_SIZE:
            raise MappingError("batch_size", f"must be from 1 to {MAX_FIFO_BATCH_SIZE} for a FIFO queue")
        if spec.batching_window_seconds:
            raise MappingError("batching_window_seconds", "is not supported for FIFO queues")
    elif spec.batch_size > 10 and spec.batching_window_seconds < 1:
        raise MappingError("batching_window_seconds", "must be at least 1 when batch_size is greater than 10")
    if queue.visibility_timeout < spec.timeout_seconds:
        raise MappingError(
            "timeout_seconds",
            f"Queue visibility timeout: {queue.visibility_timeout} seconds is less than "
            f"Function timeout: {spec.timeout_seconds} seconds",
        )


def _integer(fields: dict, name: str, low: int, high: int) -> int:
    value = fields[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise MappingError(name, f"must be an integer from {low} to {high}")
    if not low <= value <= high:
        raise MappingError(name, f"must be from {low} to {high}, not {value}")
    return value


def _target(value, remote: bool) -> targets.Target:
    try:
        return targets.parse(value, remote)
    except ValueError as problem:
        raise MappingError("target", str(problem)) from None


def _filters(value) -> tuple[Pattern, ...]:
    if not isinstance(value, (list, tuple)):
        raise MappingError("filters", "must be a list of patterns")
    if len(value) > MAX_FILTERS:
        raise MappingError("filters", f"at most {MAX_FILTERS} filters per mapping (Lambda's default quota)")
    parsed = []
    for number, pattern in enumerate(value):
        try:
            parsed.append(Pattern.parse(pattern))
        except ValueError as problem:
            raise MappingError(f"filters[{number}]", str(problem)) from None
    return tuple(parsed)
