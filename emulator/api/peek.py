"""A look at a queue's messages in ReceiveMessage's output shape that changes nothing:
no receive count, no visibility, no dead-letter move. It is what LocalStack's
developer endpoint /_aws/sqs/messages answers (emulator/server/compat.py), per
LocalStack's SQS page, section "Developer endpoints": every message with all its
attributes and system attributes, the receipt handle SQS/BACKDOOR/ACCESS, and
with ShowInvisible / ShowDelayed the in-flight and delayed messages too, marked by
the attributes IsVisible and IsDelayed.

LocalStack documents no limit there, yet an answer built of a whole queue is many
times its stored size (XML escapes, then the JSON form of the XML): a peek shows the
oldest messages up to PEEK_LIMIT of them and PAGE_BYTES of bodies and attributes (at
least one message), which the admin API's peek pages by too.
"""

from emulator.api import validation
from emulator.api.received import received_message  # a peeked message reads as a received one
from emulator.engine.message import Delivery, Message, State
from emulator.engine.queue import Queue

# LocalStack's stand-in receipt handle: it names no receive, so every operation refuses it.
PEEK_HANDLE = "SQS/BACKDOOR/ACCESS"
ALL = ["All"]
PEEK_LIMIT = 1000  # messages of one peek, as a ListQueues page holds at most 1,000 queues
PAGE_BYTES = 4 * 1024 * 1024  # bodies and attributes of one peek: four of the largest messages


def peek_messages(queue: Queue, show_invisible: bool = False, show_delayed: bool = False) -> dict:
    """ReceiveMessage's output for the visible messages (and the in-flight or delayed ones
    when asked), oldest first, one page of them, with all attributes; {} when there is none."""
    states = {State.VISIBLE}
    if show_invisible:
        states.add(State.INFLIGHT)
    if show_delayed:
        states.add(State.DELAYED)
    found, _ = queue.peek(frozenset(states), PEEK_LIMIT, 0, _as_delivered)
    found = found[: within_page_bytes([delivery.message for _, delivery in found])]
    marked = show_invisible or show_delayed
    messages = []
    for state, delivery in found:
        message = received_message(delivery, set(ALL), ALL)
        if marked:
            message["Attributes"]["IsVisible"] = _flag(state is State.VISIBLE)
            message["Attributes"]["IsDelayed"] = _flag(state is State.DELAYED)
        messages.append(message)
    return {"Messages": messages} if messages else {}


def _as_delivered(message: Message) -> tuple[State, Delivery]:
    """Under the queue's lock: the message as a receive would hand it out, without receiving it.
    Never received: a first-receive time of 0, as LocalStack shows it."""
    return message.state, Delivery(message, PEEK_HANDLE, message.receive_count, message.first_receive_at or 0.0)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def within_page_bytes(messages: list[Message]) -> int:
    """How many of `messages`, oldest first, one page shows: those whose bodies and
    attributes fit PAGE_BYTES together, and always the first."""
    total = 0
    for shown, message in enumerate(messages):
        total += size(message)
        if total > PAGE_BYTES and shown:
            return shown
    return len(messages)


def size(message: Message) -> int:
    """The message's size as SendMessage counted it: body and attributes."""
    return len(message.body.encode()) + validation.message_attributes(message.attributes)
