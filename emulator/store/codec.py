"""The codec between the engine's objects and the store's rows: a message's delivery
fields as the messages table keeps them, attribute dicts as column text, and the
rows recovery reads (rows.py's SELECT_* statements, in their column order) back as
messages, queues, dedup ids and move tasks.
"""

import base64
import json
from dataclasses import dataclass, field

from emulator.engine.message import Message, Sent, State, message_key

STATES = {state.value: state for state in State}

# The delivery fields of a message never received nor delayed, by its state, and back.
UNDELIVERED = {state: (state.value, 0, None, None, 0.0, None) for state in State}
UNDELIVERED_STATES = {fields: fields[0] for fields in UNDELIVERED.values()}


def delivery(message: Message) -> tuple:
    """A message's delivery fields, in the order of the messages table (read from its
    parts: this runs under the queue's lock, for every message sent or received)."""
    fields = message.delivery_fields
    if fields is None:
        return UNDELIVERED[message.state]
    nonce = fields.nonce
    return (
        message.state.value,
        fields.receive_count,
        fields.first_receive_at,
        None if nonce is None else f"{nonce:016x}",
        fields.received_at,
        fields.due,
    )


def message_from_row(row: tuple) -> Message:
    """A message from its row (SELECT_MESSAGES)."""
    (
        _,
        seq,
        message_id,
        body,
        attributes,
        system_attributes,
        md5_of_body,
        md5_of_attributes,
        group_id,
        dedup_id,
        sequence_number,
        sent_at,
        sender_id,
        dead_letter_source,
        state,
        receive_count,
        first_receive_at,
        nonce,
        received_at,
        due,
    ) = row
    message = Message(
        message_key(message_id, md5_of_body),
        body,
        load_json(attributes),
        load_json(system_attributes),
        md5_of_attributes,
        sender_id,
        group_id,
        dedup_id,
    )
    message.seq, message.sent_at, message.state = seq, sent_at, STATES[state]
    # Only the fields a message has: one never received nor delayed gets no delivery part.
    if sequence_number is not None:
        message.sequence_number = sequence_number
    if dead_letter_source is not None:
        message.dead_letter_source = dead_letter_source
    if receive_count or due is not None:
        message.receive_count, message.first_receive_at = receive_count, first_receive_at
        # A nonce kept as hex; one from before nonces were 64-bit numbers names no handle now.
        message.nonce = None if nonce is None else int(nonce, 16)
        message.received_at, message.due = received_at, due
    return message


@dataclass(slots=True)
class StoredQueue:
    """A queue as the store kept it: its row, then its messages and dedup ids as recovery reads them."""

    queue_id: int
    account: str
    region: str
    name: str
    fifo: bool
    attributes: dict[str, str]
    tags: dict[str, str]
    created_at: int
    modified_at: int
    purged_at: float | None
    seq: int  # the highest arrival number given out
    dedup_scope: str | None  # FIFO: the scope its deduplication keeps; None: its attribute's (a version 1 row)
    messages: list[Message] = field(default_factory=list)  # in arrival order
    dedup: list[tuple] = field(default_factory=list)  # (key, Sent, expires_at), oldest first


def queue_from_row(row: tuple) -> StoredQueue:
    """A queue from its row (SELECT_QUEUES), without its messages and dedup ids yet."""
    queue_id, account, region, name, fifo, attributes, tags, created_at, modified_at, purged_at, seq, dedup_scope = row
    return StoredQueue(
        queue_id,
        account,
        region,
        name,
        bool(fifo),
        json.loads(attributes),
        json.loads(tags),
        created_at,
        modified_at,
        purged_at,
        seq,
        dedup_scope,
    )


def dedup_from_row(row: tuple) -> tuple:
    """(key, Sent, expires_at), as FifoQueue.restore_dedup takes it, from a row of SELECT_DEDUP."""
    _, key, message_id, sequence_number, expires_at = row
    key = json.loads(key)
    return (tuple(key) if isinstance(key, list) else key, Sent(message_id, sequence_number), expires_at)


def move_task_from_row(row: tuple) -> tuple[str, dict]:
    """(source ARN, MoveTask.state()) from a row of SELECT_MOVE_TASKS."""
    source_arn, state = row
    return source_arn, json.loads(state)


def _bytes_to_json(value):
    if isinstance(value, bytes):
        return {"$b64": base64.b64encode(value).decode()}
    raise TypeError(f"cannot store {type(value).__name__}")


def _json_to_bytes(obj: dict):
    # "$" is not allowed in a message attribute name, so no attribute is taken for a Binary value
    return base64.b64decode(obj["$b64"]) if obj.keys() == {"$b64"} else obj


def dump_json(value) -> str | None:
    """A dict of attributes as a column's text (Binary values in base64), or None when empty."""
    return json.dumps(value, default=_bytes_to_json, separators=(",", ":")) if value else None


def load_json(text: str | None) -> dict:
    """The dict dump_json wrote (an empty column: {})."""
    return json.loads(text, object_hook=_json_to_bytes) if text else {}
