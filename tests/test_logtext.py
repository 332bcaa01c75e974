"""Values from outside are logged escaped (emulator/logtext.py, issue 38 item 2)."""

import io
import logging

from emulator.logtext import EscapingFormatter, escaped


def test_control_characters_and_line_separators_are_shown_as_escapes():
    assert escaped("a\nb\r\tc\x1b[2J\x00\x7f\x85\u2028é\\n") == "a\\nb\\r\\tc\\x1b[2J\\x00\\x7f\\x85\\u2028é\\n"
    assert escaped(ValueError("x\ny")) == "x\\ny"


def test_the_formatter_escapes_the_message_and_leaves_the_record_as_logged():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(EscapingFormatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("test_logtext")
    logger.addHandler(handler)
    records = []
    logger.addFilter(lambda record: records.append(record) or True)
    try:
        logger.warning("path %s", "/\nCRITICAL forged")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == "WARNING path /\\nCRITICAL forged\n"
    assert records[0].getMessage() == "path /\nCRITICAL forged"
