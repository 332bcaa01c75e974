"""Who is asking and where: the account, region and host of one request."""

from typing import NamedTuple

from emulator.api import access, queue_urls, validation
from emulator.engine.broker import Broker
from emulator.engine.queue import Queue
from emulator.errors import SqsError, queue_does_not_exist


class Context(NamedTuple):  # immutable; made once a request, which a frozen dataclass made cost ~5 us
    broker: Broker
    account: str
    region: str  # the request's signing region
    base_url: str  # scheme://host[:port] that queue URLs carry (the client's Host header, or --hostname)
    default_region: str  # the server's --region: with --queue-urls path, its queues keep the short form
    sender_id: str
    trace_header: str | None = None  # the request's X-Amzn-Trace-Id, for AWSTraceHeader
    auto_create: bool = False  # --auto-create: a missing queue is created with default attributes
    url_form: str = "aws"  # --queue-urls: the form rendered (api/queue_urls.py); every form is read
    # Where the caller's account is known (api/access.py): the operation, run on another account's queue only as its Policy allows.
    action: str | None = None
    access_key: str | None = None  # the request's, as its Authorization header names it: for a message's story
    protocol: str = ""  # the wire it came in on (protocol.detect): for a message's story

    def queue_url(self, queue: Queue) -> str:
        """The URL of a queue in the server's form (api/queue_urls.py), the one every operation renders."""
        return queue_urls.render(
            self.url_form, self.base_url, queue.region, queue.account, queue.name, self.default_region
        )

    def queue(self, queue_url: str) -> Queue:
        """The queue a QueueUrl names, in any form, whatever its host.

        What the URL leaves out is the request's: a bare queue name is that queue
        of the caller's account and region (as on AWS), and a URL without a region
        is of the signing region, as on AWS; except with --queue-urls path, whose
        URLs without a region are the server's region's.
        """
        key = self.queue_key(queue_url)
        if key is None:
            raise queue_does_not_exist()
        return self.named_queue(*key)

    def queue_key(self, queue_url: str) -> tuple[str, str, str] | None:
        """The (account, region, name) a QueueUrl names, as queue() reads it (None: no queue's URL)."""
        address = queue_urls.parse(queue_url)
        if address is None:
            return None
        if address.account is None:
            return self.account, self.region, address.name
        region = address.region or (self.default_region if self.url_form == "path" else self.region)
        return address.account, region, address.name

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
        """The queue, if the caller may run this operation on it (always, where its account is not known)."""
        if self.action is None or queue.account == self.account:
            return queue
        if access.allows(queue.attributes.get("Policy"), self.account, self.action, queue.arn):
            return queue
        raise access.denied(self.queue_url(queue))
