"""Every message is in exactly one state, whatever happens: random sends, receives,
visibility changes, deletes, expiries, purges, redrives, move tasks and injected faults
(a loose queue's sampled, shuffled receives too) over a standard,
a fair and a FIFO queue and their dead-letter queues (states.py, TRANSITIONS).

After every step each queue's counts equal a recount of its messages, each message
is where its state says (a visible one in the ready order, a delayed or in-flight one
on its deadline), no message is in two queues, and every message ever seen is either
in exactly one queue or GONE. Time moves on the manual clock. The run is derandomized
(a fixed seed) and its budget bounded, so CI runs the same examples every time.
"""

import uuid

import pytest
from engine_support import ACCOUNT, REGION, T0, make_message
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, multiple, rule

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.engine.faults import FaultPolicy
from emulator.engine.message import DELAYED, GONE, INFLIGHT, VISIBLE, Message
from emulator.engine.states import TRANSITIONS, TransitionRefused
from emulator.errors import SqsError

MAX_RECEIVE_COUNT = 1  # the second receive of a message moves it to the dead-letter queue
RETENTION = 300  # seconds (AWS's least is 60): a few advances expire what nobody took
SOURCES = ("standard", "fair", "fifo.fifo")
QUEUES = (*SOURCES, "dlq", "dlq.fifo")
TENANTS = ("t1", "t2", "t3")  # the fair queue's tenants and the FIFO queue's groups
DEDUP_IDS = st.sampled_from(("d1", "d2", "d3", "d4", None))  # few, so some sends are duplicates
SECONDS = st.sampled_from((1, 2, 31, 61))


def redrive(dlq) -> str:
    return f'{{"deadLetterTargetArn": "{dlq.arn}", "maxReceiveCount": {MAX_RECEIVE_COUNT}}}'


class MessageStateMachine(RuleBasedStateMachine):
    handles = Bundle("handles")

    def __init__(self):
        super().__init__()
        self.clock = ManualClock(start=T0)
        self.broker = Broker(self.clock)
        create = self.broker.create_queue
        retention = {"MessageRetentionPeriod": str(RETENTION)}
        dlq, _ = create(ACCOUNT, REGION, "dlq", retention)
        fifo_dlq, _ = create(ACCOUNT, REGION, "dlq.fifo", {**retention, "FifoQueue": "true"})
        standard = {**retention, "RedrivePolicy": redrive(dlq)}
        fifo = {**retention, "FifoQueue": "true", "RedrivePolicy": redrive(fifo_dlq)}
        self.queues = {
            "standard": create(ACCOUNT, REGION, "standard", standard)[0],
            "fair": create(ACCOUNT, REGION, "fair", standard)[0],
            "fifo.fifo": create(ACCOUNT, REGION, "fifo.fifo", fifo)[0],
            "dlq": dlq,
            "dlq.fifo": fifo_dlq,
        }
        self.seen: dict[int, Message] = {}  # every message object ever in a queue, by id()

    def teardown(self):
        self.broker.close()

    # -- what users and time do ------------------------------------------------

    @rule(
        name=st.sampled_from(QUEUES),
        tenant=st.sampled_from(TENANTS),
        dedup_id=DEDUP_IDS,
        delay=st.sampled_from((0, 0, 5, 45)),
        count=st.integers(1, 5),
    )
    def send(self, name, tenant, dedup_id, delay, count):
        queue = self.queues[name]
        if queue.fifo:  # a FIFO message has a group, and no delay of its own
            batch = [(make_message(f"b{n}", tenant, dedup_id or uuid.uuid4().hex), 0) for n in range(count)]
        else:  # only the fair queue's messages have a tenant
            batch = [(make_message(f"b{n}", tenant if name == "fair" else None), delay) for n in range(count)]
        for taken in queue.send(batch):
            if isinstance(taken, Message):
                self.seen[id(taken)] = taken

    @rule(
        target=handles,
        name=st.sampled_from(QUEUES),
        most=st.integers(1, 10),
        visibility=st.sampled_from((0, 1, 30, 30)),
        attempt=st.sampled_from((None, None, "attempt-1")),
        wait=st.sampled_from((0, 0, 1)),  # a loose queue's short polls sample, its long polls do not
    )
    def receive(self, name, most, visibility, attempt, wait):
        queue = self.queues[name]
        try:
            deliveries = queue.receive(most, visibility, wait, attempt if queue.fifo else None)
        except SqsError:  # a FIFO attempt id whose messages changed is no longer retryable
            deliveries = []
        return multiple(*((name, delivery.receipt_handle) for delivery in deliveries))

    @rule(handle=handles, timeout=st.sampled_from((0, 10, 40)))
    def change_visibility(self, handle, timeout):
        name, receipt_handle = handle
        try:
            self.queues[name].change_visibility(receipt_handle, timeout)
        except SqsError:  # a FIFO handle expires with its visibility; the message may be gone
            pass

    @rule(handle=consumes(handles), in_batch=st.booleans())
    def delete(self, handle, in_batch):
        name, receipt_handle = handle
        queue = self.queues[name]
        if in_batch:
            queue.delete_batch([receipt_handle])  # each entry's error is in its answer
            return
        try:
            queue.delete(receipt_handle)
        except SqsError:  # an expired FIFO handle
            pass

    @rule(seconds=SECONDS)
    def advance(self, seconds):
        self.clock.advance(seconds)  # delays and visibility timeouts end, retention expires, tasks step

    @rule(name=st.sampled_from(QUEUES), now=st.integers(0, 7))
    def purge(self, name, now):
        if now == 0:  # an eighth as often as the other rules: a purge empties a queue
            self.queues[name].purge()

    @rule(name=st.sampled_from(("dlq", "dlq.fifo")), rate=st.sampled_from((None, 1, 3)), elsewhere=st.booleans())
    def start_move_task(self, name, rate, elsewhere):
        # Back to where each came from, or all into the fair queue (FIFO: the FIFO source).
        destination = (self.queues["fair" if name == "dlq" else "fifo.fifo"].arn) if elsewhere else None
        try:
            self.broker.start_move_task(self.queues[name], destination, rate)
        except SqsError:  # one task at a time per source
            pass

    @rule(
        name=st.sampled_from(SOURCES),
        duplicates=st.sampled_from((0.0, 0.5)),
        lost=st.sampled_from((0.0, 0.5)),
        loose=st.booleans(),
    )
    def faults(self, name, duplicates, lost, loose):
        # Duplicate deliveries end a visibility at once; lost deletes leave the message in flight;
        # a loose standard queue puts back what a receive looked at and skipped (FIFO ignores it).
        self.queues[name].faults = FaultPolicy(duplicate_delivery=duplicates, lost_delete=lost, loose=loose, seed=7)

    # -- what must hold after every step -----------------------------------------

    @invariant()
    def every_message_is_in_exactly_one_state(self):
        holder: dict[int, str] = {}
        for name, queue in self.queues.items():
            messages = list(queue._messages)
            recount = dict.fromkeys((VISIBLE, INFLIGHT, DELAYED), 0)
            for message in messages:
                assert message.state in recount, f"{name}: a {message.state} message is still held"
                assert id(message) not in holder, f"a message is in {holder[id(message)]} and {name}"
                holder[id(message)] = name
                self.seen.setdefault(id(message), message)
                recount[message.state] += 1
                waiting = message.state is not VISIBLE
                assert (message.due is not None) is waiting, f"{name}: a {message.state} message's deadline"
                if waiting:
                    assert message.delivery_fields.entry[-1] is message, f"{name}: not on its deadline"
            assert len(queue._messages) == len(messages)
            assert {state: queue._states.count(state) for state in recount} == recount, name
            # Each visible message has its entry in the ready order, and nothing else has one.
            assert queue._states._ready._entries.live == recount[VISIBLE], name
        for key, message in self.seen.items():
            assert (key in holder) is (message.state is not GONE), f"a {message.state} message in no queue"


MessageStateMachine.TestCase.settings = settings(
    derandomize=True,  # the same examples on every run: a fixed seed
    database=None,  # and none replayed from an earlier run's failures
    max_examples=100,  # about 3 s here (2 cores, shared); a slow CI machine stays well under 30 s
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_message_states = MessageStateMachine.TestCase


@pytest.mark.parametrize(
    ("was", "to"),
    [(GONE, VISIBLE), (GONE, INFLIGHT), (INFLIGHT, DELAYED), (VISIBLE, DELAYED), (DELAYED, INFLIGHT)],
)
def test_move_refuses_a_transition_not_in_the_table(queue, was, to):
    message = make_message()
    queue.send([(message, 0)])
    message.state = was  # as a broken transition would leave it
    assert to not in TRANSITIONS[was]
    with pytest.raises(TransitionRefused):
        queue._states.move(message, to)
    assert queue.counts()["ApproximateNumberOfMessages"] == 1  # nothing changed
    message.state = VISIBLE  # as it was, for the queue to close


def test_every_state_may_end_in_gone_and_nothing_leaves_it():
    assert all(GONE in TRANSITIONS[state] for state in (DELAYED, VISIBLE, INFLIGHT))
    assert TRANSITIONS[GONE] == frozenset()
