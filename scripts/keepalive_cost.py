"""Server CPU and latency per request with and without HTTP keep-alive.

werkzeug's stock handler closes every connection; the emulator's handler keeps
it open. Both serve the real app in this process, on loopback, driven by one
boto3 client process sending N messages, alternating A, B, A, B.

    python scripts/keepalive_cost.py [-n 1500] [--rounds 2]
"""

import argparse
import subprocess
import sys
import threading
import time

import psutil
from werkzeug.serving import WSGIRequestHandler

from emulator.server.build import Options, build
from emulator.server.http import KeepAliveHandler


class ClosingHandler(WSGIRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection, as werkzeug does by default

    def log_request(self, code="-", size="-"):
        pass


CLIENT = """
import boto3, sys
c = boto3.client("sqs", endpoint_url="http://127.0.0.1:{port}", region_name="us-east-1",
                 aws_access_key_id="test", aws_secret_access_key="test")
url = c.create_queue(QueueName="keepalive")["QueueUrl"]
for _ in range(50):  # warm up: imports, connection pool
    c.send_message(QueueUrl=url, MessageBody="x" * 200)
print("ready", flush=True)
sys.stdin.readline()
for _ in range({n}):
    c.send_message(QueueUrl=url, MessageBody="x" * 200)
"""


def measure(handler, n: int) -> tuple[float, float]:
    """(server CPU us per request, wall ms per request)."""
    emulator = build(Options(port=0), handler=handler)
    server = emulator.http
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT.format(port=server.server_port, n=n)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        client.stdout.readline()
        me = psutil.Process()
        before, started = me.cpu_times(), time.perf_counter()
        client.stdin.write("\n")
        client.stdin.flush()
        client.wait(timeout=300)
        after, wall = me.cpu_times(), time.perf_counter() - started
    finally:
        client.kill()
        server.shutdown()
        emulator.close()
    cpu = (after.user + after.system) - (before.user + before.system)
    return cpu / n * 1e6, wall / n * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for name, handler in (("keep-alive", KeepAliveHandler), ("close", ClosingHandler)):
            cpu, wall = measure(handler, args.n)
            print(f"{name:10s} server CPU {cpu:6.0f} us/request   wall {wall:5.2f} ms/request", flush=True)


if __name__ == "__main__":
    main()
