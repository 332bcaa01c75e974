"""The thread behind one mapping, and its counters.

The poller takes a concurrency slot, gathers a batch, and hands it to an
invocation thread; so at most `maximum_concurrency` batches (Lambda's five
when unset: "When messages are available, Lambda starts processing five
batches at a time", services-sqs-scaling) are in flight, and no message is
received before there is a slot to process it.

Gathering follows "Lambda parameters for Amazon SQS event source mappings" and
the batching window of the event source mapping guide: the batch goes when it
holds batch_size records, when the window (which starts as the poller starts
gathering, after its previous batch went) has ended and it holds any record,
or when the next record would take the event past 6 MB (that record opens the
next batch). Waiting is the queue's long poll on the queue's clock (its wake-ups
and a deadline: engine/long_polls.py), so a manual clock's advance ends a window at
once and nothing spins.

Messages are received and deleted through the engine as any consumer's are:
receive counts rise, the queue's visibility timeout hides them, and a message
received maxReceiveCount times moves to the dead-letter queue on the next
receive. A batch that fails is left alone to come back after its visibility
timeout, as Lambda does. A receive refused at a standard queue's in-flight limit
(OverLimit, which other consumers' messages may fill) is tried again after a
back-off on the queue's clock, as Lambda retries its polls ("uses a retry strategy
with a backoff strategy", operatorguide sqs-retries), and the poller goes on.

No message or batch ends a mapping: an error of ours while one record is matched
against the filters leaves that record to come back after its visibility timeout,
one while gathering leaves the batch so and the poller goes on after a back-off
(each logged at WARNING, and counted as `errors`), and one while
invoking fails that invocation. A failed invocation is logged at WARNING with the
mapping, the batch's size and why, escaped (emulator/logtext.py: a target's output
often quotes the body); tracebacks at debug level. Invocations run on the process's
one pool of threads (invokers.py).
"""

import functools
import json
import logging
import threading

from emulator import limits
from emulator.engine.clock import Clock
from emulator.engine.long_polls import wait_here
from emulator.errors import SqsError
from emulator.events import records, responses
from emulator.events.invokers import INVOKERS
from emulator.events.spec import MAX_PAYLOAD_BYTES, MappingSpec
from emulator.events.targets import InvocationFailed, LambdaContext
from emulator.logtext import escaped

DEFAULT_CONCURRENCY = 5
STOP_WAIT = 5.0  # real seconds to wait for the poller thread to end
OVER_LIMIT_BACKOFF = 1.0  # seconds on the queue's clock before a receive refused with OverLimit is tried again
ERROR_BACKOFF = 1.0  # seconds on the queue's clock before polling again after an error of ours
COUNTERS = (
    "invocations",  # batches handed to the target (each batch is one invocation)
    "records",  # records in those batches
    "retried_records",  # of them, records received before (ApproximateReceiveCount > 1)
    "succeeded",  # invocations whose whole batch was deleted
    "partial",  # invocations that reported some items failed
    "failures",  # invocations that failed: the batch comes back after its visibility timeout
    "items_reported_failed",
    "deleted",  # records deleted after their invocation
    "filtered_out",  # messages no filter passed, deleted without an invocation
    "over_limit",  # receives refused at the queue's in-flight limit, each followed by a back-off
    "errors",  # errors of ours while matching, gathering or invoking: those records come back
)

log = logging.getLogger(__name__)


class Stats:
    def __init__(self):
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(COUNTERS, 0)
        self.in_flight = 0
        self.max_in_flight = 0
        self.last_error: str | None = None

    def add(self, **amounts: int) -> None:
        with self._lock:
            for name, amount in amounts.items():
                self._counts[name] += amount

    def invocation_started(self, batch: list[dict]) -> None:
        retried = sum(1 for record in batch if record["attributes"]["ApproximateReceiveCount"] != "1")
        with self._lock:
            self._counts["invocations"] += 1
            self._counts["records"] += len(batch)
            self._counts["retried_records"] += retried
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def error(self, message: str) -> None:
        with self._lock:
            self._counts["errors"] += 1
            self.last_error = message

    def invocation_ended(self, error: str | None) -> None:
        with self._lock:
            self.in_flight -= 1
            if error is not None:
                self._counts["failures"] += 1
                self.last_error = error

    def as_dict(self) -> dict:
        with self._lock:
            return {
                **self._counts,
                "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight,
                "last_error": self.last_error,
            }


class Poller:
    """Polls `queue` for one mapping until stop(); the queue's deletion also ends it."""

    def __init__(self, name: str, queue, clock: Clock, spec: MappingSpec, stats: Stats, function_arn: str):
        self._name = name
        self._queue = queue
        self._spec = spec
        self._stats = stats
        self._function_arn = function_arn
        self._clock = clock  # the queue's (the broker's)
        self._limit = spec.maximum_concurrency or DEFAULT_CONCURRENCY
        self._slots = threading.Condition()
        self._running = 0
        self._stopping = False
        self._carried: list[tuple[dict, int]] = []  # records past the payload limit, for the next batch
        self.ended: str | None = None  # why the poller ended by itself
        self._thread = threading.Thread(target=self._run, name=f"event-source:{name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """End polling; a batch already handed to the target still finishes (and is deleted)."""
        with self._slots:
            self._stopping = True
            self._slots.notify_all()
        self._queue.polls.wake_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(STOP_WAIT)

    def _stopped(self) -> bool:
        return self._stopping or self._queue.deleted

    def _wait(self, seconds: float, for_messages: bool) -> None:
        """Wait `seconds` on the queue's clock, until stopped or the queue's deletion, and
        `for_messages`, until a receive would get one; else (a back-off) whatever the
        messages do. The queue's wake-ups end it, as they end any long poll's."""
        polls = self._queue.polls

        def done(last: bool) -> bool | None:
            return True if last or self._stopped() or (for_messages and polls.ready()) else None

        wait_here(polls, self._clock.deadline(seconds), done, receiving=for_messages)

    def _run(self) -> None:
        while self._take_slot():
            try:
                batch = self._gather()
                if not batch or self._stopped():
                    # Stopped while gathering: what it holds comes back after its visibility
                    # timeout, as a disabled mapping's batch would on AWS.
                    self._release_slot()
                    continue
                INVOKERS.submit(functools.partial(self._invoke, batch))
            except Exception as error:  # a bug of ours: what was gathered comes back; the mapping goes on
                self._release_slot()
                self._error("gathering a batch", error)
                self._wait(ERROR_BACKOFF, for_messages=False)
        if self._queue.deleted:
            self.ended = "queue deleted"

    def _error(self, doing: str, error: Exception) -> None:
        message = f"{type(error).__name__}: {error}"
        log.warning("event source mapping %s: error %s: %s", self._name, escaped(doing), escaped(message))
        log.debug("traceback of the error %s", escaped(doing), exc_info=error)  # it may quote the message
        self._stats.error(message)

    # -- concurrency --------------------------------------------------------------

    def _take_slot(self) -> bool:
        with self._slots:
            while self._running >= self._limit and not self._stopped():
                self._slots.wait()
            if self._stopped():
                return False
            self._running += 1
            return True

    def _release_slot(self) -> None:
        with self._slots:
            self._running -= 1
            self._slots.notify_all()

    # -- gathering a batch --------------------------------------------------------

    def _gather(self) -> list[dict]:
        spec, queue = self._spec, self._queue
        batch, size = [], 0
        carried, self._carried = self._carried, []
        for record, record_size in carried:
            batch.append(record)
            size += record_size
        window_ends = self._clock.now() + spec.batching_window_seconds
        while len(batch) < spec.batch_size and not self._stopped():
            now = self._clock.now()
            if batch and now >= window_ends:
                break
            self._wait(window_ends - now if batch else limits.MAX_WAIT_SECONDS, for_messages=True)
            if self._stopped():
                break
            wanted = min(limits.MAX_BATCH_ENTRIES, spec.batch_size - len(batch))
            try:
                deliveries = queue.receive(wanted, queue.visibility_timeout, 0)
            except SqsError as error:
                if error.name != "OverLimit":
                    raise
                self._stats.add(over_limit=1)
                self._wait(OVER_LIMIT_BACKOFF, for_messages=False)
                continue
            filtered_out = []
            for delivery in deliveries:
                record = records.record(delivery, queue)
                try:
                    passes = not spec.filters or any(pattern.matches(record) for pattern in spec.filters)
                except Exception as error:  # a bug of ours: this record comes back after its visibility timeout
                    self._error(f"matching message {record['messageId']}", error)
                    continue
                if not passes:
                    filtered_out.append(delivery.receipt_handle)
                    continue
                record_size = len(json.dumps(record)) + 2  # its comma and space in the event
                if batch and size + record_size > MAX_PAYLOAD_BYTES:
                    self._carried.append((record, record_size))
                else:
                    batch.append(record)
                    size += record_size
            if filtered_out:  # one whose handle expired meanwhile (the clock moved) comes back, as on AWS
                self._stats.add(filtered_out=queue.delete_batch(filtered_out).count(None))
            if self._carried:
                break
        return batch

    # -- invoking -----------------------------------------------------------------

    def _invoke(self, batch: list[dict]) -> None:
        spec = self._spec
        self._stats.invocation_started(batch)
        error = None
        try:
            context = LambdaContext(spec.target.name, self._function_arn, spec.timeout_seconds)
            result = spec.target.invoke({"Records": batch}, context)
            ids = {record["messageId"] for record in batch}
            failed = responses.failed_items(result, ids, spec.report_batch_item_failures)
        except (InvocationFailed, responses.BatchFailed) as failure:
            error = str(failure)
            log.warning(
                "event source mapping %s (queue %s): a batch of %d records failed: %s",
                self._name,
                self._queue.name,
                len(batch),
                escaped(error),  # a target's answer or output: it may quote the body
            )
        except Exception as failure:  # a bug of ours: the batch comes back after its visibility timeout
            error = f"{type(failure).__name__}: {failure}"
            log.warning(
                "event source mapping %s: error invoking a batch of %d records",
                self._name,
                len(batch),
                exc_info=failure,
            )
        else:
            done = [record for record in batch if record["messageId"] not in failed]
            # A FIFO handle expires with its visibility: an invocation that outlived it deletes
            # nothing, and its records come back (they may be in another invocation already).
            errors = self._queue.delete_batch([record["receiptHandle"] for record in done])
            deleted = errors.count(None)
            if deleted < len(done):
                log.info("event source %s: %d of %d deletes failed", self._thread.name, len(done) - deleted, len(done))
            self._stats.add(deleted=deleted, items_reported_failed=len(failed))
            if failed:
                self._stats.add(partial=1)
            elif deleted == len(done):
                self._stats.add(succeeded=1)
        finally:
            self._stats.invocation_ended(error)
            self._release_slot()
