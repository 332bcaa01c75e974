"""Who is asking and where: the account, region and host of one request."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from emulator.engine.broker import Broker
from emulator.engine.queue import Queue
from emulator.errors import queue_does_not_exist


@dataclass(frozen=True)
class Context:
    broker: Broker
    account: str
    region: str
    base_url: str  # scheme://host[:port] as the client addressed us, so URLs survive port mappings
    sender_id: str

    def queue_url(self, queue: Queue) -> str:
        return f"{self.base_url}/{queue.account}/{queue.name}"

    def queue(self, queue_url: str) -> Queue:
        """The queue a QueueUrl names, matched by account and name whatever its host."""
        parts = urlsplit(queue_url).path.strip("/").split("/")
        if len(parts) != 2 or not all(parts):
            raise queue_does_not_exist()
        account, name = parts
        return self.broker.get_queue(account, self.region, name)
