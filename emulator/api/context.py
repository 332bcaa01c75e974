"""Who is asking and where: the account, region and host of one request."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from emulator.api import validation
from emulator.engine.broker import Broker
from emulator.engine.queue import Queue
from emulator.errors import SqsError, queue_does_not_exist


@dataclass(frozen=True)
class Context:
    broker: Broker
    account: str
    region: str  # the request's signing region
    base_url: str  # scheme://host[:port] that queue URLs carry (the client's Host header, or --hostname)
    default_region: str  # the server's --region: its queues keep the short URL form
    sender_id: str
    trace_header: str | None = None  # the request's X-Amzn-Trace-Id, for AWSTraceHeader
    auto_create: bool = False  # --auto-create: a missing queue is created with default attributes

    def queue_url(self, queue: Queue) -> str:
        """The URL of a queue, the one form every operation renders.

        A URL names its queue's region, as AWS's sqs.<region>.amazonaws.com
        does; the region goes in the path because subdomains of localhost do
        not resolve everywhere. The default region keeps the short form.
        """
        if queue.region == self.default_region:
            return f"{self.base_url}/{queue.account}/{queue.name}"
        return f"{self.base_url}/{queue.region}/{queue.account}/{queue.name}"

    def queue(self, queue_url: str) -> Queue:
        """The queue a QueueUrl names, matched by its path whatever its host.

        As on AWS, a bare queue name stands for that queue of the caller's
        account and region.
        """
        if "/" not in queue_url:
            return self.named_queue(self.account, self.region, queue_url)
        parts = urlsplit(queue_url).path.strip("/").split("/")
        if not all(parts):
            raise queue_does_not_exist()
        if len(parts) == 4 and parts[0] == "queue":
            parts = parts[1:]  # LocalStack's path form: /queue/<region>/<account>/<name>
        if len(parts) == 2:
            return self.named_queue(parts[0], self.default_region, parts[1])
        if len(parts) == 3:
            return self.named_queue(parts[1], parts[0], parts[2])
        raise queue_does_not_exist()

    def named_queue(self, account: str, region: str, name: str) -> Queue:
        try:
            return self.broker.get_queue(account, region, name)
        except SqsError:
            if not self.auto_create:
                raise
        fifo = name.endswith(".fifo")
        try:
            validation.queue_name(name, fifo)
        except SqsError:
            raise queue_does_not_exist() from None  # no queue can have that name
        return self.broker.create_queue(account, region, name, {"FifoQueue": "true"} if fifo else {})[0]
