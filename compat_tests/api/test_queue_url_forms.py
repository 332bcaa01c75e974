"""The other queue URL forms, --queue-urls path and host (issue 18 item 1), and
every form read whichever the server renders. The default, aws, is
compat_tests/api/test_queue_urls.py.

- path: ``/<region>/<account>/<name>`` for regions other than the server's, so a
  URL alone names its queue whoever signs the request;
- host: ``sqs.<region>.<host>/<account>/<name>``, AWS's own shape
  (https://sqs.<region>.amazonaws.com/<account>/<name>, docs/sqs-reference.md
  section 3) for set-ups whose DNS resolves such names.
"""

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    RawClient,
    arn_of,
    receive,
    receive_one,
    sqs_client,
    unique_name,
)
from compat_tests.servers import start_emulator

OTHER_REGION = "eu-north-1"
FORMS = ("aws", "path", "host")

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="--queue-urls is the emulator's option")


@pytest.fixture(scope="module", params=FORMS)
def server(request):
    started = start_emulator("manual", f"emulator-urls-{request.param}", "--queue-urls", request.param)
    try:
        yield request.param, started.url
    finally:
        started.stop()


def _expected(form: str, endpoint: str, region: str, name: str) -> str:
    scheme, host = endpoint.split("://")
    if form == "host":
        return f"{scheme}://sqs.{region}.{host}/{DEFAULT_ACCOUNT}/{name}"
    if form == "path" and region != "us-east-1":
        return f"{endpoint}/{region}/{DEFAULT_ACCOUNT}/{name}"
    return f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"


def test_each_form_is_rendered_by_every_operation(server):
    form, endpoint = server
    name = unique_name()
    for region in ("us-east-1", OTHER_REGION):
        client = sqs_client(endpoint, region=region)
        url = client.create_queue(QueueName=name)["QueueUrl"]
        assert url == _expected(form, endpoint, region, name)
        assert client.get_queue_url(QueueName=name)["QueueUrl"] == url
        assert client.list_queues(QueueNamePrefix=name)["QueueUrls"] == [url]


@pytest.mark.parametrize("given", (*FORMS, "name"))
def test_every_form_is_read_whichever_is_rendered(server, given):
    """A URL in any form, or a bare name, reaches the queue it names (issue 18 item 1). The one
    reading that depends on the form rendered: with path URLs, a URL without a region is the
    server's region's (that is what such a URL means there); elsewhere it is the signing region's."""
    form, endpoint = server
    name = unique_name()
    north, east = sqs_client(endpoint, region=OTHER_REGION), sqs_client(endpoint)
    rendered = {OTHER_REGION: north.create_queue(QueueName=name)["QueueUrl"]}
    rendered["us-east-1"] = east.create_queue(QueueName=name)["QueueUrl"]  # a namesake in the server's region
    url = name if given == "name" else _expected(given, endpoint, OTHER_REGION, name)
    region = "us-east-1" if (form, given) == ("path", "aws") else OTHER_REGION
    north.send_message(QueueUrl=url, MessageBody=f"as {given}")
    owner = north if region == OTHER_REGION else east
    assert [m["Body"] for m in receive(owner, rendered[region])] == [f"as {given}"]
    assert arn_of(north, url) == f"arn:aws:sqs:{region}:{DEFAULT_ACCOUNT}:{name}"


def test_a_url_naming_its_region_wins_over_the_signature(server):
    """The path and host forms name the region, so another region's client reaches that queue;
    the aws form leaves the region to the signature (as on AWS, where the host names it)."""
    form, endpoint = server
    name = unique_name()
    east, north = sqs_client(endpoint), sqs_client(endpoint, region=OTHER_REGION)
    east_url = east.create_queue(QueueName=name)["QueueUrl"]
    north_url = north.create_queue(QueueName=name)["QueueUrl"]
    east.send_message(QueueUrl=north_url, MessageBody="sent by an east client")
    reached = north if form in ("path", "host") else east
    assert receive_one(reached, north_url if reached is north else east_url)["Body"] == "sent by an east client"


def test_query_request_to_a_host_form_url(server):
    """Raw query clients send to the URL itself: the Host header names the region."""
    _, endpoint = server
    name = unique_name()
    north = sqs_client(endpoint, region=OTHER_REGION)
    url = north.create_queue(QueueName=name)["QueueUrl"]
    raw = RawClient(endpoint)
    host = f"sqs.{OTHER_REGION}.{endpoint.split('://')[1]}"
    params = {"Action": "SendMessage", "MessageBody": "by host"}
    resp = raw.query(params, path=f"/{DEFAULT_ACCOUNT}/{name}", headers={"Host": host})
    assert resp.status == 200, resp.body
    assert receive_one(north, url)["Body"] == "by host"
