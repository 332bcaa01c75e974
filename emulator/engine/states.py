"""Every message of a queue is in exactly one state, and the queue counts each state.

MessageStates.move is the one place a message changes state, and the counts
change with it: ApproximateNumberOfMessages and its two siblings are always
the number of messages in each state. The moves a message may make are a
table, TRANSITIONS (as h11 keeps its state machine); move() refuses any other. The transitions around it keep the rest
in step: the ready order (which visible message a receive gets, ready_order.py),
the receivers waiting in a long poll (woken only when there are any), the
deadlines of delays and visibility timeouts (deadlines.py), and the journal. A
message a receive picked off the ready order stays VISIBLE, and is counted so,
until it is delivered, moved away or put back.

Everything here is called with the queue's lock held, except the deadlines'
timer, which takes it. A message's `due` is set while it waits (delayed or in
flight) and only then: a deadline that no longer holds is dropped by unset().
"""

import threading
from collections.abc import Callable, Generator, Iterable

from emulator.engine import receipts
from emulator.engine.clock import Clock
from emulator.engine.deadlines import Deadlines
from emulator.engine.journal import Journal
from emulator.engine.message import DELAYED, GONE, INFLIGHT, VISIBLE, Delivery, DeliveryFields, Message, State
from emulator.engine.ready_order import ReadyOrder
from emulator.engine.retention import Arrivals
from emulator.engine.scheduler import Scheduler
from emulator.engine.stats import QueueStats
from emulator.engine.wakeups import Wakeups

ARRIVING = None  # a message coming into the queue: sent, moved in, or put back by a store; in no count

# From each state, the states move() lets a message go to. Every state may end in GONE:
# deleted, expired, purged, its queue deleted, or moved to another queue (whose copy arrives there).
TRANSITIONS: dict[State | None, frozenset[State]] = {
    # visible at once, or after its delay; a store puts back an in-flight message as it was
    ARRIVING: frozenset({VISIBLE, DELAYED, INFLIGHT}),
    DELAYED: frozenset({VISIBLE, GONE}),  # its delay ended
    VISIBLE: frozenset({INFLIGHT, GONE}),  # received
    INFLIGHT: frozenset({VISIBLE, GONE}),  # its visibility timeout ended, or was set to 0
    GONE: frozenset(),  # for good: what comes back is a new message
}
_ARRIVALS = TRANSITIONS[ARRIVING]  # the row every send checks, looked up once


class _Held:
    """One state of a queue's messages: how many are in it, and the states they may move to
    from it (its TRANSITIONS row). One lookup by state finds both (move() runs per message)."""

    __slots__ = ("count", "moves")

    def __init__(self, moves: frozenset[State]):
        self.count = 0
        self.moves = moves


class TransitionRefused(RuntimeError):
    """A move TRANSITIONS does not allow: a bug of the engine's, refused before anything changed."""


class MessageStates:
    def __init__(
        self,
        queue,
        new_order: Callable[[], ReadyOrder],
        clock: Clock,
        scheduler: Scheduler,
        lock: threading.Lock,
        message_visible: Wakeups,
        journal: Journal,
        stats: QueueStats,
    ):
        self._queue = queue  # what the journal is told about
        self._new_order = new_order
        self._clock = clock
        self._lock = lock
        self._message_visible = message_visible  # what long polls watch: a message made visible wakes one
        self._journal = journal
        self._stats = stats
        self.arrivals = Arrivals(clock, scheduler, lock, self._expire)
        self._deadlines = Deadlines(clock, scheduler, lock, self._deadline_reached)
        self._ready = new_order()
        self._held = {state: _Held(TRANSITIONS[state]) for state in (DELAYED, VISIBLE, INFLIGHT, GONE)}
        self._visible = self._held[VISIBLE]

    def count(self, state: State) -> int:
        return self._held[state].count

    def move(self, message: Message, to: State, arriving: bool = False) -> None:
        """The one place a message changes state: its old state's count goes down, the
        new one's up. An arriving message (sent, moved in, put back by a store) is in
        no count yet."""
        if arriving:
            if to not in _ARRIVALS:
                raise TransitionRefused(f"an arriving message cannot be {to.value}")
        else:
            was = message.state
            held = self._held[was]
            if to not in held.moves:
                raise TransitionRefused(f"a message {was.value} cannot become {to.value}")
            held.count -= 1
            if was is DELAYED:
                self._ready.delayed(message, False)
        if to is not GONE:  # gone messages are not counted
            self._held[to].count += 1
            if to is DELAYED:
                self._ready.delayed(message, True)
        message.state = to

    def available(self) -> bool:
        """Whether a receive would get a message now (a FIFO queue's visible ones may all be in locked groups)."""
        return self._visible.count > 0 and self._ready.available()

    def pick(self) -> Generator[Message, None, None]:
        return self._ready.pick()

    def put_back_picked(self, message: Message) -> None:
        """A picked message neither delivered nor moved goes back in line (it stayed VISIBLE)."""
        self._ready.add(message)

    def named_by_handle(self, seq: int, message_id: bytes, nonce: int) -> tuple[Message | None, bool]:
        """The message a decoded receipt handle names (receipts.decode), and whether the
        handle is its latest; counts a handle whose receive is over or whose message is gone."""
        message = self.arrivals.get(seq)
        if message is None or not message.key.startswith(message_id):
            # Deleted or expired since (the handle is stale too), or another queue's handle.
            self._stats.stale_receipts += 1
            return None, False
        fields = message.delivery_fields
        latest = fields is not None and fields.nonce == nonce
        if not (latest and message.state is INFLIGHT):
            self._stats.stale_receipts += 1
        return message, latest

    # -- transitions ----------------------------------------------------------

    def arrive(self, message: Message, delay: float) -> None:
        """A new message (numbered and stamped) is here: visible now, or after its delay."""
        self.arrivals.add(message)
        if delay > 0:
            self.move(message, DELAYED, arriving=True)
            self._deadlines.set(message, self._clock.now() + delay)
        else:
            self._show(message, arriving=True)

    def put_back(self, message: Message, now: float) -> None:
        """A store's message, as of now: a visibility timeout or delay that ended meanwhile has ended."""
        self.arrivals.add(message)
        waiting = message.state is INFLIGHT or message.state is DELAYED
        due = message.due if waiting else None  # a store keeps the deadline of every waiting message
        if message.delivery_fields is not None:
            message.delivery_fields.due = None  # set again below if it still holds
        if due is None or due <= now:
            self._show(message, arriving=True)
        elif message.state is INFLIGHT:
            self.move(message, INFLIGHT, arriving=True)
            self._ready.taken(message)
            self._deadlines.set(message, due)
        else:
            self.move(message, DELAYED, arriving=True)
            self._deadlines.set(message, due)

    def restore(self, messages: Iterable[Message], now: float, retention_period: int) -> list[Message]:
        """Put back a store's messages, in arrival order: a visibility timeout or delay
        that ended while the emulator was down has ended. Returns those left out
        because their retention is over."""
        expired = []
        for message in messages:
            if message.sent_at + retention_period <= now:
                expired.append(message)
            else:
                self.put_back(message, now)
        return expired

    def deliver(self, message: Message, now: float, visibility_timeout: int) -> Delivery:
        """A picked message goes in flight: a fresh receipt handle, its receive counted."""
        self.move(message, INFLIGHT)
        self._ready.taken(message)
        fields = message.delivery_fields
        if fields is None:
            fields = message.delivery_fields = DeliveryFields()
        fields.receive_count += 1
        if fields.first_receive_at is None:
            fields.first_receive_at = now
        fields.nonce = nonce = receipts.new_nonce()
        fields.received_at = now
        self._deadlines.set(message, now + visibility_timeout)
        self._journal.message_changed(self._queue, message)
        self._stats.received += 1
        handle = receipts.encode(message.seq, message.key, nonce)
        return Delivery(message, handle, fields.receive_count, fields.first_receive_at)

    def arm_visibility(self, message: Message, deadline: float) -> None:
        self._deadlines.set(message, deadline)
        self._journal.message_changed(self._queue, message)

    def end_inflight(self, message: Message) -> None:
        """Visible again: its visibility timeout ended, or was set to 0."""
        self._deadlines.unset(message)
        self._show(message)
        self._release(message)
        self._journal.message_changed(self._queue, message)

    def remove(self, message: Message, picked: bool = False) -> None:
        """The message leaves: deleted, expired, or (picked) moved to another queue."""
        was = message.state
        self._deadlines.unset(message)
        self.move(message, GONE)
        self.arrivals.remove(message)
        self._journal.message_removed(self._queue, message)
        if was is VISIBLE and not picked:  # a picked one has no entry left in the order
            self._ready.discard(message)
        elif was is INFLIGHT and self._ready.released(message):
            self._message_visible.notify()  # a FIFO group it held may be ready now

    def drop_all(self) -> None:
        """Every message leaves at once (a purge, or the queue was deleted)."""
        for message in self.arrivals:
            self.move(message, GONE)
        self.arrivals.clear()
        self._deadlines.clear()
        self._ready = self._new_order()

    def _show(self, message: Message, arriving: bool = False) -> None:
        self.move(message, VISIBLE, arriving)
        self._ready.add(message)
        self._message_visible.notify()

    def _release(self, message: Message) -> None:
        """A message left the in-flight state; a FIFO group it held may be ready now."""
        if self._ready.released(message):
            self._message_visible.notify()

    def _expire(self, message: Message) -> None:
        self.remove(message)
        self._stats.expired += 1
        if self._queue.history is not None:
            self._queue.history.end(message.key, "expired")

    def _deadline_reached(self, message: Message) -> None:
        """The timer of the queue's deadlines: a visibility timeout or delay ended (deadlines.py)."""
        if message.state is INFLIGHT:
            self.end_inflight(message)
            if self._queue.history is not None:
                self._queue.history.record(message.key, "visibility_timeout_ended")
        else:
            self._show(message)
