"""Isolation per account (a 12-digit access key selects the account) and per region."""

from compat_tests.helpers import (
    DEFAULT_ACCOUNT,
    QUEUE_DOES_NOT_EXIST,
    expect_error,
    queue_attrs,
    receive,
    unique_name,
)

OTHER_ACCOUNT = "111111111111"


def test_twelve_digit_access_key_selects_account(make_client, endpoint, queue_factory):
    other = make_client(access_key=OTHER_ACCOUNT)
    name = unique_name()
    url = queue_factory(name, client=other)
    assert url == f"{endpoint}/{OTHER_ACCOUNT}/{name}"
    assert queue_attrs(other, url, "QueueArn")["QueueArn"] == f"arn:aws:sqs:us-east-1:{OTHER_ACCOUNT}:{name}"


def test_non_numeric_access_keys_use_default_account(make_client, endpoint, queue_factory):
    for key in ("test", "AKIAIOSFODNN7EXAMPLE"):
        client = make_client(access_key=key)
        name = unique_name()
        assert queue_factory(name, client=client) == f"{endpoint}/{DEFAULT_ACCOUNT}/{name}"


def test_accounts_are_isolated(sqs, make_client, queue_factory):
    other = make_client(access_key=OTHER_ACCOUNT)
    name = unique_name()
    other_url = queue_factory(name, client=other, attributes={"VisibilityTimeout": 100})
    # Invisible to the default account...
    expect_error(sqs, sqs.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
    assert sqs.list_queues(QueueNamePrefix=name).get("QueueUrls", []) == []
    # ...which can own a queue of the same name with other attributes.
    own_url = queue_factory(name, attributes={"VisibilityTimeout": 7})
    assert own_url != other_url
    assert queue_attrs(sqs, own_url, "VisibilityTimeout")["VisibilityTimeout"] == "7"
    assert queue_attrs(other, other_url, "VisibilityTimeout")["VisibilityTimeout"] == "100"
    assert other.list_queues(QueueNamePrefix=name)["QueueUrls"] == [other_url]


def test_get_queue_url_with_owner_account(sqs, make_client, queue_factory):
    other = make_client(access_key=OTHER_ACCOUNT)
    name = unique_name()
    other_url = queue_factory(name, client=other)
    other.add_permission(QueueUrl=other_url, Label="let-default-in", AWSAccountIds=[DEFAULT_ACCOUNT], Actions=["*"])
    assert sqs.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=OTHER_ACCOUNT)["QueueUrl"] == other_url


def test_get_queue_url_owner_account_without_queue(sqs):
    expect_error(
        sqs,
        sqs.get_queue_url,
        QueueName=unique_name("missing"),
        QueueOwnerAWSAccountId=OTHER_ACCOUNT,
        **QUEUE_DOES_NOT_EXIST,
    )


def test_regions_are_isolated(sqs, make_client, queue_factory):
    west = make_client(region="eu-west-1")
    name = unique_name()
    east_url = queue_factory(name, attributes={"DelaySeconds": 0})
    expect_error(west, west.get_queue_url, QueueName=name, **QUEUE_DOES_NOT_EXIST)
    west_url = queue_factory(name, client=west, attributes={"DelaySeconds": 9})
    assert queue_attrs(west, west_url, "QueueArn")["QueueArn"] == f"arn:aws:sqs:eu-west-1:{DEFAULT_ACCOUNT}:{name}"
    assert queue_attrs(sqs, east_url, "QueueArn")["QueueArn"] == f"arn:aws:sqs:us-east-1:{DEFAULT_ACCOUNT}:{name}"
    assert queue_attrs(west, west_url, "DelaySeconds")["DelaySeconds"] == "9"
    assert queue_attrs(sqs, east_url, "DelaySeconds")["DelaySeconds"] == "0"
    # Messages stay in their region even though the URLs may look alike.
    sqs.send_message(QueueUrl=east_url, MessageBody="east")
    assert receive(west, west_url) == []
    assert [m["Body"] for m in receive(sqs, east_url)] == ["east"]
