"""The HTTP server's request handler: werkzeug's, speaking HTTP/1.1 with keep-alive."""

import io
import socket

from werkzeug.serving import WSGIRequestHandler


class _NothingLeft(io.BufferedIOBase):  # a BufferedIOBase, as the rfile it stands in for
    def read(self, size: int | None = -1) -> bytes:
        return b""


class KeepAliveHandler(WSGIRequestHandler):
    """HTTP/1.1 with keep-alive, which halves the server's CPU per request.

    werkzeug 3.1 closes every connection: after each response it drains the
    socket, which would swallow the client's next request. The app always
    reads the whole body itself, so the drain is given a reader with nothing
    left and the connection stays open unless the client asked to close it.
    """

    protocol_version = "HTTP/1.1"
    timeout = 300  # seconds an idle keep-alive connection may hold its thread

    def make_environ(self):
        environ = super().make_environ()  # wsgi.input keeps the real stream
        self._stream, self.rfile = self.rfile, _NothingLeft()
        return environ

    def run_wsgi(self):
        try:
            super().run_wsgi()
        finally:
            if isinstance(self.rfile, _NothingLeft):
                self.rfile = self._stream

    def send_header(self, keyword, value):
        if keyword.lower() == "connection" and value.lower() == "close" and not self.close_connection:
            return
        super().send_header(keyword, value)

    def setup(self):
        super().setup()
        # Without this, Nagle's algorithm meets delayed ACKs and each response stalls ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_request(self, code="-", size="-"):
        pass  # the app logs one line per request at debug level
