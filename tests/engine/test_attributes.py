"""The attribute table: validation, canonical values, defaults."""

import pytest

from emulator.engine import attributes
from emulator.errors import SqsError

VALID = [
    ("DelaySeconds", "0"),
    ("DelaySeconds", "900"),
    ("MaximumMessageSize", "1024"),
    ("MaximumMessageSize", "1048576"),
    ("MessageRetentionPeriod", "60"),
    ("MessageRetentionPeriod", "1209600"),
    ("ReceiveMessageWaitTimeSeconds", "0"),
    ("ReceiveMessageWaitTimeSeconds", "20"),
    ("VisibilityTimeout", "0"),
    ("VisibilityTimeout", "43200"),
    ("Policy", ""),
    ("Policy", '{"Version": "2012-10-17", "Statement": []}'),
    ("KmsMasterKeyId", "alias/aws/sqs"),
    ("KmsDataKeyReusePeriodSeconds", "60"),
    ("KmsDataKeyReusePeriodSeconds", "86400"),
    ("SqsManagedSseEnabled", "true"),
    ("SqsManagedSseEnabled", "false"),
]


@pytest.mark.parametrize("name,value", VALID)
def test_validate_accepts_valid_values(name, value):
    attributes.validate({name: value}, fifo=False)
    assert attributes.canonical(name, value) == value


def test_canonical_lowers_booleans_and_keeps_the_rest():
    attributes.validate({"SqsManagedSseEnabled": "TRUE", "VisibilityTimeout": "10"}, fifo=False)
    assert attributes.canonical("SqsManagedSseEnabled", "TRUE") == "true"
    assert attributes.canonical("SqsManagedSseEnabled", "False") == "false"
    assert attributes.canonical("VisibilityTimeout", "10") == "10"
    attributes.validate({}, fifo=False)


INVALID = [
    ("DelaySeconds", "-1"),
    ("DelaySeconds", "901"),
    ("DelaySeconds", "abc"),
    ("DelaySeconds", "1.5"),
    ("DelaySeconds", ""),
    ("DelaySeconds", " 5"),
    ("DelaySeconds", "12345678901"),
    ("MaximumMessageSize", "1023"),
    ("MaximumMessageSize", "1048577"),
    ("MessageRetentionPeriod", "59"),
    ("MessageRetentionPeriod", "1209601"),
    ("ReceiveMessageWaitTimeSeconds", "21"),
    ("VisibilityTimeout", "43201"),
    ("VisibilityTimeout", "-1"),
    ("Policy", "not json"),
    ("Policy", "[]"),
    ("Policy", '"a string"'),
    ("KmsMasterKeyId", "k" * 2049),
    ("KmsDataKeyReusePeriodSeconds", "59"),
    ("KmsDataKeyReusePeriodSeconds", "86401"),
    ("SqsManagedSseEnabled", "yes"),
    ("SqsManagedSseEnabled", ""),
    ("VisibilityTimeout", 30),  # not a string
    ("DelaySeconds", None),
]


@pytest.mark.parametrize("name,value", INVALID)
def test_validate_rejects_invalid_values(name, value):
    with pytest.raises(SqsError) as info:
        attributes.validate({name: value}, fifo=False)
    assert info.value.name == "InvalidAttributeValue"
    assert name in info.value.message


@pytest.mark.parametrize("name", ["Bogus", "visibilitytimeout", "QueueArn", "ApproximateNumberOfMessages"])
def test_validate_rejects_unknown_or_unsettable_names(name):
    with pytest.raises(SqsError) as info:
        attributes.validate({name: "1"}, fifo=False)
    assert info.value.name == "InvalidAttributeName"
    assert name in info.value.message


def test_defaults_cover_every_setting_with_a_default():
    d = attributes.defaults(fifo=False)
    assert d["VisibilityTimeout"] == "30"
    assert d["MessageRetentionPeriod"] == "345600"
    assert "Policy" not in d and "KmsMasterKeyId" not in d and "FifoQueue" not in d
    attributes.validate(d, fifo=False)
    for name, value in d.items():
        assert attributes.canonical(name, value) == value
