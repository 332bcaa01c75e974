"""A module whose import writes a file (SQS_IMPORT_MARKER names it): proof that a server
imported it, for compat_tests/server/test_control_plane.py. Nothing in the tests imports it."""

import os
from pathlib import Path

Path(os.environ["SQS_IMPORT_MARKER"]).write_text("imported")


def handler(event, context):
    return None
