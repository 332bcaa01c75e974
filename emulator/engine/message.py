"""One message and the states it moves through."""

import enum
from typing import Any, NamedTuple

from emulator.engine.scheduler import Timer


class _Empty(dict):
    """Read-only and empty; still a dict, so every reader and encoder takes it as one."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the shared empty attributes are read-only")

    __setitem__ = __delitem__ = __ior__ = _refuse
    setdefault = update = pop = popitem = clear = _refuse


# Most messages carry no attributes: they share this one empty dict instead of
# holding one each (64 bytes a message, twice).
NO_ATTRIBUTES: dict[str, dict[str, Any]] = _Empty()


class State(enum.Enum):
    DELAYED = "delayed"
    VISIBLE = "visible"
    INFLIGHT = "inflight"
    GONE = "gone"  # deleted, expired, purged: no longer in any queue

    # Members are singletons, so identity hashes alike and costs no Python call: the
    # queue counts messages per state in a dict on every transition.
    __hash__ = object.__hash__


class Message:
    """Fields set at send never change; the delivery fields change under the queue's lock."""

    __slots__ = (
        "_attributes_md5",
        "_body_md5",
        "attributes",
        "body",
        "dead_letter_source",
        "dedup_id",
        "due",
        "first_receive_at",
        "group_id",
        "id",
        "nonce",
        "receive_count",
        "received_at",
        "sender_id",
        "sent_at",
        "seq",
        "sequence_number",
        "state",
        "system_attributes",
        "timer",
    )

    def __init__(
        self,
        message_id: str,
        body: str,
        attributes: dict[str, dict[str, Any]],
        system_attributes: dict[str, dict[str, Any]],
        md5_of_body: str,
        md5_of_attributes: str | None,
        sender_id: str,
        group_id: str | None = None,
        dedup_id: str | None = None,
    ):
        self.id = message_id
        self.body = body
        self.attributes = attributes or NO_ATTRIBUTES
        self.system_attributes = system_attributes or NO_ATTRIBUTES
        # Kept as their 16 bytes (49 bytes an object, where 32 hex digits take 81).
        self._body_md5 = bytes.fromhex(md5_of_body)
        self._attributes_md5 = None if md5_of_attributes is None else bytes.fromhex(md5_of_attributes)
        self.group_id = group_id  # on a standard queue: a fair-queue tenant
        self.dedup_id = dedup_id  # FIFO: explicit, or the SHA-256 of the body
        self.sequence_number: str | None = None  # FIFO: set by the queue when it takes the message
        self.seq = 0  # arrival order in its queue: visible messages are served oldest first by it
        self.sent_at = 0.0  # set by the queue when it takes the message
        self.sender_id = sender_id
        self.state = State.VISIBLE
        self.receive_count = 0
        self.first_receive_at: float | None = None
        self.nonce: str | None = None  # of the latest receive; a receipt handle must carry it
        self.received_at = 0.0  # start of the latest receive, for the 12-hour visibility cap
        self.due: float | None = None  # in flight: when its visibility ends; delayed: when its delay does
        self.timer: Timer | None = None  # the armed delay or visibility timer, cancelled when it no longer holds
        self.dead_letter_source: str | None = None  # ARN of the queue it was dead-lettered from

    @property
    def md5_of_body(self) -> str:
        return self._body_md5.hex()

    @property
    def md5_of_attributes(self) -> str | None:
        return None if self._attributes_md5 is None else self._attributes_md5.hex()

    def _copy(self, message_id: str) -> "Message":
        return Message(
            message_id,
            self.body,
            self.attributes,
            self.system_attributes,
            self.md5_of_body,
            self.md5_of_attributes,
            self.sender_id,
            self.group_id,
            self.dedup_id,
        )

    def dead_lettered(self, source_arn: str) -> "Message":
        """The same message for a dead-letter queue: id, attributes and receive count carry over."""
        copy = self._copy(self.id)
        copy.receive_count = self.receive_count
        copy.first_receive_at = self.first_receive_at
        copy.dead_letter_source = source_arn
        return copy

    def redriven(self, message_id: str) -> "Message":
        """The message as a move task delivers it: a new message with the same content."""
        return self._copy(message_id)

    def snapshot(self) -> dict:
        """What a peek shows of the message; `cursor` (its arrival number) pages on after it."""
        return {
            "cursor": self.seq,
            "id": self.id,
            "state": self.state.value,
            "body": self.body,
            "attributes": self.attributes,
            "receive_count": self.receive_count,
            "sent_at": self.sent_at,
            "first_receive_at": self.first_receive_at,
            "visible_at": self.due if self.state in (State.INFLIGHT, State.DELAYED) else None,
            "group_id": self.group_id,
            "dedup_id": self.dedup_id,
            "sequence_number": self.sequence_number,
            "dead_letter_source": self.dead_letter_source,
        }


class Delivery(NamedTuple):
    """What one receive handed out, copied under the lock."""

    message: Message
    receipt_handle: str
    receive_count: int
    first_receive_at: float


class Sent(NamedTuple):
    """What a send answers: the stored message's id (the original's, for a FIFO duplicate)."""

    message_id: str
    sequence_number: str | None
