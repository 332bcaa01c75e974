"""Queue URLs: they name the queue's region and account, and a request is
served by the queue its URL names (docs/sqs-reference.md section 3).

The server's default region keeps the short form ``/<account>/<name>``; other
regions carry the region in the path, ``/<region>/<account>/<name>``. A bare
queue name is accepted wherever a QueueUrl goes, for the caller's account and
region, as on AWS.
"""

import json

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


@pytest.fixture
def north(make_client):
    return make_client(region=OTHER_REGION)


@emulator_only
def test_default_region_keeps_the_short_form(sqs, endpoint, queue_factory):
    name = unique_name()
    url = queue_factory(name)
    assert url == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"


@emulator_only
def test_other_regions_carry_the_region_in_the_path(north, endpoint, queue_factory):
    name = unique_name()
    url = queue_factory(name, client=north)
    assert url == f"{endpoint}/{OTHER_REGION}/{DEFAULT_ACCOUNT}/{name}"
    # Every operation that answers with URLs renders them the same way.
    assert north.get_queue_url(QueueName=name)["QueueUrl"] == url
    assert north.list_queues(QueueNamePrefix=name)["QueueUrls"] == [url]
    assert north.create_queue(QueueName=name)["QueueUrl"] == url


def test_same_name_in_two_regions_or_accounts_gets_two_urls(sqs, north, make_client, queue_factory):
    name = unique_name()
    east = queue_factory(name)
    other_region = queue_factory(name, client=north)
    other_account = queue_factory(name, client=make_client(access_key=OTHER_ACCOUNT))
    assert len({east, other_region, other_account}) == 3
    expect_error(north, north.get_queue_url, QueueName=unique_name("missing"), **QUEUE_DOES_NOT_EXIST)


def test_the_url_names_the_queue_not_the_signing_region(sqs, north, queue_factory):
    name = unique_name()
    east = queue_factory(name)
    other = queue_factory(name, client=north)
    # A us-east-1 client using the eu-north-1 URL reaches the eu-north-1 queue, and back.
    sqs.send_message(QueueUrl=other, MessageBody="to the north")
    north.send_message(QueueUrl=east, MessageBody="to the east")
    assert [m["Body"] for m in receive(north, other)] == ["to the north"]
    assert [m["Body"] for m in receive(sqs, east)] == ["to the east"]
    assert arn_of(sqs, other) == f"arn:aws:sqs:{OTHER_REGION}:{DEFAULT_ACCOUNT}:{name}"


def test_dead_letter_sources_are_listed_with_their_urls(north, queue_factory):
    dlq = queue_factory(client=north)
    source = queue_factory(
        client=north,
        attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": arn_of(north, dlq), "maxReceiveCount": 2})},
    )
    assert north.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [source]


@emulator_only
def test_incoming_urls_are_matched_by_path_whatever_their_host(sqs, north, queue_factory):
    name = unique_name()
    url = queue_factory(name, client=north)
    foreign = f"https://sqs.{OTHER_REGION}.amazonaws.com/{OTHER_REGION}/{DEFAULT_ACCOUNT}/{name}"
    sqs.send_message(QueueUrl=foreign, MessageBody="any host")
    assert receive_one(north, url)["Body"] == "any host"


@emulator_only
def test_query_request_posted_to_a_regional_queue_url(raw, north, queue_factory):
    url = queue_factory(client=north)
    path = url[len(raw.endpoint) :]
    assert path.startswith(f"/{OTHER_REGION}/")
    resp = raw.query({"Action": "SendMessage", "MessageBody": "via the path"}, path=path)
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
    assert north.create_queue(QueueName=name)["QueueUrl"] == f"http://{host}/{OTHER_REGION}/{DEFAULT_ACCOUNT}/{name}"
