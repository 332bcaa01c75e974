"""Queue URLs in the default form, --queue-urls aws: ``/<account>/<name>`` in every
region, as on AWS, whose URLs name the region only in the host
(https://sqs.<region>.amazonaws.com/<account>/<name>, docs/sqs-reference.md
section 3; issue 18 item 1). A request is served by the queue of the account
and name its URL gives, in the region the URL's host names, else in the
region of the request's signature. The other forms, and every form read
whichever is rendered: compat_tests/api/test_queue_url_forms.py. A bare queue name
is accepted wherever a QueueUrl goes, for the caller's account and region, as
on AWS.
"""

import json
import re

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    QUEUE_DOES_NOT_EXIST,
    arn_of,
    expect_error,
    queue_attrs,
    receive,
    receive_one,
    sqs_client,
    unique_name,
)
from compat_tests.servers import start_emulator

OTHER_REGION = "eu-north-1"
OTHER_ACCOUNT = "111111111111"
emulator_only = pytest.mark.skipif(TARGET != "emulator", reason="the URL form and --hostname are the emulator's")
# The shape libraries check before they send (sqsx: (http|https)://host/<12 digits>/<name>).
AWS_SHAPE = r"https?://[^/]+/\d{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?"


@pytest.fixture
def north(make_client):
    return make_client(region=OTHER_REGION)


@emulator_only
def test_every_region_has_the_aws_form(sqs, north, endpoint, queue_factory):
    name = unique_name()
    east = queue_factory(name)
    other = queue_factory(name, client=north)
    assert east == other == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"
    assert re.fullmatch(AWS_SHAPE, other)
    # Every operation that answers with URLs renders them the same way.
    assert north.get_queue_url(QueueName=name)["QueueUrl"] == other
    assert north.list_queues(QueueNamePrefix=name)["QueueUrls"] == [other]
    assert north.create_queue(QueueName=name)["QueueUrl"] == other


def test_same_name_in_two_regions_or_accounts_is_two_queues(sqs, north, make_client, queue_factory):
    """One name in two regions stays two queues, each listed in its own region (docs/sqs-reference.md
    section 3: on AWS the same name created through clients of two regions is two queues with two URLs,
    and GetQueueUrl from another region does not find it; issue 18 item 1)."""
    name = unique_name()
    stranger = make_client(access_key=OTHER_ACCOUNT)
    east = queue_factory(name)
    other_region = queue_factory(name, client=north)
    other_account = queue_factory(name, client=stranger)
    arns = {arn_of(sqs, east), arn_of(north, other_region), arn_of(stranger, other_account)}
    assert arns == {
        f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{name}",
        f"arn:aws:sqs:{OTHER_REGION}:{DEFAULT_ACCOUNT}:{name}",
        f"arn:aws:sqs:us-east-1:{OTHER_ACCOUNT}:{name}",
    }
    assert sqs.list_queues(QueueNamePrefix=name)["QueueUrls"] == [east]
    assert north.list_queues(QueueNamePrefix=name)["QueueUrls"] == [other_region]
    expect_error(north, north.get_queue_url, QueueName=unique_name("missing"), **QUEUE_DOES_NOT_EXIST)


@emulator_only
def test_a_url_without_a_region_is_the_signing_regions_queue(sqs, north, queue_factory):
    """On AWS a URL's region is its host's, and a client signs for the region it sends to; here the
    host is the server's, so the signature says the region (issue 18 item 1)."""
    name = unique_name()
    east = queue_factory(name)
    other = queue_factory(name, client=north)
    sqs.send_message(QueueUrl=east, MessageBody="to the east")
    north.send_message(QueueUrl=other, MessageBody="to the north")
    assert [m["Body"] for m in receive(north, other)] == ["to the north"]
    assert [m["Body"] for m in receive(sqs, east)] == ["to the east"]
    assert arn_of(north, other) == f"arn:aws:sqs:{OTHER_REGION}:{DEFAULT_ACCOUNT}:{name}"


def test_dead_letter_sources_are_listed_with_their_urls(north, queue_factory):
    dlq = queue_factory(client=north)
    source = queue_factory(
        client=north,
        attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": arn_of(north, dlq), "maxReceiveCount": 2})},
    )
    assert north.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [source]


@emulator_only
@pytest.mark.parametrize(
    "form",
    [
        "https://sqs.{region}.amazonaws.com/{region}/{account}/{name}",  # the region in the path
        "https://sqs.{region}.amazonaws.com/{account}/{name}",  # AWS's own: the region in the host
        "http://sqs.{region}.localhost:4566/{account}/{name}",
    ],
    ids=["path", "aws-host", "local-host"],
)
def test_incoming_urls_name_their_region_in_the_path_or_the_host(sqs, north, queue_factory, form):
    name = unique_name()
    url = queue_factory(name, client=north)
    queue_factory(name)  # the same name in the signing region is not the one the URL names
    foreign = form.format(region=OTHER_REGION, account=DEFAULT_ACCOUNT, name=name)
    sqs.send_message(QueueUrl=foreign, MessageBody="any host")
    assert receive_one(north, url)["Body"] == "any host"


@emulator_only
def test_query_request_posted_to_a_queue_url(raw, north, queue_factory):
    url = queue_factory(client=north)
    path = url[len(raw.endpoint) :]
    resp = raw.query({"Action": "SendMessage", "MessageBody": "via the path"}, path=path, region=OTHER_REGION)
    assert resp.status == 200, resp.body
    assert receive_one(north, url)["Body"] == "via the path"


# ---------------------------------------------------------------- a bare queue name as QueueUrl


def test_bare_queue_name_works_as_queue_url(sqs, queue_factory):
    name = unique_name()
    url = queue_factory(name)
    sqs.set_queue_attributes(QueueUrl=name, Attributes={"VisibilityTimeout": "17"})
    assert queue_attrs(sqs, name, "VisibilityTimeout") == {"VisibilityTimeout": "17"}
    sqs.send_message(QueueUrl=name, MessageBody="by name")
    message = receive_one(sqs, name)
    sqs.delete_message(QueueUrl=name, ReceiptHandle=message["ReceiptHandle"])
    assert receive(sqs, url) == []


def test_bare_queue_name_is_the_callers_region_and_account(sqs, north, make_client, queue_factory):
    name = unique_name()
    east = queue_factory(name)
    other = queue_factory(name, client=north)
    north.send_message(QueueUrl=name, MessageBody="north by name")
    assert receive(sqs, east) == []
    assert receive_one(north, other)["Body"] == "north by name"
    stranger = make_client(access_key=OTHER_ACCOUNT)
    expect_error(stranger, stranger.send_message, QueueUrl=name, MessageBody="x", **QUEUE_DOES_NOT_EXIST)


def test_missing_bare_queue_name(sqs):
    expect_error(
        sqs, sqs.get_queue_attributes, QueueUrl=unique_name("missing"), AttributeNames=["All"], **QUEUE_DOES_NOT_EXIST
    )


# ---------------------------------------------------------------- --hostname


@pytest.fixture(scope="module", params=["sqs.internal", "sqs.internal:4566"])
def hostname_server(request):
    if TARGET != "emulator":
        pytest.skip("--hostname is the emulator's option")
    server = start_emulator("manual", "emulator-hostname", "--hostname", request.param)
    try:
        yield request.param, server.url
    finally:
        server.stop()


def test_hostname_sets_the_host_of_queue_urls(hostname_server):
    hostname, endpoint = hostname_server
    port = endpoint.rsplit(":", 1)[1]
    host = hostname if ":" in hostname else f"{hostname}:{port}"  # without a port: the request's port
    client = sqs_client(endpoint)
    name = unique_name()
    url = client.create_queue(QueueName=name)["QueueUrl"]
    assert url == f"http://{host}/{DEFAULT_ACCOUNT}/{name}"
    assert client.list_queues(QueueNamePrefix=name)["QueueUrls"] == [url]
    # The URL's host need not resolve: the path names the queue.
    client.send_message(QueueUrl=url, MessageBody="hello")
    assert receive_one(client, url)["Body"] == "hello"
    north = sqs_client(endpoint, region=OTHER_REGION)
    assert north.create_queue(QueueName=name)["QueueUrl"] == f"http://{host}/{DEFAULT_ACCOUNT}/{name}"
