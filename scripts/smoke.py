"""The smoke suite: real clients against an emulator started as users start it (the
container image, or the wheel installed in a fresh venv), stopped as they stop it, and
started again on the same data dir.

    python scripts/smoke.py --url http://127.0.0.1:9324 \
        --start "sqs-emulator --port 9324 --data-dir /tmp/smoke-data" [--stop "COMMAND"]

--start runs in the background (twice: before and after the stop); --stop, when given,
stops it (`podman stop NAME`), else the started process gets SIGTERM, as `docker stop`
sends it. The checks (with --health and --allowed-host, those too): create, send, receive and delete on a standard queue, a FIFO
queue's order and deduplication, a long poll that a send from another client ends, the
dashboard's page, and the queues and the message the first run left, back in the second.
Needs boto3. Prints one line per check and ends with 'N passed, N failed'; exit 1 on a failure.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request

import boto3
from botocore.config import Config

START_TIMEOUT = 120  # seconds for a container to answer /_emulator/health
STOP_TIMEOUT = 60
KEPT = "smoke-kept"  # the queue whose message must outlive the restart


def client(url: str):
    return boto3.session.Session().client(
        "sqs",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"max_attempts": 1}, read_timeout=30),
    )


def wait_healthy(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_emulator/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        if server.poll() is not None:
            raise SystemExit(f"smoke: the server exited ({server.returncode}) before it answered")
        if time.monotonic() > deadline:
            raise SystemExit(f"smoke: no answer from {url}/_emulator/health after {START_TIMEOUT} s")
        time.sleep(0.2)


# -- the checks of the first run --


def health(command: str) -> None:
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)


def standard_queue(sqs) -> None:
    url = sqs.create_queue(QueueName="smoke-standard")["QueueUrl"]
    assert url.endswith("/000000000000/smoke-standard"), url
    sent = sqs.send_message(QueueUrl=url, MessageBody="hello")["MessageId"]
    [message] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert message["MessageId"] == sent and message["Body"] == "hello"
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (
        attributes["ApproximateNumberOfMessages"] == "0" and attributes["ApproximateNumberOfMessagesNotVisible"] == "0"
    )
    sqs.delete_queue(QueueUrl=url)
    assert url not in sqs.list_queues(QueueNamePrefix="smoke-standard").get("QueueUrls", [])


def fifo_queue(sqs) -> None:
    url = sqs.create_queue(
        QueueName="smoke-orders.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    for body in ("first", "second", "first"):  # the third is the first's duplicate
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="customer-1")
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in received] == ["first", "second"], received
    sqs.delete_message_batch(
        QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(received)]
    )


def long_poll(sqs, url: str) -> None:
    queue = sqs.create_queue(QueueName="smoke-long-poll")["QueueUrl"]
    sender = threading.Timer(1.0, lambda: client(url).send_message(QueueUrl=queue, MessageBody="late"))
    started = time.monotonic()
    sender.start()
    try:
        answer = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=20)
    finally:
        sender.join()
    waited = time.monotonic() - started
    assert [m["Body"] for m in answer["Messages"]] == ["late"], answer
    assert 0.5 < waited < 15, f"the long poll returned after {waited:.1f} s"


def dashboard(url: str) -> None:
    with urllib.request.urlopen(f"{url}/_emulator/ui/", timeout=10) as page:
        assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
        assert b"<title>SQS emulator</title>" in page.read()


def allowed_host(url: str, name: str) -> None:
    """A request naming `name` in its Host header (a compose service's) is served, and its
    queue URLs carry that name; another name is refused (a DNS-rebinding page's)."""
    port = url.rsplit(":", 1)[1]
    target = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue"}
    body = b'{"QueueName": "smoke-by-name"}'

    def create(host: str):
        request = urllib.request.Request(url + "/", data=body, headers={**target, "Host": f"{host}:{port}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode()

    status, text = create(name)
    assert status == 200 and f"http://{name}:{port}/000000000000/smoke-by-name" in text, (status, text)
    status, text = create("attacker.example")
    assert status == 403, (status, text)


def leave_a_message(sqs) -> None:
    url = sqs.create_queue(QueueName=KEPT, Attributes={"VisibilityTimeout": "45"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="still here after the restart")


# -- the check of the second run --


def message_kept(sqs) -> None:
    url = sqs.get_queue_url(QueueName=KEPT)["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "45", attributes
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == "still here after the restart"
    assert "smoke-orders.fifo" in " ".join(sqs.list_queues()["QueueUrls"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="where the started emulator answers")
    parser.add_argument("--start", required=True, help="the command that runs the emulator (in the foreground)")
    parser.add_argument("--stop", help="the command that stops it (default: SIGTERM to --start's process)")
    parser.add_argument("--health", help="a command that must pass while it runs (the image's HEALTHCHECK)")
    parser.add_argument(
        "--allowed-host", help="a name the server's Host allow-list admits (SQS_EMULATOR_ALLOWED_HOSTS)"
    )
    args = parser.parse_args()
    sqs = client(args.url)
    runs = [
        [
            *([("the health check", lambda: health(args.health))] if args.health else []),
            ("create, send, receive, delete", lambda: standard_queue(sqs)),
            ("a FIFO queue: order and deduplication", lambda: fifo_queue(sqs)),
            ("a long poll ended by a send", lambda: long_poll(sqs, args.url)),
            ("the dashboard's page", lambda: dashboard(args.url)),
            *(
                [(f"the Host allow-list admits {args.allowed_host}", lambda: allowed_host(args.url, args.allowed_host))]
                if args.allowed_host
                else []
            ),
            ("a message left for the restart", lambda: leave_a_message(sqs)),
        ],
        [("after a stop and a new start on the same data dir: the queues and the message", lambda: message_kept(sqs))],
    ]
    passed = failed = 0
    for checks in runs:
        server = subprocess.Popen(shlex.split(args.start), stdin=subprocess.DEVNULL)
        try:
            wait_healthy(args.url, server)
            for name, check in checks:
                try:
                    check()
                except Exception:
                    failed += 1
                    print(f"smoke: FAILED {name}\n{traceback.format_exc()}", flush=True)
                else:
                    passed += 1
                    print(f"smoke: ok {name}", flush=True)
        finally:
            if args.stop:
                subprocess.run(shlex.split(args.stop), check=False, stdout=subprocess.DEVNULL)
            else:
                server.terminate()
            try:
                code = server.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                server.kill()
                code = server.wait()
        if code != 0:
            failed += 1
            print(f"smoke: FAILED the server's exit on stop: code {code}", flush=True)
    print(f"smoke: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
