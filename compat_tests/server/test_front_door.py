"""The HTTP server in front of the app (emulator/server/http/: an asyncio protocol over
llhttp, and the app's door on it), against a server process on loopback: framing per RFC 9112 over raw
sockets (no request smuggled in a body, bodies over the limit refused with the server's
memory flat), idle and slow connections that hold no thread, the connection cap, and
long polls by the thousand with their cap. The emulator's own (moto runs on werkzeug's
development server), so emulator only.

AWS answers an oversized request 413 "Request Entity Too Large" (observed from SQS:
python-beaver issue #204); the body's code is the emulator's choice, since AWS's body
for it is not recorded (docs/server.md). Status lines' wording and header names' case
are no part of the contract (RFC 9110 5.1: names are case-insensitive), so the checks
read the status code, and the headers in lower case."""

from __future__ import annotations

import base64
import json
import resource
import socket
import threading
import time
import urllib.parse
import urllib.request
import uuid

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from compat_tests.conftest import TARGET
from compat_tests.helpers import sqs_client
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own HTTP server")

MIB = 1024 * 1024
LIMIT = 3 * MIB + 64 * 1024  # the default --max-body-bytes
RSS_SLACK = 10 * MIB
JSON = b"Content-Type: application/x-amz-json-1.0\r\n"
QUERY = b"Content-Type: application/x-www-form-urlencoded\r\n"
RESET = b"POST /_emulator/reset HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"


@pytest.fixture(scope="module")
def door():
    # 2,000 sockets in this process too: raise its soft descriptor limit where it is 1,024 (the server raises its own).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    server = start_emulator("manual", "door", "--request-timeout", "1", "--max-connections", "3000")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sqs(door):
    return sqs_client(door.url)


def port(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def rss(server) -> int:
    return psutil.Process(server.process.pid).memory_info().rss


def threads(server) -> int:
    return psutil.Process(server.process.pid).num_threads()


def exchange(server, data: bytes, half_close: bool = False, timeout: float = 5) -> bytes:
    """All the server sends back for `data` until it closes (or `timeout` passes: then b"<open>" ends it)."""
    with socket.create_connection(("127.0.0.1", port(server)), timeout=timeout) as conn:
        conn.sendall(data)
        if half_close:
            conn.shutdown(socket.SHUT_WR)
        return read_to_close(conn)


def read_to_close(conn) -> bytes:
    received = b""
    try:
        while chunk := conn.recv(65536):
            received += chunk
    except TimeoutError:
        return received + b"<open>"
    except ConnectionResetError:
        pass
    return received


def post(target: str, headers: bytes, body: bytes = b"") -> bytes:
    return (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: AmazonSQS." + target.encode() + b"\r\n" + headers + body
    )


def json_request(target: str, params: dict) -> bytes:
    body = json.dumps(params).encode()
    return post(target, JSON + b"Content-Length: %d\r\n\r\n" % len(body), body)


def metric(server, name: str) -> float:
    with urllib.request.urlopen(server.url + "/_emulator/metrics", timeout=5) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    raise AssertionError(f"no {name} in the metrics")


def warm(server, sqs) -> int:
    """Some ordinary traffic first, so what a probe costs is not the first requests' allocations."""
    url = sqs.create_queue(QueueName=f"warm-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    for _ in range(20):
        sqs.send_message(QueueUrl=url, MessageBody="x" * 1000)
    sqs.delete_queue(QueueUrl=url)
    return rss(server)


@pytest.fixture
def survivor(sqs):
    """A queue a smuggled reset would delete."""
    return sqs.create_queue(QueueName="survivor")["QueueUrl"]


# -- framing -------------------------------------------------------------------


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def closes(answer: bytes) -> bool:
    """The answer says the connection closes, and it did (no "<open>" at its end)."""
    return b"\r\nconnection: close\r\n" in answer.lower() and not answer.endswith(b"<open>")


@pytest.mark.parametrize("length", [b"abc", b"-1", b"1e3", b"+5", b"5, 6"])
def test_an_invalid_content_length_is_400_and_the_body_never_runs(door, sqs, survivor, length):
    answer = exchange(door, b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + length + b"\r\n\r\n" + RESET)
    assert status(answer) == 400 and answer.count(b"HTTP/1.") == 1 and closes(answer)
    assert sqs.get_queue_url(QueueName="survivor")["QueueUrl"] == survivor


def test_a_transfer_coding_other_than_chunked_is_400_and_the_body_never_runs(door, sqs, survivor):
    # RFC 9112 6.3: chunked not the final coding of a request: "the server MUST respond with
    # the 400 (Bad Request) status code and then close the connection".
    answer = exchange(door, b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n" + RESET)
    assert status(answer) == 400 and answer.count(b"HTTP/1.") == 1 and closes(answer)
    assert sqs.get_queue_url(QueueName="survivor")["QueueUrl"] == survivor


def test_a_bad_chunk_size_is_400_and_what_follows_never_runs(door, sqs, survivor):
    answer = exchange(door, b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + RESET)
    assert status(answer) == 400 and answer.count(b"HTTP/1.") == 1 and closes(answer)
    assert sqs.get_queue_url(QueueName="survivor")["QueueUrl"] == survivor


@pytest.mark.parametrize("order", ["length first", "coding first"])
def test_content_length_beside_chunked_is_refused_and_closed(door, sqs, survivor, order):
    # RFC 9112 6.1: the server "MAY reject [it] or process such a request in accordance with the
    # Transfer-Encoding alone. Regardless, the server MUST close the connection after responding":
    # llhttp rejects it, so neither the request nor anything sent after it runs.
    url = sqs.create_queue(QueueName=f"framed-{order.split()[0]}")["QueueUrl"]
    body = json.dumps({"QueueUrl": url, "MessageBody": "by the coding"}).encode()
    fields = [b"Content-Length: 4\r\n", b"Transfer-Encoding: chunked\r\n"]
    if order == "coding first":
        fields.reverse()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    answer = exchange(door, post("SendMessage", JSON + b"".join(fields) + b"\r\n", chunked) + RESET)
    assert status(answer) == 400 and answer.count(b"HTTP/1.") == 1 and closes(answer)
    assert sqs.get_queue_url(QueueName="survivor")["QueueUrl"] == survivor  # the reset never ran
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_a_truncated_body_is_never_run(door, sqs):
    url = sqs.create_queue(QueueName="truncated")["QueueUrl"]
    whole = json_request("SendMessage", {"QueueUrl": url, "MessageBody": "hello"})
    answer = exchange(door, whole[:-5], half_close=True)  # the client went away before its end
    assert answer == b"" or (status(answer) == 400 and closes(answer))
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_chunk_extensions_are_accepted(door, sqs):
    url = sqs.create_queue(QueueName="chunked")["QueueUrl"]
    body = json.dumps({"QueueUrl": url, "MessageBody": "in chunks"}).encode()
    chunked = b"%x;name=value\r\n%s\r\n%x;flag\r\n%s\r\n0\r\n\r\n" % (10, body[:10], len(body) - 10, body[10:])
    answer = exchange(
        door, post("SendMessage", JSON + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n", chunked)
    )
    assert status(answer) == 200
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "in chunks"


def test_trailer_fields_are_refused_and_never_run(door, sqs):
    # granian's RSGI interface passes trailer fields, and a body that broke off, alike (an
    # empty chunk before the end), so both are refused rather than risk running a cut body.
    # No SDK sends trailers to SQS.
    url = sqs.create_queue(QueueName="trailers")["QueueUrl"]
    body = json.dumps({"QueueUrl": url, "MessageBody": "with trailers"}).encode()
    chunked = b"%x\r\n%s\r\n0\r\nX-Checksum: 1\r\n\r\n" % (len(body), body)
    answer = exchange(door, post("SendMessage", JSON + b"Transfer-Encoding: chunked\r\n\r\n", chunked))
    assert status(answer) == 400 and closes(answer)
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["__type"] == "com.amazonaws.sqs#MalformedRequest"
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_a_chunked_body_that_breaks_off_is_never_run(door, sqs):
    url = sqs.create_queue(QueueName="chunks-cut")["QueueUrl"]
    form = f"Action=SendMessage&QueueUrl={url}&MessageBody=whole".encode()
    cut = b"%x\r\n%s\r\n" % (len(form) - 2, form[:-2])  # "...MessageBody=who": a valid form, cut short
    answer = exchange(
        door,
        b"POST / HTTP/1.1\r\nHost: localhost\r\n" + QUERY + b"Transfer-Encoding: chunked\r\n\r\n" + cut,
        half_close=True,
    )
    assert answer == b"" or (status(answer) == 400 and closes(answer))
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_an_http_2_request_line_gets_a_status_line_and_a_close(door):
    # A client that tried HTTP/2 with prior knowledge reads a status line, never a bare body.
    answer = exchange(door, b"GET /_emulator/health HTTP/2.0\r\nHost: localhost\r\n\r\n")
    assert status(answer) == 400 and closes(answer)


def test_the_http_2_connection_preface_gets_a_status_line_and_a_close(door):
    # RFC 9113 3.4: a client with prior knowledge starts with this preface, never read as a request here.
    answer = exchange(door, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    assert status(answer) == 400 and closes(answer)


def test_an_http_0_9_request_is_refused_at_once(door):
    # HTTP/0.9 (no version, no blank line): refused and closed at once, half-closed or not.
    for half_close in (True, False):
        started = time.monotonic()
        answer = exchange(door, b"GET /\r\n", half_close=half_close)
        assert status(answer) == 400 and closes(answer)
        assert time.monotonic() - started < 4


def test_a_bare_lf_request_is_answered_never_hangs(door):
    # RFC 9112 2.2: a recipient MAY recognize a single LF as a line terminator; llhttp does not,
    # so it is a 400 and a close: either way an answer at once, never a hang.
    started = time.monotonic()
    answer = exchange(door, b"GET /_emulator/health HTTP/1.1\nHost: localhost\nConnection: close\n\n")
    assert status(answer) == 400 and closes(answer)
    assert time.monotonic() - started < 4


# -- bodies over the limit ---------------------------------------------------------


def test_a_chunk_size_of_2_to_the_64_then_eof_costs_no_memory(door, sqs):
    before = warm(door, sqs)
    head = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + QUERY + b"Transfer-Encoding: chunked\r\n\r\n"
    answer = exchange(door, head + b"ffffffffffffffff\r\nabc", half_close=True)
    assert answer == b"" or (status(answer) in (400, 413) and closes(answer))
    assert rss(door) - before < RSS_SLACK
    assert sqs.list_queues()["QueueUrls"]  # still serving


def test_a_256_mib_chunk_is_cut_off_at_the_limit_with_aws_error_shape(door, sqs):
    before = warm(door, sqs)
    head = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + QUERY + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % (256 * MIB)
    with socket.create_connection(("127.0.0.1", port(door)), timeout=5) as conn:
        conn.sendall(head)
        try:
            for _ in range(LIMIT // MIB + 2):  # past the limit: the server answers and closes
                conn.sendall(b"a" * MIB)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_to_close(conn)
    assert status(answer) == 413 and closes(answer)
    assert b"<Code>RequestEntityTooLarge</Code>" in answer and b"<ErrorResponse" in answer
    assert rss(door) - before < RSS_SLACK


@pytest.mark.parametrize(
    ("protocol", "headers"),
    [("json", b"X-Amz-Target: AmazonSQS.SendMessage\r\n" + JSON), ("query", QUERY)],
)
def test_a_200_mib_body_is_refused_from_its_length_before_it_is_read(door, sqs, protocol, headers):
    before = warm(door, sqs)
    peak = [before]
    sending = threading.Event()

    def sample():
        while not sending.is_set():
            peak.append(rss(door))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        with socket.create_connection(("127.0.0.1", port(door)), timeout=5) as conn:
            conn.sendall(
                b"POST / HTTP/1.1\r\nHost: localhost\r\n" + headers + b"Content-Length: %d\r\n\r\n" % (200 * MIB)
            )
            sent = 0
            try:
                while sent < 200 * MIB:
                    conn.sendall(b"a" * MIB)
                    sent += MIB
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer = read_to_close(conn)
    finally:
        sending.set()
        sampler.join()
    assert sent < 200 * MIB  # the server closed without reading it
    assert status(answer) == 413 and closes(answer)
    body = answer.partition(b"\r\n\r\n")[2]
    if protocol == "json":
        assert json.loads(body)["__type"] == "com.amazonaws.sqs#RequestEntityTooLarge"
        assert "Request Entity Too Large" in json.loads(body)["message"]
    else:
        assert b"<Code>RequestEntityTooLarge</Code>" in body
    assert max(peak) - before < RSS_SLACK


def test_the_largest_valid_request_fits_under_the_limit(door, sqs):
    # 1 MiB of two-byte characters: botocore's JSON writes each as a six-byte \\u escape.
    url = sqs.create_queue(QueueName="largest")["QueueUrl"]
    body = "é" * (512 * 1024)
    sqs.send_message(QueueUrl=url, MessageBody=body)
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == body


# -- connections -------------------------------------------------------------------


def test_2000_idle_connections_hold_no_threads_while_a_client_is_served(door, sqs):
    url = sqs.create_queue(QueueName="beside-idle")["QueueUrl"]
    idle = [socket.create_connection(("127.0.0.1", port(door)), timeout=5) for _ in range(2000)]
    try:
        started = time.monotonic()
        for _ in range(20):
            sqs.send_message(QueueUrl=url, MessageBody="served")
        assert time.monotonic() - started < 5
        assert threads(door) < 100
        assert len(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]) == 10
    finally:
        for conn in idle:
            conn.close()


def test_a_request_trickled_past_its_deadline_is_closed(door):
    with socket.create_connection(("127.0.0.1", port(door)), timeout=5) as conn:
        started = time.monotonic()
        conn.sendall(b"PO")
        for byte in b"ST / HTTP/1.1\r\n":  # a byte every 0.2 s: each resets an idle timer, not the deadline
            time.sleep(0.2)
            try:
                conn.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
        assert read_to_close(conn) == b""
    assert time.monotonic() - started < 4


def test_a_body_that_stops_arriving_is_answered_408_and_closed(door, sqs):
    # --request-timeout (1 s here) for the body too, once the head came: checked once a second.
    url = sqs.create_queue(QueueName="slow-body")["QueueUrl"]
    whole = json_request("SendMessage", {"QueueUrl": url, "MessageBody": "never whole"})
    started = time.monotonic()
    answer = exchange(door, whole[:-5], timeout=10)  # the client keeps the connection, sends no more
    assert status(answer) == 408 and closes(answer)
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["__type"] == "com.amazonaws.sqs#RequestTimeout"
    assert time.monotonic() - started < 6
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def _served_once(conn) -> None:
    conn.sendall(b"GET /_emulator/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert status(read_reply(conn)) == 200  # then idle, kept alive


def _one_byte(conn) -> None:
    conn.sendall(b"P")  # a request that never arrives whole


@pytest.mark.parametrize(
    ("deadline", "opened"),
    [("--idle-timeout", _served_once), ("--request-timeout", _one_byte)],
    ids=["idle", "half-sent"],
)
def test_connections_that_fill_the_cap_hold_it_only_until_their_deadline(deadline, opened):
    # granian's cap (its backpressure): a newcomer waits in the listen backlog; idle kept-alive
    # connections and half-sent requests end at the head deadline (1 s here), which makes room.
    server = start_emulator("manual", "capped", "--max-connections", "20", deadline, "1")
    held = []
    try:
        for _ in range(20):
            conn = socket.create_connection(("127.0.0.1", port(server)), timeout=5)
            opened(conn)
            held.append(conn)
        started = time.monotonic()
        assert sqs_client(server.url).list_queues()["ResponseMetadata"]["HTTPStatusCode"] == 200
        assert time.monotonic() - started < 10
        assert all(read_to_close(conn) == b"" for conn in held)  # closed, never answered again
    finally:
        for conn in held:
            conn.close()
        server.stop()


def test_a_client_that_never_reads_its_answers_is_closed_at_the_write_deadline():
    # hyper holds one unsent answer per connection; --write-timeout ends the connection
    # (TCP_USER_TIMEOUT on the listener: emulator/server/http/sockets.py) and frees it.
    server = start_emulator("manual", "unread", "--write-timeout", "2")
    sqs = sqs_client(server.url)
    readers = []
    try:
        url = sqs.create_queue(QueueName="unread")["QueueUrl"]
        for batch in range(3):
            entries = [{"Id": str(i), "MessageBody": chr(97 + batch) * (250 * 1024)} for i in range(3)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        before = warm(server, sqs)
        poll = json_request("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10, "VisibilityTimeout": 0})
        for _ in range(30):
            conn = socket.socket()
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            conn.connect(("127.0.0.1", port(server)))
            conn.sendall(poll * 3)  # pipelined; none of the answers (about 2.3 MB each) is read
            readers.append(conn)
        ours = {conn.getsockname()[1] for conn in readers}
        process = psutil.Process(server.process.pid)

        def held() -> int:
            return sum(1 for c in process.net_connections("tcp") if c.raddr and c.raddr.port in ours)

        deadline = time.monotonic() + 30
        peak = rss(server)
        while held():
            peak = max(peak, rss(server))
            assert time.monotonic() < deadline, f"{held()} unread connections still open"
            time.sleep(0.1)
        assert peak - before > 20 * MIB  # the answers were held meanwhile
        assert rss(server) - before < peak - before  # and let go with their connections
        assert sqs.list_queues()["QueueUrls"]  # still serving
    finally:
        for conn in readers:
            conn.close()
        server.stop()


# -- long polls ----------------------------------------------------------------------


def test_2000_long_polls_wait_while_others_are_served_and_each_message_wakes_one(door, sqs):
    url = sqs.create_queue(QueueName="many-polls")["QueueUrl"]
    other = sqs.create_queue(QueueName="beside-polls")["QueueUrl"]

    def server_cpu_of_100_sends() -> float:
        # The server's CPU, not the wall time: the machine's 2 cores are shared with other tests.
        before = psutil.Process(door.process.pid).cpu_times()
        for _ in range(100):
            sqs.send_message(QueueUrl=other, MessageBody="x")
        after = psutil.Process(door.process.pid).cpu_times()
        return after.user + after.system - before.user - before.system

    alone = server_cpu_of_100_sends()
    poll = json_request("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
    polls = []
    try:
        for _ in range(2000):
            conn = socket.create_connection(("127.0.0.1", port(door)), timeout=10)
            conn.sendall(poll)
            polls.append(conn)
        deadline = time.monotonic() + 20
        while metric(door, "sqs_long_polls_waiting") < 2000:
            assert time.monotonic() < deadline, "the polls did not all wait"
            time.sleep(0.05)
        # Loose: on 2 shared cores two runs of the same 100 sends differ by up to 1.5x.
        assert server_cpu_of_100_sends() < 2 * alone + 0.02  # 0.02: psutil's 10 ms ticks
        for start in range(0, 2000, 10):
            entries = [{"Id": str(i), "MessageBody": f"m{start + i}"} for i in range(10)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        bodies = []
        for conn in polls:
            answer = read_reply(conn)
            messages = json.loads(answer.partition(b"\r\n\r\n")[2]).get("Messages", [])
            assert len(messages) == 1
            bodies.append(messages[0]["Body"])
        assert sorted(bodies) == sorted(f"m{i}" for i in range(2000))  # each message woke exactly one poll
    finally:
        for conn in polls:
            conn.close()


def read_reply(conn) -> bytes:
    """One response on a kept-alive connection (its Content-Length says where it ends)."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += conn.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_long_poll_past_the_cap_is_answered_empty_at_once_and_counted():
    server = start_emulator("manual", "waits", "--max-waits", "2")
    sqs = sqs_client(server.url)
    polls = []
    try:
        url = sqs.create_queue(QueueName="capped")["QueueUrl"]
        poll = json_request("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
        for _ in range(2):
            conn = socket.create_connection(("127.0.0.1", port(server)), timeout=10)
            conn.sendall(poll)
            polls.append(conn)
        deadline = time.monotonic() + 10
        while metric(server, "sqs_long_polls_waiting") < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        started = time.monotonic()
        assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
        assert time.monotonic() - started < 2  # not 20 s: the manual clock has not moved
        assert metric(server, "sqs_long_polls_refused_total") == 1
        sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": i, "MessageBody": "woken"} for i in "ab"])
        assert all(b'"Body":"woken"' in read_reply(conn) for conn in polls)  # the two waits go on
        assert metric(server, "sqs_long_polls_waiting") == 0
    finally:
        for conn in polls:
            conn.close()
        server.stop()


# -- what a client can make the server hold (issue 37's review of 60263b6) ---------------------


def _sending_bodies(server, count: int, size: int, headers: bytes) -> list[socket.socket]:
    """`count` connections, each sending a head of Content-Length `size` and as much of its body
    as the server takes without blocking; none is finished."""
    conns = []
    chunk = b"a" * (256 * 1024)
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port(server)), timeout=5)
        conn.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\n" + headers + b"Content-Length: %d\r\n\r\n" % size)
        conn.setblocking(False)
        sent = 0
        try:
            while sent < size - len(chunk):
                sent += conn.send(chunk)
        except (BlockingIOError, ConnectionResetError, BrokenPipeError):
            pass
        conns.append(conn)
    return conns


def test_bodies_being_read_share_one_budget():
    # 300 unfinished 3 MiB bodies: held whole they would take about 900 MiB (the review's 1,000
    # took 2.7 GiB); read against one budget for all connections, the server holds about
    # its budget (128 MiB and a read a connection), and the rest waits in the kernel's buffers.
    server = start_emulator("manual", "bodies")
    try:
        before = warm(server, sqs_client(server.url))
        conns = _sending_bodies(server, 300, 3 * MIB, b"X-Amz-Target: AmazonSQS.SendMessage\r\n" + JSON)
        time.sleep(1)  # real time: what the server reads meanwhile is what it holds
        try:
            grown = rss(server) - before
            assert grown < 300 * MIB, f"{grown / MIB:.0f} MiB held for unfinished bodies"
            assert sqs_client(server.url).list_queues()["ResponseMetadata"]["HTTPStatusCode"] == 200
        finally:
            for conn in conns:
                conn.close()
    finally:
        server.stop()


def test_under_require_auth_an_unsigned_request_is_refused_from_its_head(tmp_path):
    config = tmp_path / "auth.toml"
    config.write_text(
        '[[credentials]]\naccess_key = "AKIDALICE"\nsecret_key = "alice-secret"\naccount = "111111111111"\n'
    )
    server = start_emulator("manual", "unsigned", "--require-auth", "--config", str(config))
    try:
        before = rss(server)
        with socket.create_connection(("127.0.0.1", port(server)), timeout=5) as conn:
            conn.sendall(post("ListQueues", JSON + b"Content-Length: %d\r\n\r\n" % (3 * MIB)))
            answer = read_to_close(conn)  # answered with no byte of the body sent
        assert status(answer) == 403 and closes(answer)
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["__type"].endswith("MissingAuthenticationToken")
        conns = _sending_bodies(server, 200, 3 * MIB, b"X-Amz-Target: AmazonSQS.ListQueues\r\n" + JSON)
        for conn in conns:
            conn.close()
        assert rss(server) - before < 64 * MIB
    finally:
        server.stop()


def test_a_client_that_reads_too_slowly_is_closed_at_the_write_deadline():
    # --write-timeout is a deadline for a whole answer: a client that reads, but 40 KiB a second,
    # does not hold a 2 MB answer for the minute it would take (the kernel's deadline only ends
    # clients that read nothing).
    server = start_emulator("manual", "slow-reader", "--write-timeout", "2")
    sqs = sqs_client(server.url)
    try:
        url = sqs.create_queue(QueueName="slow")["QueueUrl"]
        for batch in range(3):
            entries = [{"Id": str(i), "MessageBody": chr(97 + batch) * (250 * 1024)} for i in range(3)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        poll = json_request("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10, "VisibilityTimeout": 0})
        conn = socket.socket()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.settimeout(5)
        conn.connect(("127.0.0.1", port(server)))
        started = time.monotonic()
        with conn:
            conn.sendall(poll)
            received = 0
            try:
                while chunk := conn.recv(4096):
                    received += len(chunk)
                    time.sleep(0.1)  # real time: this client is slow on purpose
                    assert time.monotonic() - started < 20, "still open"
            except ConnectionResetError:
                pass
        assert received < 2 * MIB  # cut off, not read whole
        assert time.monotonic() - started < 10
        assert sqs.list_queues()["QueueUrls"]  # still serving
    finally:
        server.stop()


def test_a_long_poll_whose_client_went_away_frees_its_place_and_takes_no_message():
    server = start_emulator("manual", "gone", "--max-waits", "2")
    sqs = sqs_client(server.url)
    try:
        url = sqs.create_queue(QueueName="gone")["QueueUrl"]
        poll = json_request("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
        for _ in range(2):  # each sends its poll and closes: no client is left to answer
            with socket.create_connection(("127.0.0.1", port(server)), timeout=5) as conn:
                conn.sendall(poll)
        deadline = time.monotonic() + 10
        while metric(server, "sqs_long_polls_waiting") > 0:
            assert time.monotonic() < deadline, "the polls of closed connections still wait"
            time.sleep(0.05)
        assert metric(server, "sqs_long_polls_refused_total") == 0
        sqs.send_message(QueueUrl=url, MessageBody="for someone still here")
        assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "for someone still here"
    finally:
        server.stop()


def test_idle_connections_at_the_cap_make_room_for_a_newcomer_at_once():
    # The review's 10,000 idle connections kept every other client out for 23-27 s: at the cap
    # the oldest idle connection is closed for a newcomer, which is served at once.
    server = start_emulator("manual", "idle-cap", "--max-connections", "50")
    idle = []
    try:
        for _ in range(50):
            conn = socket.create_connection(("127.0.0.1", port(server)), timeout=5)
            _served_once(conn)
            idle.append(conn)
        started = time.monotonic()
        assert sqs_client(server.url).list_queues()["ResponseMetadata"]["HTTPStatusCode"] == 200
        assert time.monotonic() - started < 3  # not the 120 s of --idle-timeout
        assert read_to_close(idle[0]) == b""  # the oldest was closed for it
    finally:
        for conn in idle:
            conn.close()
        server.stop()


def test_pipelined_requests_are_answered_in_order(door, sqs):
    url = sqs.create_queue(QueueName="pipelined")["QueueUrl"]
    requests = b"".join(
        json_request("SendMessage", {"QueueUrl": url, "MessageBody": f"m{i}"}) for i in range(5)
    ) + json_request("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10})
    with socket.create_connection(("127.0.0.1", port(door)), timeout=5) as conn:
        conn.sendall(requests)
        replies = conn.makefile("rb")
        answers = []
        for _ in range(6):
            head = b"".join(iter(replies.readline, b"\r\n"))
            length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
            answers.append((status(head), json.loads(replies.read(length))))
    assert [code for code, _ in answers] == [200] * 6
    sent = [body["MessageId"] for _, body in answers[:5]]
    received = answers[-1][1]["Messages"]
    assert sorted(m["Body"] for m in received) == [f"m{i}" for i in range(5)]
    assert {m["MessageId"] for m in received} == set(sent)  # each answer is its own request's


def test_expect_100_continue_gets_a_continue_before_the_body(door, sqs):
    url = sqs.create_queue(QueueName="expecting")["QueueUrl"]
    body = json.dumps({"QueueUrl": url, "MessageBody": "after a continue"}).encode()
    with socket.create_connection(("127.0.0.1", port(door)), timeout=5) as conn:
        conn.sendall(post("SendMessage", JSON + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body)))
        assert conn.recv(65536).startswith(b"HTTP/1.1 100 ")
        conn.sendall(body)
        assert status(read_reply(conn)) == 200
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "after a continue"


def test_the_largest_valid_query_request_fits_under_its_limit(door, sqs):
    # AWS takes a message of up to 1 MiB in either protocol. Over the query protocol a Binary
    # value is base64, whose "+" and "/" are URL-encoded again: 1,000,000 bytes of 0xFF are
    # 4,000,000 bytes on the wire, over the JSON limit (3 MiB and 64 KiB), under the query one.
    url = sqs.create_queue(QueueName="largest-query")["QueueUrl"]
    value = b"\xff" * 1_000_000
    form = urllib.parse.urlencode(
        {
            "Action": "SendMessage",
            "Version": "2012-11-05",
            "QueueUrl": url,
            "MessageBody": "x",
            "MessageAttribute.1.Name": "blob",
            "MessageAttribute.1.Value.DataType": "Binary",
            "MessageAttribute.1.Value.BinaryValue": base64.b64encode(value).decode(),
        }
    ).encode()
    assert len(form) > 4_000_000
    request = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + QUERY + b"Content-Length: %d\r\n\r\n" % len(form)
    with socket.create_connection(("127.0.0.1", port(door)), timeout=10) as conn:
        conn.sendall(request + form)
        answer = read_reply(conn)
    assert status(answer) == 200, answer[:300]
    received = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"][0]
    assert received["MessageAttributes"]["blob"]["BinaryValue"] == value
