"""The compact message record (message.py): what is kept as bytes reads back as the same text."""

import hashlib
import uuid

import pytest

from emulator.api.ids import new_uuid
from emulator.engine.message import Message, message_key


def test_id_and_digests_kept_as_bytes_read_back_as_the_same_text():
    message_id = new_uuid()
    body_md5 = hashlib.md5(b"body").hexdigest()
    message = Message(message_key(message_id, body_md5), "body", {}, {}, "0123456789abcdef" * 2, "S")
    assert (message.id, message.md5_of_body, message.md5_of_attributes) == (
        message_id,
        body_md5,
        "0123456789abcdef" * 2,
    )
    assert message.key == uuid.UUID(message_id).bytes + bytes.fromhex(body_md5)


def test_a_plain_message_has_no_delivery_or_rare_part_until_it_needs_one():
    message = Message(bytes(32), "b", {}, {}, None, "S")
    assert (message.delivery_fields, message.rare_fields) == (None, None)
    assert (message.receive_count, message.nonce, message.due, message.dedup_id, message.system_attributes) == (
        0,
        None,
        None,
        None,
        {},
    )
    message.receive_count = 1
    assert message.delivery_fields is not None and message.rare_fields is None
    assert message.receive_count == 1


def test_fifo_fields_and_system_attributes_live_in_the_rare_part():
    trace = {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1"}}
    message = Message(bytes(32), "b", {}, trace, None, "S", "g", "d")
    assert message.rare_fields is not None
    assert (message.system_attributes, message.group_id, message.dedup_id) == (trace, "g", "d")


@pytest.mark.parametrize("message_id", ["m1", str(uuid.uuid4()) + "0", "x" * 36])
def test_an_id_that_is_not_a_uuid_is_refused(message_id):
    with pytest.raises(ValueError):
        message_key(message_id, "0" * 32)


def test_a_key_of_another_length_is_refused():
    with pytest.raises(ValueError):
        Message(bytes(31), "b", {}, {}, None, "S")
