"""Who is asking and where: the account, region and host of one request."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from emulator.api import access, validation
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
    # --require-auth: the operation, which another account's queue runs only where its Policy allows.
    action: str | None = None

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
        if len(parts) == 2:
            return self.named_queue(parts[0], self.default_region, parts[1])
        if len(parts) == 3:
            return self.named_queue(parts[1], parts[0], parts[2])
        raise queue_does_not_exist()

    def named_queue(self, account: str, region: str, name: str) -> Queue:
        if self.action is not None and account != self.account:
            # Another account's queue: AWS tells a missing one from a forbidden one to nobody.
            try:
                return self.accessible(self.broker.get_queue(account, region, name))
            except SqsError:
                raise access.denied(f"{self.base_url}/{account}/{name}") from None
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

    def accessible(self, queue: Queue) -> Queue:
        """The queue, if the caller may run this operation on it (always, without --require-auth)."""
        if self.action is None or queue.account == self.account:
            return queue
        if access.allows(queue.attributes.get("Policy"), self.account, self.action, queue.arn):
            return queue
        raise access.denied(self.queue_url(queue))
