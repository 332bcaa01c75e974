"""Every message's story: what happened to it, event by event, for the admin API, the
dashboard, the pytest plugin's history() and its end-of-test summary.

A queue that keeps histories (the server's --histories, a cap per queue; 0: none, and
the engine then tests one attribute where it would record) has one MessageHistories,
written by the engine's transitions under the queue's lock and read under it. A story
is a list of events, each a dict with `n` (its number: the order of events across
queues), `at` (the clock's epoch seconds), `event` and what that event knows. A message dead-lettered keeps its id, so its story goes on in
the dead-letter queue's histories; a move task's copy is a new message, and the two
stories name each other (`new_id`, `original_id`).

Bounded: at most `limit` stories per queue (the oldest dropped, counted in
`dropped`); a story whose message left the queue (deleted, expired, moved, purged)
is kept until KEPT_ENDED newer ones have ended (then counted in `forgotten`), so a
test can ask after the delete; a story keeps its first event and its last
MAX_EVENTS - 1.

record() (with the queue's lock held) and note() (without it) are the hook for whatever
else touches a message: an injected error answered for a message's operation is
`queue.history.note(key, "injected_error", code=...)` where `queue.history` is not None,
the key being the message's `key`, or for a receipt handle receipts.decode(handle)[1].
"""

import itertools
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import Any

from emulator.engine.clock import Clock
from emulator.engine.message import GONE, Delivery, Message

KEPT_ENDED = 1000  # ended stories kept per queue
MAX_EVENTS = 100  # events kept per story
# Each event's `n`: events of one instant in two queues (a dead-letter move) keep their order.
_numbers = itertools.count(1)


def id_key(message_id: str) -> bytes | None:
    """The 16 bytes a story is kept by (the first 16 of Message.key), from a message id's text."""
    try:
        return uuid.UUID(message_id).bytes
    except (ValueError, TypeError, AttributeError):
        return None


def _id(key: bytes) -> str:
    return str(uuid.UUID(bytes=key[:16]))


class MessageHistories:
    def __init__(self, lock: threading.Lock, clock: Clock, limit: int):
        self.lock = lock  # the queue's: readers take it
        self._clock = clock
        self.limit = limit
        self._stories: OrderedDict[bytes, list[dict[str, Any]]] = OrderedDict()
        self._ended: deque[bytes] = deque()
        self.dropped = 0  # stories dropped for the cap
        self.forgotten = 0  # ended stories dropped for newer ended ones
        self.empty_short_polls = 0  # receives with WaitTimeSeconds 0 that got nothing (billed on AWS)

    # -- written with the queue's lock held ------------------------------------

    def record(self, key: bytes, event: str, **details: Any) -> None:
        """Add `event` to the story of the message whose key (Message.key, or its id's 16
        bytes) is given. A message without a story (dropped, or older than the histories)
        gets one from here on. The hook for what else touches a message: an injected error."""
        entry = {"n": next(_numbers), "at": self._clock.now(), "event": event, **details}
        story = self._stories.get(key[:16])
        if story is None:
            self._begin(key[:16], [entry])
            return
        story.append(entry)
        if len(story) > MAX_EVENTS:
            del story[1]  # the sent event stays: it says who and how
            story[0]["later_events_dropped"] = story[0].get("later_events_dropped", 0) + 1

    def note(self, key: bytes, event: str, **details: Any) -> None:
        """record() from outside the queue's lock (taken here): for the layers above the engine."""
        with self.lock:
            self.record(key, event, **details)

    def end(self, key: bytes, event: str, **details: Any) -> None:
        """The message left the queue: its story is kept until KEPT_ENDED newer ones end."""
        self.record(key, event, **details)
        self._ended.append(key[:16])
        if len(self._ended) > KEPT_ENDED and self._stories.pop(self._ended.popleft(), None) is not None:
            self.forgotten += 1

    def sent(self, sent: Iterable[Any], origin: Any) -> None:
        """What a send took (Messages; a FIFO duplicate's Sent is skipped): who sent it and how.
        `origin` has `account`, `access_key` and `protocol` (the API's request context), or is None."""
        account = getattr(origin, "account", None)
        access_key = getattr(origin, "access_key", None)
        protocol = getattr(origin, "protocol", None)
        now = self._clock.now()
        for message in sent:
            if isinstance(message, Message):
                event = {"n": next(_numbers), "at": now, "event": "sent", "account": account}
                event["access_key"] = access_key
                event["protocol"] = protocol
                self._begin(message.key[:16], [event])

    def received(self, deliveries: list[Delivery], visibility_timeout: int, wait_seconds: int) -> None:
        if not deliveries and wait_seconds == 0:
            self.empty_short_polls += 1
        for delivery in deliveries:
            message = delivery.message
            self.record(
                message.key,
                "received",
                receipt_handle=delivery.receipt_handle,
                receive_count=delivery.receive_count,
                visibility_timeout=visibility_timeout,
                visible_again_at=message.due,
            )

    def deleted(self, key: bytes, handle: str, message: Message | None, current: bool, lost: bool) -> None:
        """A DeleteMessage with `handle` (`current`: the latest receive's, still in flight):
        of a message gone already (None), refused, or done; `lost`: injected, it stays."""
        receive = self._receive_of(key, handle)
        if message is None:
            self.record(key, "delete_of_gone_message", receipt_handle=handle, of_receive=receive)
            return
        stale = not current
        if lost:
            self.record(key, "fault", fault="lost_delete", receipt_handle=handle, stale=stale, of_receive=receive)
        elif message.state is GONE:
            self.end(key, "deleted", receipt_handle=handle, stale=stale, of_receive=receive)
        else:
            self.record(key, "delete_refused", receipt_handle=handle, stale=stale, of_receive=receive)

    def visibility_changed(self, message: Message, handle: str, latest: bool, timeout: int, changed: bool) -> None:
        self.record(
            message.key,
            "visibility_changed" if changed else "visibility_change_ignored",
            receipt_handle=handle,
            stale=not latest,
            visibility_timeout=timeout,
            of_receive=self._receive_of(message.key, handle),
        )

    def end_all(self, messages: Iterable[Message], event: str) -> None:
        for message in messages:
            self.end(message.key, event)

    def _begin(self, key: bytes, story: list[dict[str, Any]]) -> None:
        stories = self._stories
        stories[key] = story
        if len(stories) > self.limit:
            stories.popitem(last=False)
            self.dropped += 1

    def _receive_of(self, key: bytes, handle: str) -> int | None:
        """Which receive of the message minted `handle` (its receive count then), if the story has it."""
        for event in reversed(self._stories.get(key[:16], ())):
            if event.get("receipt_handle") == handle and event["event"] == "received":
                return event["receive_count"]
        return None

    # -- read: each takes the queue's lock --------------------------------------

    def story(self, key: bytes) -> list[dict[str, Any]] | None:
        with self.lock:
            story = self._stories.get(key[:16])
            return [dict(event) for event in story] if story is not None else None

    def stories(self, limit: int) -> list[dict[str, Any]]:
        """The newest `limit` stories, newest first: each `id`, `ended` and `events`."""
        with self.lock:
            ended = set(self._ended)
            newest: list[dict[str, Any]] = []
            for key in reversed(self._stories):
                if len(newest) >= limit:
                    break
                events = [dict(event) for event in self._stories[key]]
                newest.append({"id": _id(key), "ended": key in ended, "events": events})
            return newest

    def counts(self) -> dict[str, int]:
        with self.lock:
            return {
                "kept": len(self._stories),
                "limit": self.limit,
                "dropped": self.dropped,
                "forgotten": self.forgotten,
                "empty_short_polls": self.empty_short_polls,
            }

    def notable(self) -> dict[str, list[dict[str, Any]]]:
        """What a test's summary names: messages received more than once, deletes with a
        handle whose receive was over, moves to a dead-letter queue."""
        found: dict[str, list[dict[str, Any]]] = {
            "received_more_than_once": [],
            "stale_deletes": [],
            "dead_lettered": [],
        }
        with self.lock:
            for key, story in self._stories.items():
                receives = sum(1 for event in story if event["event"] == "received")
                if receives > 1:
                    found["received_more_than_once"].append({"id": _id(key), "receives": receives})
                for event in story:
                    if event["event"] in ("deleted", "delete_of_gone_message", "delete_refused") and (
                        event.get("stale", True)
                    ):
                        found["stale_deletes"].append({"id": _id(key), "of_receive": event["of_receive"]})
                    elif event["event"] == "dead_lettered":
                        found["dead_lettered"].append({"id": _id(key), "reason": event["reason"]})
        return found


def dead_lettered(source, target, message: Message, max_receive_count: int) -> None:
    """`message` moved from `source` to its dead-letter queue `target` (both queues' locks held)."""
    reason = (
        f"maxReceiveCount {max_receive_count} reached: received {message.receive_count} times, "
        f"moved at receive {message.receive_count + 1}"
    )
    if source.history is not None:
        source.history.end(message.key, "dead_lettered", to=target.arn, reason=reason)
    if target.history is not None:
        target.history.record(message.key, "arrived_as_dead_letter", source=source.arn, reason=reason)


def redriven(source, target, message: Message, copy: Message) -> None:
    """A move task moved `message` from `source` to `target` as the new message `copy`."""
    if source.history is not None:
        source.history.end(message.key, "redriven", to=target.arn, new_id=copy.id)
    if target.history is not None:
        target.history.record(copy.key, "arrived_by_redrive", source=source.arn, original_id=message.id)
