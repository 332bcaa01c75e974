"""AWS's errors by rule (POST /_emulator/error-rules) and KMS keys that fail (PUT /_emulator/kms-keys),
through real boto3 clients and raw requests in both protocols.

Codes and statuses: the awsQueryError traits of SQS's Smithy model (docs/sqs-reference.md 1.14;
the Kms* rows as the AWS SDK for JavaScript v3's @aws-sdk/client-sqs schemas carry them).
RequestThrottled's wording "Request is throttled." is what AWS's Java and .NET SDKs print for it
(awslabs/amazon-sqs-java-temporary-queues-client#19, Particular/docs.particular.net#3438).
Retries: boto3's retries guide (https://docs.aws.amazon.com/boto3/latest/guide/retries.html).
KMS: SQS uses the key on SendMessage(Batch) and ReceiveMessage (SQS Developer Guide, sqs-key-management).
"""

import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from playwright.sync_api import expect

from compat_tests import browser as chromium_pages
from compat_tests.browser import field, screenshot, select
from compat_tests.helpers import QUERY_NS, admin_call, check_error, counts, receive, receive_one, sqs_client
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.usefixtures("emulator_only")
# the fixtures `browser` and `dashboard` (compat_tests/browser.py), for the queue view's count
browser_fixture, dashboard_fixture = chromium_pages.browser_fixture, chromium_pages.dashboard_fixture

KMS_CASES = [
    # state, shape, legacy code, status
    ("disabled", "KmsDisabled", "KMS.DisabledException", 400),
    ("pending_deletion", "KmsInvalidState", "KMS.InvalidStateException", 400),
    ("not_found", "KmsNotFound", "KMS.NotFoundException", 400),
    ("access_denied", "KmsAccessDenied", "KMS.AccessDeniedException", 400),
    ("invalid_usage", "KmsInvalidKeyUsage", "KMS.InvalidKeyUsageException", 400),
    ("throttled", "KmsThrottled", "KMS.ThrottlingException", 400),
    ("opt_in_required", "KmsOptInRequired", "KMS.OptInRequired", 403),
]


@pytest.fixture
def emulator_only(target):
    if target != "emulator":
        pytest.skip("error rules are the emulator's admin API")


@pytest.fixture
def own_server():
    """A server of the test's own, for rules that match every queue."""
    server = start_emulator("manual", "errors")
    yield server, sqs_client(server.url)
    server.stop()


def add_rule(endpoint, **fields) -> dict:
    status, answer = admin_call(endpoint, "POST", "/_emulator/error-rules", fields)
    assert status == 200, answer
    return answer["rule"]


def rules(endpoint) -> dict:
    return admin_call(endpoint, "GET", "/_emulator/error-rules")[1]


def injected(endpoint, url) -> int:
    queues = admin_call(endpoint, "GET", "/_emulator/queues")[1]["queues"]
    return next(q for q in queues if q["url"] == url)["totals"]["injected_errors"]


def retrying_client(endpoint, mode: str, attempts: int = 3):
    """A boto3 client of that retry mode, making at most `attempts` attempts a call."""
    return boto3.session.Session().client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test-secret",
        config=Config(retries={"mode": mode, "total_max_attempts": attempts}, connect_timeout=5, read_timeout=40),
    )


@pytest.fixture
def clean_rules(endpoint):
    yield
    admin_call(endpoint, "DELETE", "/_emulator/error-rules")
    admin_call(endpoint, "DELETE", "/_emulator/kms-keys")


@pytest.mark.parametrize("mode", ["legacy", "standard", "adaptive"])
def test_a_throttled_send_is_retried_by_each_boto3_retry_mode(endpoint, queue, mode, clean_rules):
    # botocore retries RequestThrottled with status 403 in its legacy mode (_retry.json, sqs's
    # request_limit_exceeded policy) and as a throttling code in standard and adaptive modes.
    rule = add_rule(endpoint, error="RequestThrottled", queue=queue, operation="SendMessage", count=1)
    sqs = retrying_client(endpoint, mode)
    answer = sqs.send_message(QueueUrl=queue, MessageBody="once")
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1
    (shown,) = rules(endpoint)["rules"]
    assert (shown["id"], shown["matched"], shown["fired"]) == (rule["id"], 2, 1)
    assert counts(sqs, queue) == (1, 0, 0)  # the throttled attempt stored nothing
    assert injected(endpoint, queue) == 1


@pytest.mark.parametrize(
    "error, code, status, fault",
    [
        ("RequestThrottled", "RequestThrottled", 403, "Sender"),
        ("InternalError", "InternalError", 500, "Receiver"),
        ("ServiceUnavailable", "ServiceUnavailable", 503, "Receiver"),
        ("OverLimit", "OverLimit", 403, "Sender"),
        ("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400, "Sender"),
    ],
)
@pytest.mark.parametrize("protocol", ["json", "query"])
def test_an_injected_error_has_aws_shape_in_each_protocol(
    raw, endpoint, queue, clean_rules, protocol, error, code, status, fault
):
    add_rule(endpoint, error=error, queue=queue, operation="SendMessage", message="injected here")
    answer = raw.call(protocol, "SendMessage", {"QueueUrl": queue, "MessageBody": "x"})
    assert answer.status == status
    if protocol == "json":
        assert answer.header("x-amzn-query-error") == f"{code};{fault}"
        assert answer.json() == {"__type": f"com.amazonaws.sqs#{error}", "message": "injected here"}
    else:
        assert answer.xml_namespace() == QUERY_NS
        found = answer.xml().find("Error")
        assert (found.findtext("Type"), found.findtext("Code")) == (fault, code)
        assert found.findtext("Message").startswith("injected here")
    assert answer.header("x-amzn-RequestId")


def test_a_rule_without_a_message_answers_aws_wording(endpoint, sqs, queue, clean_rules):
    add_rule(endpoint, error="RequestThrottled", queue=queue)
    with pytest.raises(ClientError) as caught:
        sqs.receive_message(QueueUrl=queue)
    check_error(caught.value, sqs, "RequestThrottled", 403, "RequestThrottled", message="Request is throttled.")


def test_a_failed_send_stores_nothing_and_a_failed_delete_deletes_nothing(endpoint, queue, clean_rules):
    sqs = retrying_client(endpoint, "standard", attempts=1)
    add_rule(endpoint, error="InternalError", queue=queue, operation=["SendMessage", "DeleteMessage"], after=1)
    sqs.send_message(QueueUrl=queue, MessageBody="kept")  # the first matching call passes (after=1)
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=queue, MessageBody="never stored")
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    message = receive_one(sqs, queue, VisibilityTimeout=0)
    assert message["Body"] == "kept"
    with pytest.raises(ClientError):
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
    assert counts(sqs, queue) == (1, 0, 0)
    assert injected(endpoint, queue) == 2


def test_chosen_batch_entries_fail_while_the_rest_succeed(endpoint, sqs, queue, clean_rules):
    add_rule(endpoint, error="InternalError", queue=queue, operation="SendMessageBatch", entries=True, after=1, count=1)
    answer = sqs.send_message_batch(
        QueueUrl=queue, Entries=[{"Id": str(n), "MessageBody": f"body {n}"} for n in range(3)]
    )
    assert sorted(entry["Id"] for entry in answer["Successful"]) == ["0", "2"]
    (failed,) = answer["Failed"]
    assert failed["Id"] == "1" and failed["Code"] == "InternalError" and failed["SenderFault"] is False
    assert failed["Message"].startswith("There is an internal problem with SQS")
    assert counts(sqs, queue) == (2, 0, 0)

    admin_call(endpoint, "DELETE", "/_emulator/error-rules")
    add_rule(endpoint, error="RequestThrottled", queue=queue, operation="DeleteMessageBatch", entries=True, count=1)
    messages = receive(sqs, queue, MaxNumberOfMessages=10, VisibilityTimeout=0)
    handles = [{"Id": f"e{n}", "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)]
    answer = sqs.delete_message_batch(QueueUrl=queue, Entries=handles)
    assert [entry["Id"] for entry in answer["Successful"]] == ["e1"]
    assert answer["Failed"] == [
        {"Id": "e0", "SenderFault": True, "Code": "RequestThrottled", "Message": "Request is throttled."}
    ]
    assert counts(sqs, queue) == (1, 0, 0)  # the failed entry's message stays
    assert injected(endpoint, queue) == 2


def test_a_failed_visibility_change_changes_nothing(endpoint, sqs, queue, advance, clean_rules):
    sqs.send_message_batch(QueueUrl=queue, Entries=[{"Id": str(n), "MessageBody": f"m{n}"} for n in range(2)])
    messages = receive(sqs, queue, MaxNumberOfMessages=10, VisibilityTimeout=30)
    assert len(messages) == 2
    add_rule(
        endpoint, error="InternalError", queue=queue, operation="ChangeMessageVisibilityBatch", entries=True, count=1
    )
    entries = [
        {"Id": f"e{n}", "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0} for n, m in enumerate(messages)
    ]
    answer = sqs.change_message_visibility_batch(QueueUrl=queue, Entries=entries)
    assert [entry["Id"] for entry in answer["Failed"]] == ["e0"] and [e["Id"] for e in answer["Successful"]] == ["e1"]
    assert counts(sqs, queue) == (1, 1, 0)  # e1's message visible now; e0's keeps its 30 s
    advance(30)
    assert counts(sqs, queue) == (2, 0, 0)


def naive_publish(sqs, url, bodies) -> int:
    """A classic mistake: a batch's answer taken as all sent, its Failed list never read."""
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(n), "MessageBody": b} for n, b in enumerate(bodies)])
    return len(bodies)


def test_a_producer_that_ignores_failed_entries_passes_by_default_and_fails_under_a_rule(
    endpoint, sqs, queue_factory, clean_rules
):
    bodies = [f"order {n}" for n in range(5)]
    outcomes = []
    for rule in (None, {"error": "InternalError", "operation": "SendMessageBatch", "entries": True, "count": 1}):
        url = queue_factory()
        if rule:
            add_rule(endpoint, queue=url, **rule)
        claimed = naive_publish(sqs, url, bodies)
        outcomes.append(counts(sqs, url)[0] == claimed)
    assert outcomes == [True, False]  # the default emulator lets the mistake pass; the rule shows it


def test_the_dashboards_queue_view_counts_injected_errors(dashboard, endpoint, queue, clean_rules):
    sqs = retrying_client(endpoint, "standard", attempts=1)
    add_rule(endpoint, error="RequestThrottled", queue=queue, operation="ReceiveMessage", count=2)
    for _ in range(2):
        with pytest.raises(ClientError):
            sqs.receive_message(QueueUrl=queue)
    page = dashboard()
    select(page, queue)
    expect(field(page.get_by_test_id("detail"), "totals")).to_contain_text("injected errors 2")
    screenshot(page, "dashboard-injected-errors.png")


def test_a_rule_for_every_queue_with_a_probability_is_seeded(own_server):
    server, _ = own_server
    sqs = retrying_client(server.url, "standard", attempts=1)
    urls = [sqs.create_queue(QueueName=f"q{n}")["QueueUrl"] for n in range(2)]
    outcomes = []
    for _ in range(2):
        admin_call(server.url, "DELETE", "/_emulator/error-rules")
        add_rule(server.url, error="ServiceUnavailable", operation="SendMessage", probability=0.5, seed=11)
        run = []
        for n in range(20):
            try:
                sqs.send_message(QueueUrl=urls[n % 2], MessageBody="x")
                run.append(True)
            except ClientError as error:
                assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 503
                run.append(False)
        outcomes.append(run)
    assert outcomes[0] == outcomes[1] and 0 < outcomes[0].count(False) < 20
    assert sqs.list_queues()["QueueUrls"]  # another operation: untouched
    assert sum(injected(server.url, url) for url in urls) == 2 * outcomes[0].count(False)
    with urllib.request.urlopen(server.url + "/_emulator/metrics", timeout=10) as response:
        metrics = response.read().decode()
    shown = [line for line in metrics.splitlines() if 'event="injected_errors"' in line and 'queue="q0"' in line]
    assert len(shown) == 1 and float(shown[0].rsplit(" ", 1)[1]) == injected(server.url, urls[0])


def test_bad_rules_are_refused(endpoint, clean_rules):
    for fields, problem in [
        ({"error": "NoSuchError"}, "error must be one of"),
        ({"error": "RequestThrottled", "operation": "SendMessages"}, "not an SQS operation"),
        ({"error": "RequestThrottled", "probability": 2}, "probability"),
        ({"error": "RequestThrottled", "count": 0}, "count"),
        ({"error": "RequestThrottled", "operation": "SendMessage", "entries": True}, "only in a batch"),
        ({"error": "RequestThrottled", "colour": "red"}, "unknown field"),
    ]:
        status, answer = admin_call(endpoint, "POST", "/_emulator/error-rules", fields)
        assert status == 400 and problem in answer["error"], answer
    assert admin_call(endpoint, "DELETE", "/_emulator/error-rules?id=999")[0] == 404
    status, answer = admin_call(endpoint, "PUT", "/_emulator/kms-keys", {"key": "alias/aws/sqs", "state": "melted"})
    assert status == 400 and "unknown key state" in answer["error"]


# -- KMS keys that fail -----------------------------------------------------------------


@pytest.mark.parametrize("state, shape, code, status", KMS_CASES)
def test_a_failing_kms_key_fails_sends_and_receives_on_its_queues(
    endpoint, sqs, queue_factory, clean_rules, state, shape, code, status
):
    encrypted = queue_factory(attributes={"KmsMasterKeyId": "alias/aws/sqs"})
    sqs.send_message(QueueUrl=encrypted, MessageBody="before")
    assert admin_call(endpoint, "PUT", "/_emulator/kms-keys", {"key": "alias/aws/sqs", "state": state})[1] == {
        "kms_keys": {"alias/aws/sqs": state}
    }
    for call in (
        lambda: sqs.send_message(QueueUrl=encrypted, MessageBody="after"),
        lambda: sqs.send_message_batch(QueueUrl=encrypted, Entries=[{"Id": "1", "MessageBody": "after"}]),
        lambda: sqs.receive_message(QueueUrl=encrypted),
    ):
        with pytest.raises(ClientError) as caught:
            call()
        check_error(caught.value, sqs, code, status, shape, message_contains="(Service: AWSKMS; Status Code: 400")
    sqs.get_queue_attributes(QueueUrl=encrypted)  # no KMS in it: answered
    admin_call(endpoint, "PUT", "/_emulator/kms-keys", {"key": "alias/aws/sqs", "state": "enabled"})
    assert counts(sqs, encrypted) == (1, 0, 0)  # nothing was sent while the key failed
    assert receive_one(sqs, encrypted)["Body"] == "before"
    assert injected(endpoint, encrypted) == 3


@pytest.mark.parametrize("protocol", ["json", "query"])
def test_a_key_named_by_arn_fails_its_queue_in_each_protocol(raw, endpoint, sqs, queue_factory, clean_rules, protocol):
    key_id = "1234abcd-12ab-34cd-56ef-1234567890ab"
    encrypted = queue_factory(attributes={"KmsMasterKeyId": f"arn:aws:kms:us-east-1:000000000000:key/{key_id}"})
    plain = queue_factory()
    admin_call(endpoint, "PUT", "/_emulator/kms-keys", {"key": key_id, "state": "disabled"})
    answer = raw.call(protocol, "SendMessage", {"QueueUrl": encrypted, "MessageBody": "x"})
    assert answer.status == 400
    if protocol == "json":
        assert answer.header("x-amzn-query-error") == "KMS.DisabledException;Sender"
        assert answer.json()["__type"] == "com.amazonaws.sqs#KmsDisabled"
        message = answer.json()["message"]
    else:
        found = answer.xml().find("Error")
        assert (found.findtext("Type"), found.findtext("Code")) == ("Sender", "KMS.DisabledException")
        message = found.findtext("Message")
    assert message.startswith("The request was rejected because the specified KMS key is not enabled.")
    assert raw.call(protocol, "SendMessage", {"QueueUrl": plain, "MessageBody": "x"}).status == 200
    assert injected(endpoint, encrypted) == 1
