"""Many queues per account and region, one clock and one scheduler for all.

The broker answers the questions that span queues: ARNs, dead-letter
targets and sources, move tasks, and AWS's 60-second lifecycle rules.
"""

import threading
from collections.abc import Callable
from typing import TypeVar

from emulator import limits
from emulator.engine import history, redrive
from emulator.engine.clock import Clock, ManualClock, RealClock
from emulator.engine.error_rules import ErrorRules
from emulator.engine.faults import FaultPolicy
from emulator.engine.fifo import FifoQueue
from emulator.engine.journal import NO_JOURNAL, Journal
from emulator.engine.move_tasks import RUNNING, MoveTask
from emulator.engine.observer import BrokerObserver
from emulator.engine.queue import Queue
from emulator.engine.scheduler import HeapScheduler
from emulator.engine.standard import StandardQueue
from emulator.engine.waits import DEFAULT_MAX_WAITS, Waits
from emulator.errors import SqsError, invalid_parameter, queue_does_not_exist

T = TypeVar("T")


class Broker:
    def __init__(
        self,
        clock: Clock | None = None,
        purge_cooldown: float = limits.PURGE_COOLDOWN_SECONDS,
        recreate_cooldown: float = limits.RECREATE_COOLDOWN_SECONDS,
        receipts: str = "aws",
        journal: Journal = NO_JOURNAL,
        max_waits: int = DEFAULT_MAX_WAITS,
        observer: BrokerObserver | None = None,
        loose_seed: int | None = None,
        histories: int = 0,
    ):
        self.clock = clock or RealClock()
        self.waits = Waits(max_waits)  # long polls waiting now, against their cap
        self.journal = journal
        self.receipts = receipts  # what an earlier receipt handle may do on a standard queue (receipts.py)
        # Not None: every standard queue starts loose (loose.py), its policy seeded with it.
        self.loose_seed = loose_seed
        self.scheduler = HeapScheduler(self.clock)
        self.purge_cooldown = purge_cooldown
        self.histories = histories  # each queue keeps the stories of this many messages (history.py); 0: none
        self.recreate_cooldown = recreate_cooldown
        # AWS's errors by rule and KMS keys' states (error_rules.py), None while none is set; errors() changes them.
        self.error_rules: ErrorRules | None = None
        self._queues: dict[tuple[str, str, str], Queue] = {}
        self._deleted_at: dict[tuple[str, str, str], float] = {}
        self._move_tasks: dict[str, list[MoveTask]] = {}  # by source ARN, most recent first
        self._lock = threading.Lock()
        self._observer = observer or BrokerObserver()  # the program's policies (observer.py)
        self._on_sent = None if observer is None else observer.messages_sent  # a send tests it, no call
        if isinstance(self.clock, ManualClock):  # no thread: due callbacks run when it is advanced
            self.clock.on_advance(self._time_moved)
        else:
            self.scheduler.start()

    def __repr__(self) -> str:
        return f"<Broker {len(self._queues)} queues, {type(self.clock).__name__} at {self.clock.now():.3f}>"

    def close(self) -> None:
        """Stop time and release long polls; a store keeps what it has (nothing is journaled)."""
        self.scheduler.stop()
        with self._lock:
            queues = list(self._queues.values())
        for queue in queues:
            queue.close()

    def reset(self) -> None:
        """Forget every queue, task, cooldown, error rule and KMS key state."""
        with self._lock:
            queues = list(self._queues.values())
            self._queues.clear()
            self._deleted_at.clear()
            for tasks in self._move_tasks.values():
                for task in tasks:
                    task.cancel()
            self._move_tasks.clear()
            self.journal.reset()
            self.error_rules = None
        for queue in queues:
            queue.close()
        self._observer.queues_gone()

    def errors(self, change: Callable[[ErrorRules], T]) -> T:
        """Change the error rules and KMS keys' states (error_rules.py) under the broker's lock:
        made on first use and dropped once empty, so that a call while none is set pays one
        attribute test. Returns what `change` does."""
        with self._lock:
            rules = self.error_rules or ErrorRules()
            try:
                return change(rules)
            finally:
                self.error_rules = rules if rules else None

    # -- queues -------------------------------------------------------------

    def create_queue(
        self, account: str, region: str, name: str, attributes: dict[str, str], tags: dict[str, str] | None = None
    ) -> tuple[Queue, bool]:
        """Return (queue, created). An existing queue with other attribute values is QueueNameExists."""
        key = (account, region, name)
        with self._lock:
            queue = self._queues.get(key)
            if queue is not None:
                differing = queue.differing_attribute(attributes)
                if differing:
                    raise SqsError(
                        "QueueNameExists",
                        f"A queue already exists with the same name and a different value for attribute {differing}",
                    )
                return queue, False
            deleted_at = self._deleted_at.get(key)
            if self.recreate_cooldown and deleted_at is not None:
                if self.clock.now() - deleted_at < self.recreate_cooldown:
                    raise SqsError(
                        "QueueDeletedRecently",
                        f"You must wait {self.recreate_cooldown:g} seconds after deleting a queue before you can "
                        "create another with the same name.",
                    )
                del self._deleted_at[key]
            kind = FifoQueue if attributes.get("FifoQueue", "").lower() == "true" else StandardQueue
            self._check_dead_letter_target(f"arn:aws:sqs:{region}:{account}:{name}", kind.fifo, attributes)
            queue = self._new_queue(kind, account, region, name, attributes)
            queue.tags.update(tags or {})
            self._queues[key] = queue
            self.journal.queue_saved(queue)
            return queue, True

    def _new_queue(self, kind: type[Queue], account: str, region: str, name: str, attributes: dict[str, str]) -> Queue:
        queue = kind(
            account,
            region,
            name,
            attributes,
            self.clock,
            self.scheduler,
            self.queue_by_arn,
            self.receipts,
            self.journal,
            self._on_sent,
            self.histories,
        )
        if self.loose_seed is not None and not queue.fifo:
            queue.faults = FaultPolicy(loose=True, seed=self.loose_seed)
        return queue

    def set_attributes(self, queue: Queue, attributes: dict[str, str]) -> None:
        with self._lock:
            self._check_dead_letter_target(queue.arn, queue.fifo, attributes)
        queue.set_attributes(attributes)

    def get_queue(self, account: str, region: str, name: str) -> Queue:
        queue = self._queues.get((account, region, name))
        if queue is None:
            raise queue_does_not_exist()
        return queue

    def queue_by_arn(self, arn: str) -> Queue | None:
        match = redrive.ARN.fullmatch(arn)
        if not match:
            return None
        region, account, name = match.groups()
        return self._queues.get((account, region, name))

    def delete_queue(self, queue: Queue) -> None:
        key = (queue.account, queue.region, queue.name)
        with self._lock:
            if self._queues.get(key) is queue:
                del self._queues[key]
                self._deleted_at[key] = self.clock.now()
                self.journal.queue_deleted(queue, self._deleted_at[key])
        queue.close()
        self._observer.queues_gone()

    def all_queues(self) -> list[Queue]:
        """Every queue of every account and region (the admin API's view)."""
        with self._lock:
            return list(self._queues.values())

    def queues(self, account: str, region: str) -> list[Queue]:
        with self._lock:
            return [q for (a, r, _), q in self._queues.items() if a == account and r == region]

    def dead_letter_sources(self, queue: Queue) -> list[Queue]:
        """Queues whose RedrivePolicy names this queue."""
        return [q for q in self.queues(queue.account, queue.region) if q.redrive and q.redrive.target_arn == queue.arn]

    def _check_dead_letter_target(self, source_arn: str, source_fifo: bool, attributes: dict[str, str]) -> None:
        """A RedrivePolicy must name an existing queue of the same type, account and region that allows this source."""
        if not attributes.get("RedrivePolicy"):
            return
        text = attributes["RedrivePolicy"]
        policy = redrive.parse_redrive_policy(text)
        target_arn = redrive.ARN.fullmatch(policy.target_arn)
        source = redrive.ARN.fullmatch(source_arn)
        # parse_redrive_policy checked the target's ARN; the source's is a queue's own.
        assert target_arn is not None and source is not None
        target_region, target_account = target_arn.groups()[:2]
        source_region, source_account = source.groups()[:2]
        target = self.queue_by_arn(policy.target_arn)
        reason = None
        if target_account != source_account:
            reason = "Dead-letter target owner should be same as the source."
        elif target_region != source_region:
            reason = "Dead-letter target must be in same region as the source."
        elif target is None:
            reason = "Dead letter target does not exist."
        elif target.fifo != source_fifo:
            reason = "Dead-letter queue must be same type of queue as the source.."  # AWS's double period
        elif target.redrive_allow and not target.redrive_allow.allows(source_arn):
            reason = (
                f"Queue {source_arn} is not allowed to use {target.arn} as its dead-letter queue by the "
                "queue's RedriveAllowPolicy."
            )
        if reason:
            raise invalid_parameter(f"Value {text} for parameter RedrivePolicy is invalid. Reason: {reason}")

    # -- message move tasks ---------------------------------------------------

    def start_move_task(self, source: Queue, destination_arn: str | None, rate: int | None) -> MoveTask:
        with self._lock:
            tasks = self._move_tasks.setdefault(source.arn, [])
            if any(task.status == RUNNING for task in tasks):
                raise invalid_parameter(
                    "There is already a task running. Only one active task is allowed for a source queue "
                    "arn at a given time."
                )
            task = MoveTask(source, destination_arn, rate, self.queue_by_arn, self.clock, self.scheduler, self.journal)
            tasks.insert(0, task)
        task.start()
        return task

    def move_tasks(self, source_arn: str) -> list[MoveTask]:
        with self._lock:
            return list(self._move_tasks.get(source_arn, ()))

    # -- recovery: a store (the broker's journal) puts back what it kept ---------

    def restore_queue(
        self,
        account: str,
        region: str,
        name: str,
        fifo: bool,
        attributes: dict[str, str],
        tags: dict[str, str],
        created_at: int,
        modified_at: int,
        purged_at: float | None,
        dedup_scope: str | None = None,
    ) -> Queue:
        """A queue as a store kept it (attributes as the queue showed them, a FIFO queue's
        deduplication scope as created); its messages follow."""
        queue = self._new_queue(FifoQueue if fifo else StandardQueue, account, region, name, attributes)
        if dedup_scope is not None:
            queue.dedup_scope = dedup_scope
        queue.tags.update(tags)
        queue.created_at, queue.modified_at, queue.purged_at = created_at, modified_at, purged_at
        with self._lock:
            self._queues[(account, region, name)] = queue
        return queue

    def restore_cooldown(self, account: str, region: str, name: str, deleted_at: float) -> None:
        with self._lock:
            self._deleted_at[(account, region, name)] = deleted_at

    def restore_move_task(self, source: Queue, state: dict) -> MoveTask:
        """A move task as a store kept it (MoveTask.state()); a running one resumes on the clock."""
        task = MoveTask.restored(source, state, self.queue_by_arn, self.clock, self.scheduler, self.journal)
        with self._lock:
            self._move_tasks.setdefault(source.arn, []).append(task)
        return task

    def story(self, message_id: str) -> list[tuple[Queue, list[dict]]]:
        """Every queue's story of a message (history.py), following a move task's copy
        to its new id and back: (queue, events) pairs."""
        found: list[tuple[Queue, list[dict]]] = []
        wanted, seen = [message_id], set()
        while wanted:
            key = history.id_key(wanted.pop())
            if key is None or key in seen:
                continue
            seen.add(key)
            for queue in self.all_queues():
                events = queue.history.story(key) if queue.history is not None else None
                if events:
                    found.append((queue, events))
                    wanted += [e[name] for e in events for name in ("new_id", "original_id") if name in e]
        return found

    # -- time -----------------------------------------------------------------

    def _time_moved(self) -> None:
        self.scheduler.run_due()
        with self._lock:
            queues = list(self._queues.values())
        for queue in queues:
            queue.polls.wake_all()
