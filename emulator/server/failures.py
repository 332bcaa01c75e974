"""How the server logs a failure of its own (a bug), wherever it happens."""

import logging


def log_internal_error(logger: logging.Logger, where: str, exc: BaseException) -> None:
    """One error line that names no request value, since an exception's text may quote
    the request (a queue name, a message body); the traceback at debug level only."""
    logger.error("internal error %s: %s (--log-level debug logs the traceback)", where, type(exc).__name__)
    logger.debug("traceback of the internal error %s", where, exc_info=exc)
