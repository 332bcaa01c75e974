"""The dashboard at /_emulator/ui in a real headless browser: Debian's chromium
driven by Playwright (no downloaded browser). Queues are made and checked with
boto3; the page is only waited on with Playwright's auto-waiting expectations."""

import json
import math
import os
import urllib.parse
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from compat_tests.conftest import TARGET
from compat_tests.helpers import unique_name
from compat_tests.servers import REPO_ROOT

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own dashboard")

CHROMIUM = "/usr/bin/chromium"
# Without network on the build machines, chromium must not try to reach Google's services.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000  # the page polls every 1.5 s; actions refresh at once


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def dashboard(browser, endpoint):
    """dashboard() -> a fresh page showing the dashboard (opened after the test made its queues,
    so the first poll already lists them)."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    errors = []

    def open_page():
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(endpoint + "/_emulator/ui/")
        expect(page.get_by_test_id("clock-mode")).to_have_text("manual")
        return page

    yield open_page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# -- helpers ------------------------------------------------------------------------


def admin(endpoint: str, path: str, **query) -> dict:
    url = f"{endpoint}/_emulator/{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def name_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def row(page, url: str):
    return page.locator(f'[data-testid="queue-row"][data-name="{name_of(url)}"]')


def field(locator, name: str):
    return locator.locator(f'[data-field="{name}"]')


def message(page, message_id: str):
    return page.locator(f'[data-testid="message"][data-id="{message_id}"]')


def select(page, url: str) -> None:
    field(row(page, url), "name").get_by_role("link").click()
    expect(page.get_by_test_id("detail-name")).to_have_text(name_of(url))


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


def artifact_dir() -> Path:
    directory = Path(os.environ.get("SQS_ARTIFACT_DIR") or REPO_ROOT / ".artifacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


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
    expect(edge).to_contain_text("×3")
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
    page.screenshot(path=str(artifact_dir() / "dashboard.png"), full_page=True)


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
