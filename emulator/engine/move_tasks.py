"""Message move tasks: redrive a dead-letter queue's messages at a set rate.

A task moves its batch for each second on the engine's scheduler, so on the
manual clock a test advances time to let it run.
"""

import base64
import json
import uuid
from collections.abc import Callable

from emulator.engine.clock import Clock
from emulator.engine.journal import NO_JOURNAL, Journal
from emulator.engine.message import Message
from emulator.engine.queue import Queue
from emulator.engine.scheduler import Scheduler

RUNNING, COMPLETED, CANCELLED, FAILED = "RUNNING", "COMPLETED", "CANCELLED", "FAILED"
NO_DESTINATION = "AWS.SimpleQueueService.NonExistentQueue"


class MoveTask:
    def __init__(
        self,
        source: Queue,
        destination_arn: str | None,
        rate: int | None,
        find_queue: Callable[[str], Queue | None],
        clock: Clock,
        scheduler: Scheduler,
        journal: Journal = NO_JOURNAL,
    ):
        self.source = source
        self.journal = journal
        self.destination_arn = destination_arn
        self.rate = rate
        self._find_queue = find_queue
        self._clock = clock
        self._scheduler = scheduler
        self.handle = base64.b64encode(
            json.dumps({"taskId": str(uuid.uuid4()), "sourceArn": source.arn}).encode()
        ).decode()
        self.status = RUNNING
        self.failure_reason: str | None = None
        self.moved = 0
        self.to_move = source.counts()["ApproximateNumberOfMessages"]
        self.started_at = self._due = clock.now()

    @classmethod
    def restored(
        cls,
        source: Queue,
        state: dict,
        find_queue: Callable[[str], Queue | None],
        clock: Clock,
        scheduler: Scheduler,
        journal: Journal,
    ) -> "MoveTask":
        """A task from its state(); a running one takes its next step at its due time."""
        task = cls.__new__(cls)
        task.source, task.journal = source, journal
        task._find_queue, task._clock, task._scheduler = find_queue, clock, scheduler
        for name in ("handle", "destination_arn", "rate", "status", "failure_reason", "moved", "to_move", "started_at"):
            setattr(task, name, state[name])
        task._due = state["due"]
        if task.status == RUNNING:
            scheduler.call_at(task._due, task._step)
        return task

    def state(self) -> dict:
        """Everything a store needs to bring the task back (restored())."""
        return {
            "handle": self.handle,
            "destination_arn": self.destination_arn,
            "rate": self.rate,
            "status": self.status,
            "failure_reason": self.failure_reason,
            "moved": self.moved,
            "to_move": self.to_move,
            "started_at": self.started_at,
            "due": self._due,
        }

    def start(self) -> None:
        self._step()

    def cancel(self) -> None:
        self.status = CANCELLED
        self.journal.task_saved(self)

    def _destination(self, message: Message) -> Queue | None:
        # Without a DestinationArn, each message goes back to the queue it was dead-lettered from.
        arn = self.destination_arn or message.dead_letter_source
        return self._find_queue(arn) if arn else None

    def _step(self) -> None:
        if self.status != RUNNING:
            return
        remaining = self.to_move - self.moved
        moved, failed = self.source.move_out(min(remaining, self.rate or remaining), self._destination)
        self.moved += moved
        if failed:
            self.status, self.failure_reason = FAILED, NO_DESTINATION
        elif (
            self.moved >= self.to_move or self.source.deleted or not self.source.counts()["ApproximateNumberOfMessages"]
        ):
            self.status = COMPLETED
        else:
            # From the last deadline, not from now: a clock that jumps several
            # seconds runs one step for each of them.
            self._due += 1
            self._scheduler.call_at(self._due, self._step)
        self.journal.task_saved(self)

    def describe(self) -> dict:
        entry = {
            "Status": self.status,
            "SourceArn": self.source.arn,
            "ApproximateNumberOfMessagesMoved": self.moved,
            "ApproximateNumberOfMessagesToMove": self.to_move,
            "StartedTimestamp": int(self.started_at * 1000),
        }
        if self.status == RUNNING:
            entry["TaskHandle"] = self.handle
        if self.destination_arn:
            entry["DestinationArn"] = self.destination_arn
        if self.rate is not None:
            entry["MaxNumberOfMessagesPerSecond"] = self.rate
        if self.failure_reason:
            entry["FailureReason"] = self.failure_reason
        return entry
