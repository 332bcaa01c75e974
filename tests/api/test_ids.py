"""Message and request ids are version 4 UUIDs in the canonical text form, as AWS's are."""

import os
import uuid

from emulator.api.ids import new_request_id, new_uuid


def test_ids_are_random_version_4_uuids():
    ids = [new_uuid() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)


def test_request_ids_are_distinct_version_4_uuids():
    ids = [new_request_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)


def test_a_forked_process_makes_request_ids_of_its_own():
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(writer, new_request_id().encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(child, 0)
    theirs = os.read(reader, 64).decode()
    os.close(reader)
    ours = new_request_id()
    assert uuid.UUID(theirs).version == 4 and theirs[:24] != ours[:24]
