"""How the server logs a failure of its own (a bug), wherever it happens."""

import logging

from emulator.logtext import escaped


def log_internal_error(logger: logging.Logger, where: str, exc: BaseException) -> None:
    """One error line that names no request value, since an exception's text may quote
    the request (a queue name, a message body); the traceback at debug level only.
    `where` may name an operation or a path of the request: it is escaped."""
    logger.error("internal error %s: %s (--log-level debug logs the traceback)", escaped(where), type(exc).__name__)
    logger.debug("traceback of the internal error %s", escaped(where), exc_info=exc)
