"""Message and request ids are version 4 UUIDs in the canonical text form, as AWS's are."""

import uuid

from emulator.api.ids import new_uuid


def test_ids_are_random_version_4_uuids():
    ids = [new_uuid() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)
