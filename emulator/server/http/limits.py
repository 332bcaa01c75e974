"""What the HTTP server holds a client to (the command line's --max-* and --*-timeout)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int  # a larger body is refused (413) before it is read
    max_connections: int  # open connections at most; past it, new ones wait in the listen backlog
    max_waits: int  # long polls waiting at once; one more is answered at once, empty
    request_timeout: float  # seconds for a request's head to arrive, and for its body
    idle_timeout: float  # seconds a kept-alive connection may wait for its next request
    write_timeout: float  # seconds an answer may lie unread (unacknowledged) before the connection closes
