"""Values from outside (a request, a message, a target's answer) as a log line shows them.

A value that reaches the log raw can forge lines: a body with a newline writes a line
that reads as `CRITICAL emulator.store ...` or a CI runner's `::error::` command, and an
ESC drives the terminal that shows the log. escaped() shows every control character
(and Unicode's line and paragraph separators) as its escape, so a value never starts a
line of its own; EscapingFormatter does so for every message of the CLI's log, whatever
its call site put in it. Tracebacks, written at debug level, stay as Python prints them.
"""

import logging
import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(value: object) -> str:
    """str(value) with its control characters shown as escapes (\\n, \\x1b, \\u2028)."""
    return _CONTROL.sub(_escape, str(value))


def _escape(match: re.Match) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


class EscapingFormatter(logging.Formatter):
    """A Formatter whose messages are escaped() once their arguments are in (on a copy of
    the record: other handlers see it as it was logged)."""

    def format(self, record: logging.LogRecord) -> str:
        shown = logging.makeLogRecord(record.__dict__)
        shown.msg, shown.args = escaped(record.getMessage()), None
        return super().format(shown)
