"""Long polls held open: COUNT connections, each in a ReceiveMessage with WaitTimeSeconds=20
on one queue, asking again whenever an answer comes (raw HTTP on asyncio: boto3 would hold a
thread per poll). The saturation figure measures SendMessage on another queue meanwhile.

    python -m bench.pollers --port PORT --queue-url URL [--count 2000]

Prints one JSON line once every poll is sent and none has been answered for a moment
({"connections": N, "answered": N}), then polls until terminated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bench.wire import Wire


def poll_request(port: int, url: str) -> bytes:
    body = json.dumps({"QueueUrl": url, "WaitTimeSeconds": 20, "MaxNumberOfMessages": 10}).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-amz-json-1.0\r\n"
        f"X-Amz-Target: AmazonSQS.ReceiveMessage\r\nAuthorization: {Wire.AUTHORIZATION}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class Polls:
    def __init__(self, port: int, request: bytes):
        self.port = port
        self.request = request
        self.connections = 0
        self.sent = 0
        self.answered = 0

    async def hold(self) -> None:
        """One connection polling for good; a new one when the server closes it."""
        while True:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:  # the listen backlog full for a moment
                await asyncio.sleep(0.1)
                continue
            self.connections += 1
            try:
                while True:
                    writer.write(self.request)
                    self.sent += 1
                    head = await reader.readuntil(b"\r\n\r\n")
                    await reader.readexactly(_content_length(head))
                    self.answered += 1
            except (asyncio.IncompleteReadError, ConnectionError):
                self.connections -= 1
                writer.close()


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


async def main(port: int, url: str, count: int) -> None:
    polls = Polls(port, poll_request(port, url))
    tasks = [asyncio.create_task(polls.hold()) for _ in range(count)]
    while polls.sent < count:
        await asyncio.sleep(0.05)
        for task in tasks:
            if task.done():
                task.result()  # raises what ended it
    await asyncio.sleep(0.5)  # a poll the server answers at once shows here
    print(json.dumps({"connections": polls.connections, "answered": polls.answered}), flush=True)
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--queue-url", required=True)
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    try:
        asyncio.run(main(args.port, args.queue_url, args.count))
    except KeyboardInterrupt:
        sys.exit(0)
