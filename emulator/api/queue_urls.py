"""Queue URLs: the forms the server renders, and every form it reads.

On AWS a queue URL is ``https://sqs.<region>.amazonaws.com/<account>/<name>``:
the path never names the region, the host does (docs/sqs-reference.md section 3).
The server renders one of three forms, ``--queue-urls``:

- ``aws`` (the default): ``<base>/<account>/<name>`` in every region, the shape
  libraries check (sqsx validates ``(http|https)://host/<12 digits>/<name>``); the
  queue is the one of the request's signing region, as on AWS, where a URL and
  its signature name the same region.
- ``path``: ``<base>/<region>/<account>/<name>`` for regions other than the
  server's, so a URL alone names its queue whoever signs.
- ``host``: ``<scheme>://sqs.<region>.<host>/<account>/<name>``, for set-ups whose
  DNS resolves such names.

Every form is read whichever is rendered, and a bare queue name too, and
LocalStack's path form ``/queue/<region>/<account>/<name>``.
"""

import functools
import re
from typing import NamedTuple
from urllib.parse import urlsplit

FORMS = ("aws", "path", "host")

# A region as AWS names them (us-east-1, eu-central-2, us-gov-west-1), so that a
# --hostname such as sqs.internal is not read as region "internal".
_REGION = r"[a-z]{2}(?:-[a-z]+)+-\d+"
_REGIONAL_HOST = re.compile(rf"sqs\.({_REGION})\.")


class Address(NamedTuple):
    """What a QueueUrl names; None where the URL leaves it to the request."""

    region: str | None
    account: str | None
    name: str


def unregional(host: str) -> str:
    """A host without the host form's ``sqs.<region>.`` (the name it is a subdomain of)."""
    regional = _REGIONAL_HOST.match(host)
    return host[regional.end() :] if regional else host


def render(form: str, base_url: str, region: str, account: str, name: str, default_region: str) -> str:
    if form == "host":
        scheme, _, host = base_url.partition("://")
        return f"{scheme}://sqs.{region}.{unregional(host)}/{account}/{name}"  # it may have come to one
    if form == "path" and region != default_region:
        return f"{base_url}/{region}/{account}/{name}"
    return f"{base_url}/{account}/{name}"


@functools.lru_cache(maxsize=256)  # a client names its few queues again and again; an Address is immutable
def parse(queue_url: str) -> Address | None:
    """The parts a QueueUrl names, in any form; None if it names no queue."""
    if "/" not in queue_url:
        return Address(None, None, queue_url) if queue_url else None
    parts = urlsplit(queue_url)
    segments = parts.path.strip("/").split("/")
    if not all(segments):
        return None
    if len(segments) == 4 and segments[0] == "queue":
        segments = segments[1:]  # LocalStack's path form: /queue/<region>/<account>/<name>
    host_region = _REGIONAL_HOST.match(parts.hostname or "")
    if len(segments) == 2:
        return Address(host_region.group(1) if host_region else None, segments[0], segments[1])
    if len(segments) == 3:
        return Address(segments[0], segments[1], segments[2])
    return None
