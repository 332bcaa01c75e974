"""The HTTP server under the app (server.py) and the app's door on it (entry.py); knows
requests, not queues."""

from emulator.server.http.limits import Limits
from emulator.server.http.server import HttpServer

__all__ = ["HttpServer", "Limits"]
