"""Many queues per account and region, one clock and one scheduler for all."""

import threading

from emulator.engine.clock import RealClock
from emulator.engine.queue import Queue
from emulator.engine.scheduler import Scheduler
from emulator.errors import SqsError, queue_does_not_exist


class Broker:
    def __init__(self, clock=None):
        self.clock = clock or RealClock()
        self.scheduler = Scheduler(self.clock)
        self._queues: dict[tuple[str, str, str], Queue] = {}
        self._lock = threading.Lock()
        if self.clock.manual:
            self.clock.on_advance(self._time_moved)
        else:
            self.scheduler.start()

    def close(self) -> None:
        self.scheduler.stop()
        with self._lock:
            queues = list(self._queues.values())
        for queue in queues:
            queue.close()

    def create_queue(
        self, account: str, region: str, name: str, attributes: dict[str, str], tags: dict[str, str] | None = None
    ) -> tuple[Queue, bool]:
        """Return (queue, created). An existing queue with other attribute values is QueueNameExists."""
        with self._lock:
            queue = self._queues.get((account, region, name))
            if queue is not None:
                differing = queue.differing_attribute(attributes)
                if differing:
                    raise SqsError(
                        "QueueNameExists",
                        f"A queue already exists with the same name and a different value for attribute {differing}",
                    )
                return queue, False
            queue = Queue(account, region, name, attributes, self.clock, self.scheduler)
            queue.tags.update(tags or {})
            self._queues[(account, region, name)] = queue
            return queue, True

    def get_queue(self, account: str, region: str, name: str) -> Queue:
        queue = self._queues.get((account, region, name))
        if queue is None:
            raise queue_does_not_exist()
        return queue

    def delete_queue(self, queue: Queue) -> None:
        with self._lock:
            if self._queues.get((queue.account, queue.region, queue.name)) is queue:
                del self._queues[(queue.account, queue.region, queue.name)]
        queue.close()

    def queues(self, account: str, region: str) -> list[Queue]:
        with self._lock:
            return [q for (a, r, _), q in self._queues.items() if a == account and r == region]

    def _time_moved(self) -> None:
        self.scheduler.run_due()
        with self._lock:
            queues = list(self._queues.values())
        for queue in queues:
            queue.wake_waiters()
