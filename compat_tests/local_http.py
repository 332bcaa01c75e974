"""A plain HTTP server on loopback, on a thread of the test process: the targets and pages
the emulator or a browser calls in the tests (event-source targets, a web page's origin)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalHttp:
    """`handler` serving at `url` (a free port on 127.0.0.1, then `path`) until close()."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], path: str = ""):
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._http.server_port}{path}"
        threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
