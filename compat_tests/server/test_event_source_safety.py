"""Event sources against hostile or broken targets, in a server process (issue 38, items 2 to 4).

* The log shows every value from a request, a message or a target's answer escaped:
  a target's output that quotes a body with newlines, or a path with `%0A` and `%1B`
  at debug level, never starts a line of its own nor writes an ESC (item 2).
* An http target's 3xx is a failure, never followed; a non-JSON answer is named by
  its status and size in `last_error`, never quoted (item 3).
* Invocations of every mapping run on one process-wide pool of threads: those beyond
  it wait their turn, counted and shown, and a target that never answers fails each at
  its timeout (item 4).

The admin API and event sources are the emulator's own; AWS has neither.
"""

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

import psutil
import pytest

from compat_tests.conftest import TARGET
from compat_tests.event_sources import REAL_WAIT, wait_for
from compat_tests.helpers import RawClient, sqs_client
from compat_tests.helpers import admin_call as call
from compat_tests.local_http import LocalHttp
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="event source mappings are the emulator's own")

FORGED = "boom\nCRITICAL emulator.store: forged\n::error::pwned\x1b[2J"


class Site(LocalHttp):
    """A small HTTP server on loopback: answer(method, path) -> (status, headers, body); hits kept."""

    def __init__(self, answer):
        self.hits: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                outer.hits.append((self.command, self.path))
                status, headers, body = answer(self.command, self.path)
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _serve

            def log_message(self, *args):
                pass

        super().__init__(Handler)


@pytest.fixture
def sites():
    started = []

    def start(answer):
        site = Site(answer)
        started.append(site)
        return site

    yield start
    for site in started:
        site.close()


# -- item 3: no redirects, no echoed answers ---------------------------------------------------


def test_a_redirect_is_a_failure_and_never_followed(sqs, queue_factory, sites, mappings, endpoint):
    service = sites(lambda method, path: (200, {"Content-Type": "text/plain"}, b"SECRET of a GET-only service"))
    target = sites(lambda method, path: (302, {"Location": service.url + "/admin/delete-everything"}, b""))
    url = queue_factory(attributes={"VisibilityTimeout": 60})
    sqs.send_message(QueueUrl=url, MessageBody="event")
    mapping = mappings({"queue": url, "target": target.url + "/invoke"})
    failed = wait_for(endpoint, mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
    error = failed["counters"]["last_error"]
    assert "HTTP 302" in error and "redirect" in error and "SECRET" not in error, error
    assert target.hits == [("POST", "/invoke")] and service.hits == []


def test_a_non_json_answer_is_named_by_status_and_size_not_quoted(sqs, queue_factory, sites, mappings, endpoint):
    page = b"<html>SECRET token=abc123 of whatever answered</html>"
    target = sites(lambda method, path: (200, {"Content-Type": "text/html"}, page))
    url = queue_factory(attributes={"VisibilityTimeout": 60})
    sqs.send_message(QueueUrl=url, MessageBody="event")
    mapping = mappings({"queue": url, "target": target.url + "/invoke"})
    failed = wait_for(endpoint, mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
    error = failed["counters"]["last_error"]
    assert "HTTP 200" in error and f"{len(page)} bytes" in error and "SECRET" not in error, error
    _, queues = call(endpoint, "GET", "/_emulator/queues")  # what the dashboard shows
    assert "SECRET" not in json.dumps(queues)


class Trickle:
    """A target that answers 200 with a long body, a byte at a time, never finishing in time."""

    def __init__(self):
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/invoke"
        self._closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self._closed.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not self._closed.wait(0.2):
                try:
                    connection.sendall(b" ")
                except OSError:
                    return

    def close(self):
        self._closed.set()
        self._listener.close()


def test_an_answer_that_trickles_past_the_timeout_or_passes_6_mb_fails(sqs, queue_factory, sites, mappings, endpoint):
    """Lambda's timeout is the whole invocation's, and a synchronous answer is at most 6 MB
    ("For synchronous invocations, the maximum payload size is 6 MB", Lambda API reference, Invoke)."""
    trickle = Trickle()
    try:
        url = queue_factory(attributes={"VisibilityTimeout": 60})
        sqs.send_message(QueueUrl=url, MessageBody="event")
        mapping = mappings({"queue": url, "target": trickle.url, "timeout_seconds": 1})
        failed = wait_for(endpoint, mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
        assert failed["counters"]["last_error"] == "Task timed out after 1 seconds", failed
    finally:
        trickle.close()
    huge = sites(
        lambda method, path: (200, {"Content-Type": "application/json"}, b'"' + b"x" * (6 * 1024 * 1024) + b'"')
    )
    url = queue_factory(attributes={"VisibilityTimeout": 60})
    sqs.send_message(QueueUrl=url, MessageBody="event")
    mapping = mappings({"queue": url, "target": huge.url + "/invoke"})
    failed = wait_for(endpoint, mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
    assert "larger than Lambda's 6 MB payload limit" in failed["counters"]["last_error"], failed


# -- item 2: the log is escaped --------------------------------------------------------------


def test_values_from_requests_and_targets_are_logged_escaped(tmp_path):
    config = tmp_path / "events.toml"
    failing = f"import sys; sys.stderr.write({FORGED!r}); sys.exit(1)"
    config.write_text(
        '[[queues]]\nname = "work"\n\n'
        "[[event_sources]]\n"
        'queue = "work"\n'
        f"target = {json.dumps([sys.executable, '-c', failing])}\n"
        "timeout_seconds = 20\n"
    )
    server = start_emulator("manual", "log-forging", "--config", str(config), "--log-level", "debug")
    try:
        sqs = sqs_client(server.url)
        url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody=FORGED[: FORGED.index("\x1b")])  # SQS refuses an ESC
        _, listed = call(server.url, "GET", "/_emulator/event-sources")
        (mapping,) = listed["event_sources"]
        wait_for(server.url, mapping["id"], lambda c: c["failures"] >= 1)
        # A path that percent-decodes to a newline and an ESC, logged at debug level.
        RawClient(server.url).request("GET", "/%0ACRITICAL%20emulator.store:%20path%1B[2J?Action=ListQueues")
        deadline = time.monotonic() + REAL_WAIT
        while "path\\x1b" not in server.log_path.read_text(errors="replace"):
            assert time.monotonic() < deadline, server.log_path.read_text(errors="replace")[-3000:]
            time.sleep(0.02)
    finally:
        server.stop()
    log = server.log_path.read_bytes()
    assert b"\x1b" not in log
    lines = log.decode().splitlines()
    assert not [line for line in lines if line.startswith(("CRITICAL", "::error"))], lines
    assert any("boom\\nCRITICAL emulator.store: forged\\n::error::pwned\\x1b[2J" in line for line in lines), lines
    assert any("\\nCRITICAL emulator.store: path\\x1b[2J" in line for line in lines), lines


# -- item 4: one pool of invocation threads ----------------------------------------------------


def test_invocations_share_one_capped_pool_and_a_silent_target_times_out():
    silent = socket.socket()  # accepts connections (the kernel does) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(1024)
    target = f"http://127.0.0.1:{silent.getsockname()[1]}/invoke"
    server = start_emulator("manual", "invoker-pool")
    try:
        sqs = sqs_client(server.url)
        process = psutil.Process(server.process.pid)
        before = process.num_threads()
        mappings = []
        for name in ("silent-a", "silent-b"):
            url = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
            for start in range(0, 60, 10):
                sqs.send_message_batch(
                    QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": "x"} for i in range(start, start + 10)]
                )
            fields = {"queue": url, "target": target, "batch_size": 1, "maximum_concurrency": 1000}
            status, mapping = call(server.url, "POST", "/_emulator/event-sources", {**fields, "timeout_seconds": 3})
            assert status == 201, mapping
            mappings.append(mapping["id"])
        # 120 batches handed over at once: 64 run, the rest wait their turn without a thread.
        deadline = time.monotonic() + REAL_WAIT
        while True:
            _, listed = call(server.url, "GET", "/_emulator/event-sources")
            pool = listed["invokers"]
            if pool["waiting"] + pool["running"] == 120:
                break
            assert time.monotonic() < deadline, pool
            time.sleep(0.02)
        assert pool["threads"] == pool["max_threads"] == 64 and pool["waited"] >= 56, pool
        assert process.num_threads() <= before + 64 + 8  # not one thread an invocation
        metrics = RawClient(server.url).request("GET", "/_emulator/metrics", sign=False).body.decode()
        assert "sqs_event_source_invoker_threads 64.0" in metrics
        assert "sqs_event_source_invocations_waiting " in metrics
        # Each invocation fails at its 3-second timeout; every one of the 120 is tried.
        for mapping_id in mappings:
            done = wait_for(server.url, mapping_id, lambda c: c["failures"] == 60, timeout=60)
            assert "timed out" in done["counters"]["last_error"], done
    finally:
        server.stop()
        silent.close()
