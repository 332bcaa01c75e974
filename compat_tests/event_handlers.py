"""Handlers that a server process imports by name ("compat_tests.event_handlers:write_bodies")
in test_event_source_targets.py: they run inside the emulator, so they report by files."""

import json
from pathlib import Path


def write_bodies(event, context):
    """Each record's body is {"out": <file>, "text": ...}: append the text to the file."""
    for record in event["Records"]:
        body = json.loads(record["body"])
        with Path(body["out"]).open("a") as out:
            out.write(body["text"] + "\n")
    return {"batchItemFailures": []}
