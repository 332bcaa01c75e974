"""The dashboard at /_emulator/ui in a real headless browser: Debian's chromium
driven by Playwright (no downloaded browser). Queues are made and checked with
boto3; the page is only waited on with Playwright's auto-waiting expectations."""

import http.client
import json
import math
import re
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError
from playwright.sync_api import expect

from compat_tests import browser as chromium_pages
from compat_tests.browser import field, message, name_of, row, screenshot, select
from compat_tests.conftest import TARGET
from compat_tests.helpers import unique_name

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own dashboard")
# the fixtures `browser` and `dashboard` (compat_tests/browser.py)
browser_fixture, dashboard_fixture = chromium_pages.browser_fixture, chromium_pages.dashboard_fixture


# -- helpers ------------------------------------------------------------------------


def admin(endpoint: str, path: str, **query) -> dict:
    url = f"{endpoint}/_emulator/{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def shown_time(epoch: float) -> str:
    """The page's rendering of an emulator time: UTC, to the second."""
    return datetime.fromtimestamp(math.floor(epoch), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def counts(sqs, url: str) -> dict:
    names = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]


# -- tests --------------------------------------------------------------------------


def test_queues_show_counters_attributes_and_dead_letter_links(dashboard, sqs, queue_factory):
    dlq = queue_factory(prefix="dash-dlq")
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "3"})
    source = queue_factory(prefix="dash-orders", attributes={"RedrivePolicy": redrive}, tags={"team": "payments"})
    fifo = queue_factory(name=unique_name("dash-events") + ".fifo", attributes={"FifoQueue": "true"})
    for body in ("first", "second"):
        sqs.send_message(QueueUrl=source, MessageBody=body)
    sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=1)
    sqs.send_message(QueueUrl=source, MessageBody='{"order": 42, "later": true}', DelaySeconds=60)
    page = dashboard()

    source_row = row(page, source)
    for name, value in [
        ("visible", "1"),
        ("inflight", "1"),
        ("delayed", "1"),
        ("sent", "3"),
        ("received", "1"),
        ("deleted", "0"),
        ("dead_lettered", "0"),
        ("type", "standard"),
    ]:
        expect(field(source_row, name)).to_have_text(value)
    expect(field(row(page, fifo), "type")).to_have_text("fifo")
    expect(field(row(page, dlq), "dead_letter_target")).to_have_text("—")

    # the link, in the table and in the diagram, goes from the source to the queue whose ARN it names
    link = field(source_row, "dead_letter_target").get_by_test_id("dlq-link")
    expect(link).to_have_attribute("data-target", name_of(dlq))
    expect(link).to_contain_text(name_of(dlq))
    edge = page.locator(f'[data-testid="dlq-edge"][data-source="{name_of(source)}"][data-target="{name_of(dlq)}"]')
    expect(edge).to_have_count(1)
    expect(edge.locator("text")).to_have_text("maxReceiveCount 3")  # the arrow's label
    expect(page.locator(f'[data-testid="dlq-node"][data-name="{name_of(dlq)}"]')).to_contain_text("0 visible")

    link.click()  # following the link selects the dead-letter queue
    expect(page.get_by_test_id("detail-name")).to_have_text(name_of(dlq))
    expect(field(page.get_by_test_id("detail"), "dead_letter_sources")).to_have_text(name_of(source))

    select(page, source)
    detail = page.get_by_test_id("detail")
    expect(field(detail, "arn")).to_have_text(dlq_arn.rsplit(":", 1)[0] + ":" + name_of(source))
    expect(page.locator('#attributes tr[data-key="RedrivePolicy"] td')).to_contain_text(dlq_arn)
    expect(page.locator('#attributes tr[data-key="VisibilityTimeout"] td')).to_have_text("30")
    expect(page.locator('#tags tr[data-key="team"] td')).to_have_text("payments")
    expect(page.get_by_test_id("message")).to_have_count(3)
    screenshot(page, "dashboard.png")


def test_send_from_the_form_reaches_boto3(dashboard, sqs, queue_factory):
    url = queue_factory(prefix="dash-send")
    page = dashboard()
    select(page, url)
    expect(page.get_by_test_id("send-group")).to_be_hidden()
    page.get_by_test_id("send-body").fill("hello from the dashboard")
    page.get_by_test_id("send-button").click()

    notice = page.get_by_test_id("notice")
    expect(notice).to_contain_text("Sent message")
    expect(notice).to_have_class("ok")
    expect(field(row(page, url), "visible")).to_have_text("1")
    # the refresh that brought the new count left the form as it was
    expect(page.get_by_test_id("send-body")).to_have_value("hello from the dashboard")

    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ["hello from the dashboard"]
    assert got[0]["MessageId"] == notice.get_attribute("data-message-id")


def test_send_to_fifo_shows_sqs_errors(dashboard, sqs, queue_factory):
    url = queue_factory(name=unique_name("dash-fifo") + ".fifo", attributes={"FifoQueue": "true"})
    page = dashboard()
    select(page, url)
    expect(page.get_by_test_id("send-delay")).to_be_hidden()
    page.get_by_test_id("send-body").fill("needs a group")
    page.get_by_test_id("send-button").click()

    notice = page.get_by_test_id("notice")  # SQS's own error, from the response body
    expect(notice).to_have_class("error")
    expect(notice).to_contain_text("MissingRequiredParameter")
    expect(notice).to_contain_text("MessageGroupId")

    page.get_by_test_id("send-group").fill("group-a")
    page.get_by_test_id("send-dedup").fill("dedup-1")
    page.get_by_test_id("send-button").click()
    expect(notice).to_have_class("ok")
    expect(field(row(page, url), "visible")).to_have_text("1")
    entry = page.get_by_test_id("message")
    expect(field(entry, "fifo")).to_contain_text("group group-a · dedup dedup-1")

    got = sqs.receive_message(QueueUrl=url, AttributeNames=["MessageGroupId", "MessageDeduplicationId"])["Messages"]
    assert got[0]["Body"] == "needs a group"
    assert got[0]["Attributes"]["MessageGroupId"] == "group-a"
    assert got[0]["Attributes"]["MessageDeduplicationId"] == "dedup-1"


def test_browse_messages_in_every_state_without_receiving(dashboard, endpoint, sqs, queue_factory, advance):
    url = queue_factory(prefix="dash-browse", attributes={"VisibilityTimeout": "30"})
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"body {i}"} for i in range(10)])
    sqs.send_message(QueueUrl=url, MessageBody="body 10")
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    delayed_id = sqs.send_message(QueueUrl=url, MessageBody="body later", DelaySeconds=120)["MessageId"]
    page = dashboard()
    select(page, url)

    entries = page.get_by_test_id("message")
    page.get_by_test_id("msg-limit").select_option("10")
    expect(entries).to_have_count(10)
    expect(page.get_by_test_id("msg-page")).to_have_text("page 1")
    page.get_by_test_id("msg-next").click()
    expect(entries).to_have_count(2)
    expect(page.get_by_test_id("msg-page")).to_have_text("page 2 (last)")
    later = message(page, delayed_id)
    expect(field(later, "state")).to_have_text("delayed")
    expect(field(later, "body")).to_have_text("body later")
    expect(field(later, "receive_count")).to_have_text("0")
    expect(field(later, "visible_at")).to_have_text("in 120 s")
    page.get_by_test_id("msg-first").click()
    expect(entries).to_have_count(10)

    page.get_by_test_id("msg-limit").select_option("100")
    inflight = message(page, received["MessageId"])
    expect(field(inflight, "state")).to_have_text("inflight")
    expect(field(inflight, "body")).to_have_text(received["Body"])
    expect(field(inflight, "receive_count")).to_have_text("1")

    page.get_by_test_id("msg-state").select_option("visible")
    expect(entries).to_have_count(10)
    expect(page.locator('[data-testid="message"]:not([data-state="visible"])')).to_have_count(0)
    page.get_by_test_id("msg-state").select_option("inflight")
    expect(entries).to_have_count(1)
    page.get_by_test_id("msg-state").select_option("all")
    expect(entries).to_have_count(12)

    # let the page peek twice more, then look: nothing was received by it
    for _ in range(2):
        with page.expect_response(lambda response: "/_emulator/messages" in response.url):
            pass
    assert counts(sqs, url) == {
        "ApproximateNumberOfMessages": "10",
        "ApproximateNumberOfMessagesNotVisible": "1",
        "ApproximateNumberOfMessagesDelayed": "1",
    }
    peeked = {m["id"]: m["receive_count"] for m in admin(endpoint, "messages", queue=url)["messages"]}
    assert peeked[received["MessageId"]] == 1
    assert sum(peeked.values()) == 1

    advance(31)  # past the visibility timeout: the page sees the message back, and SQS counts 2 receives
    expect(field(inflight, "state")).to_have_text("visible")
    expect(field(inflight, "receive_count")).to_have_text("1")
    again = []
    while batch := sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
    ).get("Messages"):
        again += batch
    receives = {m["MessageId"]: m["Attributes"]["ApproximateReceiveCount"] for m in again}
    assert len(receives) == 11
    assert receives[received["MessageId"]] == "2"
    assert set(receives.values()) - {"2"} == {"1"}


def test_purge_from_the_page(dashboard, sqs, queue_factory):
    url = queue_factory(prefix="dash-purge")
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(5)])
    page = dashboard()
    select(page, url)
    expect(field(row(page, url), "visible")).to_have_text("5")
    expect(page.get_by_test_id("message")).to_have_count(5)

    page.once("dialog", lambda dialog: dialog.accept())  # the page asks before purging
    page.get_by_test_id("purge-button").click()
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_text(f"Purged {name_of(url)}")
    expect(field(row(page, url), "visible")).to_have_text("0")
    expect(page.get_by_test_id("message")).to_have_count(0)
    expect(page.get_by_test_id("no-messages")).to_be_visible()
    assert counts(sqs, url)["ApproximateNumberOfMessages"] == "0"

    page.once("dialog", lambda dialog: dialog.accept())  # a second purge within 60 s: SQS refuses
    page.get_by_test_id("purge-button").click()
    expect(notice).to_have_class("error")
    expect(notice).to_contain_text("PurgeQueueInProgress")


def test_advance_the_manual_clock_from_the_page(dashboard, endpoint, sqs, queue_factory):
    url = queue_factory(prefix="dash-clock")
    message_id = sqs.send_message(QueueUrl=url, MessageBody="wake me", DelaySeconds=600)["MessageId"]
    before = admin(endpoint, "health")["now"]
    page = dashboard()
    clock = page.get_by_test_id("clock-now")
    expect(clock).to_have_text(shown_time(before))
    select(page, url)
    expect(field(message(page, message_id), "state")).to_have_text("delayed")
    expect(field(message(page, message_id), "visible_at")).to_have_text("in 600 s")

    page.get_by_test_id("advance-seconds").fill("3600")
    page.get_by_test_id("advance-button").click()
    expect(clock).to_have_text(shown_time(before + 3600))
    assert admin(endpoint, "health")["now"] == before + 3600
    expect(page.get_by_test_id("notice")).to_contain_text("Clock advanced 3600 s")
    expect(field(message(page, message_id), "state")).to_have_text("visible")
    expect(field(row(page, url), "visible")).to_have_text("1")
    expect(page.get_by_test_id("advance-seconds")).to_have_value("3600")

    got = sqs.receive_message(QueueUrl=url)["Messages"]
    assert [m["MessageId"] for m in got] == [message_id]


# -- finding the dashboard ----------------------------------------------------------


def _get(endpoint: str, path: str, accept: str | None) -> http.client.HTTPResponse:
    """One GET, redirects not followed."""
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(endpoint).netloc, timeout=10)
    conn.request("GET", path, headers={"Accept": accept} if accept else {})
    response = conn.getresponse()
    response.body = response.read()
    conn.close()
    return response


def test_a_browser_at_the_endpoint_or_the_admin_root_lands_on_the_dashboard(dashboard, endpoint):
    browser_accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"  # chromium's
    for path in ("/", "/_emulator/", "/_emulator"):
        answer = _get(endpoint, path, browser_accept)
        assert (answer.status, answer.getheader("Location")) == (302, "/_emulator/ui/"), path
    assert _get(endpoint, "/_emulator/", None).status == 302  # the admin root, whoever asks

    # An SDK or curl (no Accept, or */*) at / keeps the query protocol's answer to a request
    # without an Action; so does a browser naming one.
    for accept in (None, "*/*", "text/xml"):
        answer = _get(endpoint, "/", accept)
        assert answer.status == 400, accept
        assert b"<Code>MissingParameter</Code>" in answer.body
        assert b"The request must contain the parameter Action." in answer.body
    listed = _get(endpoint, "/?Action=ListQueues", browser_accept)
    assert listed.status == 200 and b"<ListQueuesResponse" in listed.body

    for path in ("/", "/_emulator/"):
        page = dashboard(path)
        assert page.url == endpoint + "/_emulator/ui/"
        expect(page.get_by_test_id("clock-now")).not_to_have_text("…")


# -- acting on queues -----------------------------------------------------------------


def _create(page, name: str, fifo: bool = False, dlq: str | None = None, max_receives: int = 3, **more) -> None:
    """Fill and submit the create form (opened once per page)."""
    panel = page.get_by_test_id("create-panel")
    if panel.get_attribute("open") is None:
        page.get_by_test_id("create-open").click()
    page.get_by_test_id("create-name").fill(name)
    page.get_by_test_id("create-fifo").set_checked(fifo)
    if more.get("content_based"):
        page.get_by_test_id("create-cbd").check()
    page.get_by_test_id("create-dlq").select_option(label=name_of(dlq) if dlq else "none")
    if dlq:
        page.get_by_test_id("create-max").fill(str(max_receives))
    page.get_by_test_id("create-button").click()


def _attributes(sqs, name: str) -> dict:
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]


def _sqs_json(endpoint: str, action: str, params: dict) -> tuple[int, dict]:
    """One unsigned JSON 1.0 request, as the page sends it: (status, body)."""
    request = urllib.request.Request(
        endpoint + "/",
        data=json.dumps(params).encode(),
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"AmazonSQS.{action}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_create_standard_and_fifo_queues_with_dead_letter_queues_then_delete_one(
    dashboard, endpoint, sqs, queue_factory
):
    dlq, fifo_dlq = (
        queue_factory(prefix="dash-mk-dlq"),
        queue_factory(name=unique_name("dash-mk-dlq") + ".fifo", attributes={"FifoQueue": "true"}),
    )
    standard, fifo = unique_name("dash-mk"), unique_name("dash-mk") + ".fifo"
    page = dashboard()
    try:
        _create(page, standard, dlq=dlq, max_receives=2)
        expect(page.get_by_test_id("notice")).to_have_text(f"Created queue {standard}")
        expect(page.get_by_test_id("detail-name")).to_have_text(standard)  # the new queue is selected
        _create(page, fifo, fifo=True, dlq=fifo_dlq, max_receives=5, content_based=True)
        expect(page.get_by_test_id("detail-name")).to_have_text(fifo)
        expect(field(row(page, fifo), "type")).to_have_text("fifo")
        expect(field(row(page, fifo), "dead_letter_target")).to_contain_text(f"{name_of(fifo_dlq)} after 5 receives")
        screenshot(page, "dashboard-create.png")

        created = _attributes(sqs, standard)
        assert json.loads(created["RedrivePolicy"]) == {
            "deadLetterTargetArn": _attributes(sqs, name_of(dlq))["QueueArn"],
            "maxReceiveCount": 2,
        }
        assert "FifoQueue" not in created
        created = _attributes(sqs, fifo)
        assert created["FifoQueue"] == "true" and created["ContentBasedDeduplication"] == "true"
        assert (
            json.loads(created["RedrivePolicy"])["deadLetterTargetArn"]
            == _attributes(sqs, name_of(fifo_dlq))["QueueArn"]
        )

        # SQS's error for a bad FIFO name, as the JSON protocol sends it: __type and message
        _create(page, "bad name.fifo", fifo=True)
        notice = page.get_by_test_id("notice")
        expect(notice).to_have_class("error")
        status, sent = _sqs_json(
            endpoint, "CreateQueue", {"QueueName": "bad name.fifo", "Attributes": {"FifoQueue": "true"}}
        )
        assert status == 400
        expect(notice).to_have_text(f"CreateQueue failed: {sent['__type'].split('#')[-1]}: {sent['message']}")
        with pytest.raises(ClientError) as refused:  # what boto3 reports of the same answer
            sqs.create_queue(QueueName="bad name.fifo", Attributes={"FifoQueue": "true"})
        assert refused.value.response["Error"]["Code"] == "InvalidParameterValue"  # docs/sqs-reference.md
        assert refused.value.response["Error"]["Message"] == sent["message"]

        page.once("dialog", lambda dialog: dialog.accept())  # the page asks before deleting
        page.get_by_test_id("delete-queue-button").click()
        expect(notice).to_have_text(f"Deleted queue {fifo}")
        expect(row(page, fifo)).to_have_count(0)
        expect(page.get_by_test_id("detail")).to_be_hidden()
        with pytest.raises(ClientError) as gone:
            sqs.get_queue_url(QueueName=fifo)
        assert gone.value.response["Error"]["Code"] in ("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
    finally:
        for name in (standard, fifo):
            try:
                sqs.delete_queue(QueueUrl=sqs.get_queue_url(QueueName=name)["QueueUrl"])
            except ClientError:
                pass


def advance_from_page(page, seconds: int) -> None:
    """Move the manual clock with the page's own form (it redraws at once, without waiting for a poll)."""
    page.get_by_test_id("advance-seconds").fill(str(seconds))
    page.get_by_test_id("advance-button").click()
    expect(page.get_by_test_id("notice")).to_contain_text(f"Clock advanced {seconds} s")


def test_receive_with_a_visibility_timeout_then_delete_one(dashboard, sqs, queue_factory):
    url = queue_factory(prefix="dash-recv")
    long_body = "order lines: " + " ".join(f"item-{i}" for i in range(120))
    short_id = sqs.send_message(QueueUrl=url, MessageBody="short one")["MessageId"]
    long_id = sqs.send_message(QueueUrl=url, MessageBody=long_body)["MessageId"]
    page = dashboard()
    select(page, url)

    # a long body starts collapsed to its start, and opens whole
    long_entry = message(page, long_id)
    expect(long_entry.get_by_test_id("long-body")).to_contain_text(f"({len(long_body)} characters)")
    expect(field(long_entry, "body")).to_be_hidden()
    long_entry.get_by_test_id("long-body").locator("summary").click()
    expect(field(long_entry, "body")).to_be_visible()
    expect(field(long_entry, "body")).to_have_text(long_body)
    expect(field(message(page, short_id), "body")).to_be_visible()

    page.get_by_test_id("receive-max").fill("10")
    page.get_by_test_id("receive-visibility").fill("120")
    page.get_by_test_id("receive-button").click()
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_text(f"Received 2 message(s) from {name_of(url)}, hidden for 120 s")
    received = page.get_by_test_id("received-message")
    expect(received).to_have_count(2)
    expect(field(received.filter(has_text="short one"), "receive_count")).to_have_text("1")
    for message_id in (short_id, long_id):  # hidden for the 120 s chosen, not the queue's 30
        expect(field(message(page, message_id), "state")).to_have_text("inflight")
        expect(field(message(page, message_id), "visible_at")).to_have_text("in 120 s")
    assert counts(sqs, url)["ApproximateNumberOfMessagesNotVisible"] == "2"
    screenshot(page, "dashboard-receive.png")

    page.locator(f'[data-testid="received-message"][data-id="{short_id}"]').get_by_test_id("delete-message").click()
    expect(notice).to_have_text(f"Deleted message {short_id}")
    expect(received).to_have_count(1)
    expect(message(page, short_id)).to_have_count(0)

    advance_from_page(page, 121)  # past the chosen timeout: the one not deleted is back
    expect(field(message(page, long_id), "state")).to_have_text("visible")
    again = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
    assert [(m["MessageId"], m["Attributes"]["ApproximateReceiveCount"]) for m in again] == [(long_id, "2")]


def test_redrive_a_dead_letter_queue_and_follow_its_progress(dashboard, sqs, queue_factory, advance):
    dlq = queue_factory(prefix="dash-redrive-dlq")
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    source = queue_factory(
        prefix="dash-redrive",
        attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})},
    )
    sqs.send_message_batch(QueueUrl=source, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(4)])
    assert len(sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)["Messages"]) == 4
    advance(31)  # their visibility ends; the next receive moves them on (maxReceiveCount 1)
    assert "Messages" not in sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)
    assert counts(sqs, dlq)["ApproximateNumberOfMessages"] == "4"
    page = dashboard()
    select(page, source)
    expect(page.get_by_test_id("redrive")).to_be_hidden()  # not a dead-letter queue
    select(page, dlq)
    expect(page.get_by_test_id("no-tasks")).to_have_text("No redrive yet.")

    page.get_by_test_id("redrive-rate").fill("1")
    page.get_by_test_id("redrive-button").click()
    expect(page.get_by_test_id("notice")).to_have_text(f"Redrive of {name_of(dlq)} started")
    task = page.get_by_test_id("move-task")
    expect(field(task, "status")).to_have_text("RUNNING")  # the first batch moves at once, then 1 a second
    expect(field(task, "moved")).to_have_text("1 of 4")
    expect(field(task, "rate")).to_have_text("1/s")
    expect(field(task, "destination")).to_have_text("source queues")
    advance_from_page(page, 1)
    expect(field(task, "moved")).to_have_text("2 of 4")
    screenshot(page, "dashboard-redrive.png")

    page.get_by_test_id("cancel-task").click()
    expect(page.get_by_test_id("notice")).to_have_text("Redrive cancelled after 2 message(s)")
    expect(field(task, "status")).to_have_text("CANCELLED")
    page.get_by_test_id("redrive-rate").fill("")
    page.get_by_test_id("redrive-button").click()  # again, as fast as it goes: the rest at once
    done = page.locator('[data-testid="move-task"][data-status="COMPLETED"]')
    expect(field(done, "moved")).to_have_text("2 of 2")
    expect(field(row(page, source), "visible")).to_have_text("4")
    expect(field(row(page, dlq), "visible")).to_have_text("0")
    listed = sqs.list_message_move_tasks(SourceArn=dlq_arn, MaxResults=10)["Results"]
    assert [entry["Status"] for entry in listed] == ["COMPLETED", "CANCELLED"]
    assert counts(sqs, source)["ApproximateNumberOfMessages"] == "4"


def test_filter_the_queue_list_and_keep_fifo_rows_on_one_line(dashboard, sqs, queue_factory):
    token = unique_name("dash-filter")
    alpha = queue_factory(name=f"{token}-alpha")
    queue_factory(name=f"{token}-beta")
    fifo_dlq = queue_factory(name=f"{token}-dead-letters-of-the-alpha.fifo", attributes={"FifoQueue": "true"})
    dlq_arn = sqs.get_queue_attributes(QueueUrl=fifo_dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    fifo = queue_factory(
        name=f"{token}-alpha-with-a-long-name.fifo",
        attributes={
            "FifoQueue": "true",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3}),
        },
    )
    page = dashboard()
    page.set_viewport_size({"width": 800, "height": 900})
    rows = page.get_by_test_id("queue-row")
    box = page.get_by_test_id("queue-filter")

    box.fill(token)
    expect(rows).to_have_count(4)
    box.fill(f"{token.upper()}-ALPHA")  # any case
    expect(rows).to_have_count(2)
    expect(page.get_by_test_id("queue-count")).to_have_text(re.compile(r"\(2 of \d+\)"))
    expect(field(row(page, fifo), "dead_letter_target")).to_contain_text("after 3 receives")
    # in a narrow window the table scrolls: a FIFO row, with its long names, is one line like any other
    line = row(page, alpha).bounding_box()["height"]
    assert abs(row(page, fifo).bounding_box()["height"] - line) < 3
    screenshot(page, "dashboard-filter.png")
    box.fill(f"{token}-gamma")
    expect(rows).to_have_count(0)
    expect(page.get_by_test_id("no-match")).to_have_text(f"No queue name contains “{token}-gamma”.")
    box.fill("")
    expect(row(page, alpha)).to_be_visible()
    expect(page.get_by_test_id("no-match")).to_be_hidden()


def test_the_queue_table_fits_a_1400_px_window(dashboard, sqs, queue_factory):
    """Issue 38 item 11: at 1400 px the queue table scrolled sideways. Names of AWS's longest
    (80 characters) are cut short with an ellipsis, in full on hover; the row stays one line."""
    token = unique_name("dash-wide")
    dlq = queue_factory(name=f"{token}-dead-letters".ljust(75, "x") + ".fifo", attributes={"FifoQueue": "true"})
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    source = queue_factory(
        name=f"{token}-source".ljust(75, "y") + ".fifo",
        attributes={
            "FifoQueue": "true",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1000}),
        },
    )
    sqs.send_message(QueueUrl=source, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="d")
    page = dashboard()
    page.set_viewport_size({"width": 1400, "height": 900})
    expect(field(row(page, source), "dead_letter_target")).to_contain_text("after 1000 receives")
    frame = page.locator(".scroll", has=page.locator("#queues"))
    widths = frame.evaluate("(element) => [element.scrollWidth, element.clientWidth]")
    screenshot(page, "dashboard-1400.png")
    assert widths[0] <= widths[1], widths
    name = field(row(page, source), "name").locator("a")
    assert name.get_attribute("title").endswith(name_of(source))  # the whole name, on hover
    assert abs(row(page, source).bounding_box()["height"] - row(page, dlq).bounding_box()["height"]) < 3
