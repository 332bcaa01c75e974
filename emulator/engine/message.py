"""One message and the states it moves through."""

import enum
from typing import Any, NamedTuple


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


# The states by bare name, for the engine's per-message paths (states.py, ready_order.py,
# the queues): `message.state is VISIBLE`, not `... is State.VISIBLE`. On Python 3.11,
# which the project supports, `State.X` costs 80 to 90 ns more than a module global
# (measured here, 2026: timeit, best of 7); its EnumType has a __getattr__, which slows
# every class attribute lookup. Python 3.12 dropped that __getattr__ (python/cpython#106762),
# so there the names buy little. A send, receive and delete test a state about twenty
# times: the names stay while 3.11 is supported. Elsewhere (tests, the api layer) State.X reads better.
DELAYED, VISIBLE, INFLIGHT, GONE = State.DELAYED, State.VISIBLE, State.INFLIGHT, State.GONE


class DeliveryFields:
    """What receives (and a delay) set on a message: made at its first receive or delay,
    so a message that waits in its queue never received holds none of it."""

    __slots__ = ("due", "entry", "first_receive_at", "nonce", "receive_count", "received_at")

    def __init__(self):
        self.receive_count = 0
        self.first_receive_at: float | None = None
        self.nonce: int | None = None  # of the latest receive; a receipt handle must carry it
        self.received_at = 0.0  # start of the latest receive, for the 12-hour visibility cap
        # While in flight: when its visibility ends; while delayed: when its delay does; else None.
        self.due: float | None = None
        self.entry: list | None = None  # the deadline's entry in its queue's Deadlines (deadlines.py)


class RareFields:
    """What only some messages carry: FIFO messages, dead letters, messages with attributes."""

    __slots__ = ("attributes_md5", "dead_letter_source", "dedup_id", "sequence_number", "system_attributes")

    def __init__(self):
        self.attributes_md5: bytes | None = None  # of the message attributes, when there are any
        self.system_attributes: dict[str, dict[str, Any]] = NO_ATTRIBUTES
        self.dedup_id: str | None = None  # FIFO: explicit, or the SHA-256 of the body
        self.sequence_number: str | None = None  # FIFO: set by the queue when it takes the message
        self.dead_letter_source: str | None = None  # ARN of the queue it was dead-lettered from


_DEFAULTS = {"delivery_fields": DeliveryFields(), "rare_fields": RareFields()}


def _kept_in(part: str, name: str) -> Any:
    """A message field kept in one of its parts: read as the part's default while it has none,
    and the part is made when the field is first set."""
    default = getattr(_DEFAULTS[part], name)
    part_type = type(_DEFAULTS[part])

    def read(message: "Message") -> Any:
        fields = getattr(message, part)
        return default if fields is None else getattr(fields, name)

    def write(message: "Message", value: Any) -> None:
        fields = getattr(message, part)
        if fields is None:
            fields = part_type()
            setattr(message, part, fields)
        setattr(fields, name, value)

    return property(read, write, doc=f"{part}.{name}")


def message_key(message_id: str, md5_of_body: str) -> bytes:
    """A message's key from its id (a UUID) and body digest as text (a store keeps them so)."""
    key = bytes.fromhex(message_id.replace("-", "") + md5_of_body)
    if len(key) != 32 or len(message_id) != 36:
        raise ValueError(f"not a UUID and an MD5 digest: {message_id!r}, {md5_of_body!r}")
    return key


class Message:
    """Fields set at send never change; the delivery fields change under the queue's lock.

    Kept small, since a queue may hold millions: the id (always a lower-case UUID)
    and the MD5 of the body share one bytes object of 32 bytes, `key` (a receipt
    handle carries its first 16; message_key makes it from their text), both shown
    as text when read; the delivery
    fields and the rare ones live in parts a message gets only when it needs them
    (DeliveryFields, RareFields), read through properties so that every reader
    sees plain fields. Only the queue's Deadlines sets `due` on a queued message.
    """

    __slots__ = (
        "attributes",
        "body",
        "delivery_fields",
        "group_id",
        "key",
        "rare_fields",
        "sender_id",
        "sent_at",
        "seq",
        "state",
    )

    def __init__(
        self,
        key: bytes,
        body: str,
        attributes: dict[str, dict[str, Any]],
        system_attributes: dict[str, dict[str, Any]],
        md5_of_attributes: str | None,
        sender_id: str,
        group_id: str | None = None,
        dedup_id: str | None = None,
    ):
        if len(key) != 32:
            raise ValueError(f"not a message key (16 bytes of id, 16 of body digest): {key!r}")
        self.key = key
        self.body = body
        self.attributes = attributes or NO_ATTRIBUTES
        self.group_id = group_id  # on a standard queue: a fair-queue tenant
        self.seq = 0  # arrival order in its queue: visible messages are served oldest first by it
        self.sent_at = 0.0  # set by the queue when it takes the message
        self.sender_id = sender_id
        self.state = VISIBLE
        self.delivery_fields: DeliveryFields | None = None
        self.rare_fields: RareFields | None = None
        if system_attributes or dedup_id is not None or md5_of_attributes is not None:
            rare = self.rare_fields = RareFields()
            rare.system_attributes = system_attributes or NO_ATTRIBUTES
            rare.dedup_id = dedup_id
            rare.attributes_md5 = None if md5_of_attributes is None else bytes.fromhex(md5_of_attributes)

    def __repr__(self) -> str:
        # Neither body nor attributes: a repr ends up in logs.
        group = "" if self.group_id is None else f", group {self.group_id!r}"
        return f"<Message {self.id} #{self.seq} {self.state.value}, received {self.receive_count}{group}>"

    receive_count = _kept_in("delivery_fields", "receive_count")
    first_receive_at = _kept_in("delivery_fields", "first_receive_at")
    nonce = _kept_in("delivery_fields", "nonce")
    received_at = _kept_in("delivery_fields", "received_at")
    due = _kept_in("delivery_fields", "due")
    system_attributes = _kept_in("rare_fields", "system_attributes")
    dedup_id = _kept_in("rare_fields", "dedup_id")
    sequence_number = _kept_in("rare_fields", "sequence_number")
    dead_letter_source = _kept_in("rare_fields", "dead_letter_source")

    @property
    def id(self) -> str:
        digits = self.key.hex()
        return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:32]}"

    @property
    def md5_of_body(self) -> str:
        return self.key[16:].hex()

    @property
    def md5_of_attributes(self) -> str | None:
        rare = self.rare_fields
        return None if rare is None or rare.attributes_md5 is None else rare.attributes_md5.hex()

    def _copy(self, message_id: bytes) -> "Message":
        return Message(
            message_id + self.key[16:],
            self.body,
            self.attributes,
            self.system_attributes,
            self.md5_of_attributes,
            self.sender_id,
            self.group_id,
            self.dedup_id,
        )

    def dead_lettered(self, source_arn: str) -> "Message":
        """The same message for a dead-letter queue: id, attributes and receive count carry over."""
        copy = self._copy(self.key[:16])
        copy.receive_count = self.receive_count
        copy.first_receive_at = self.first_receive_at
        copy.dead_letter_source = source_arn
        return copy

    def redriven(self, message_id: bytes) -> "Message":
        """The message as a move task delivers it: a new message (its id's 16 bytes given) with the same content."""
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
            "visible_at": self.due if self.state in (INFLIGHT, DELAYED) else None,
            "group_id": self.group_id,
            "dedup_id": self.dedup_id,
            "sequence_number": self.sequence_number,
            "dead_letter_source": self.dead_letter_source,
        }


class Delivery:
    """What one receive handed out, copied under the lock. (A class with slots: half the
    cost of a NamedTuple's construction, once per message received.)"""

    __slots__ = ("first_receive_at", "message", "receipt_handle", "receive_count")

    def __init__(self, message: Message, receipt_handle: str, receive_count: int, first_receive_at: float):
        self.message = message
        self.receipt_handle = receipt_handle
        self.receive_count = receive_count
        self.first_receive_at = first_receive_at


class Sent(NamedTuple):
    """What a FIFO queue's deduplication keeps of a message it took, to answer a duplicate
    with: the original's id and sequence number. A send answers with the message it took,
    or with this for a duplicate; both have `id` and `sequence_number`."""

    id: str
    sequence_number: str | None
