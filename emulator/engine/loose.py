"""Standard queues as loose as AWS's: what one receive looks at and the order it answers in.

By default a standard queue here serves its visible messages oldest first and a
short poll sees all of them. AWS promises neither (SQS Developer Guide):

* best-effort ordering: "occasionally ... more than one copy of a message might be
  delivered out of order" (DistributedQueues.html; standard-queues.html: "messages
  may occasionally arrive out of order");
* short polling: "Amazon SQS samples a subset of its servers (based on a weighted
  random distribution) and returns messages from only those servers. Thus, a
  particular ReceiveMessage request might not return all of your messages"; with
  long polling "the ReceiveMessage request queries all of the servers" and there
  are no "false empty responses (when messages are available but aren't included
  in a response)" (sqs-short-and-long-polling.html).

With a queue's FaultPolicy.loose (faults.py) a receive looks at the oldest
`window(room)` visible messages only, never the queue's depth: a short poll
(WaitTimeSeconds 0) sees each with probability SHORT_POLL_SAMPLE, a long poll sees
all of them and, once they are taken, the next ones as usual; what it sees comes
in a shuffled order. Every message looked at and not delivered goes back in line
(still VISIBLE throughout), so none is lost or held. FIFO queues are never
loosened (taking.py asks only for standard ones).
"""

import random
from collections.abc import Callable, Generator

from emulator.engine.message import Message

SHORT_POLL_SAMPLE = 0.5  # the chance a short poll sees each message it looks at


def window(room: int) -> int:
    """How many of the oldest visible messages one receive of up to `room` looks at:
    enough that a newer one may come before an older one, bounded by the receive's size."""
    return 2 * room + 1


def loosened(
    picks: Generator[Message, None, None],
    room: int,
    short_poll: bool,
    rng: random.Random,
    put_back: Callable[[Message], None],
) -> Generator[Message, None, None]:
    """`picks` (the ready order's, oldest first) as a loose receive takes them. Closed, it
    closes `picks` and then puts back every message it took off and did not yield."""
    seen: list[Message] = []
    unseen: list[Message] = []
    try:
        most = window(room)
        for looked, message in enumerate(picks, 1):
            if short_poll and rng.random() >= SHORT_POLL_SAMPLE:
                unseen.append(message)
            else:
                seen.append(message)
            if looked == most:
                break
        rng.shuffle(seen)
        while seen:
            message = seen.pop()
            yield message
        if not short_poll:
            yield from picks  # a long poll sees them all (some of the window moved to a dead-letter queue)
    finally:
        picks.close()  # first: a message put back while it runs would be picked again
        for message in unseen + seen:
            put_back(message)
