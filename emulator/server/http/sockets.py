"""The kernel's share of the limits: a write deadline for clients that never read.

hyper keeps at most one answer unsent per connection, but keeps the connection for as
long as its client leaves that answer unread: 30 such clients held a few hundred MiB
of receive answers until they went away. TCP_USER_TIMEOUT (tcp(7), Linux 2.6.37 and
later) makes the kernel abort a connection whose sent data stays unacknowledged that
long, a zero receive window included; set on a listening socket, the connections it
accepts inherit it (checked by compat_tests/server/test_front_door.py). granian takes no
socket option of its own, so it is set here on the listening socket this process holds
for the server's port, found among the process's descriptors.
"""

from __future__ import annotations

import logging
import os
import socket
import sys

log = logging.getLogger("emulator.http")

FDS = "/proc/self/fd"


def set_write_deadline(port: int, seconds: float) -> int:
    """Set TCP_USER_TIMEOUT to `seconds` on this process's listening TCP sockets on `port`;
    returns how many. 0 where the platform offers no way (logged once)."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "TCP_USER_TIMEOUT"):
        log.info("no write deadline on this platform: a client that never reads keeps its connection")
        return 0
    done = 0
    for name in os.listdir(FDS):
        try:
            fd = os.dup(int(name))
        except OSError:  # gone (the listing's own descriptor)
            continue
        try:
            listener = socket.socket(fileno=fd)
        except OSError:  # not a socket
            os.close(fd)
            continue
        with listener:
            try:
                if not _listens_on(listener, port):
                    continue
                listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, max(1, int(seconds * 1000)))
            except OSError:
                continue
            done += 1
    if not done:
        log.warning("no listening socket on port %d to set the write deadline on", port)
    return done


def _listens_on(sock: socket.socket, port: int) -> bool:
    return (
        sock.family in (socket.AF_INET, socket.AF_INET6)
        and sock.type == socket.SOCK_STREAM
        and bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
        and sock.getsockname()[1] == port
    )
