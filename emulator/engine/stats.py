"""What happened to a queue since it was created: the admin API's totals."""

from dataclasses import asdict, dataclass


@dataclass(slots=True)
class QueueStats:
    sent: int = 0
    received: int = 0
    deleted: int = 0
    dead_lettered: int = 0  # moved out to the dead-letter queue
    moved_in: int = 0  # arrived from another queue: dead letters, and messages a move task moved
    expired: int = 0  # removed by the retention period
    stale_receipts: int = 0  # handles used after their receive ended (a newer receive, visibility over, message gone)
    # Injected faults (faults.py)
    duplicate_deliveries: int = 0
    lost_deletes: int = 0
    delayed_visibilities: int = 0
    injected_errors: int = 0  # calls and batch entries answered with an error by rule (error_rules.py)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
