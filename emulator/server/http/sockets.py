"""The listening socket, made here so the kernel holds its share of the limits.

TCP_USER_TIMEOUT (tcp(7), Linux 2.6.37 and later) makes the kernel abort a connection
whose sent data stays unacknowledged that long, a zero receive window included; set on
the listening socket, the connections it accepts inherit it (checked by
compat_tests/server/test_front_door.py). It is the floor under --write-timeout: the
connection's own deadline (connection.py) also ends a client that reads, but too slowly.
Bound without SO_REUSEPORT, so a second emulator on a busy port fails (EADDRINUSE).
"""

from __future__ import annotations

import fcntl
import logging
import socket
import struct
import sys
import termios

log = logging.getLogger("emulator.http")

BACKLOG = 1024


def listen(host: str, port: int, write_timeout: float) -> socket.socket:
    """A socket listening on host:port (a free port for 0); OSError if one listens there, or
    the host is not this machine's."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[
        0
    ]
    listener = socket.socket(family, kind, proto)
    try:
        # SO_REUSEADDR as a server sets it: a port with connections in TIME_WAIT is free.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        _set_write_deadline(listener, write_timeout)
        listener.bind(address)
        listener.listen(BACKLOG)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


def _set_write_deadline(listener: socket.socket, seconds: float) -> None:
    if not sys.platform.startswith("linux") or not hasattr(socket, "TCP_USER_TIMEOUT"):
        log.info("no kernel write deadline on this platform: --write-timeout is checked by the server alone")
        return
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, max(1, int(seconds * 1000)))


def unsent_in_kernel(transport) -> int:
    """Bytes written to a connection's socket that its client has not acknowledged (Linux's
    SIOCOUTQ, tcp(7)); 0 where it cannot be known."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or not hasattr(termios, "TIOCOUTQ"):
        return 0
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except OSError:
        return 0


def drop_unsent(transport) -> None:
    """Make the connection's close a reset (SO_LINGER 0), which drops what the kernel has not
    sent; a plain close leaves the kernel sending it for as long as the client reads."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
