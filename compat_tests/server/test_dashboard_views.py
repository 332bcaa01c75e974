"""What the dashboard shows a user who came to see why something happened (issue 30, item 8):
FIFO bodies readable beside their long ids, each queue's event source mappings with their
state, counters and last error, dead-letter queues marked with what arrived, the redrive
arrow's maxReceiveCount, no redrive of an empty dead-letter queue, faults edited from the
page, and placeholders that fit their fields. In Debian's chromium; each test keeps a
screenshot (SQS_ARTIFACT_DIR)."""

import json
import urllib.parse

import pytest
from playwright.sync_api import expect

from compat_tests import browser as chromium_pages
from compat_tests.browser import artifact_dir, field, message, name_of, row, screenshot, select
from compat_tests.conftest import TARGET
from compat_tests.helpers import admin_call, unique_name
from compat_tests.servers import free_port

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own dashboard")
# the fixtures `browser` and `dashboard` (compat_tests/browser.py)
browser_fixture, dashboard_fixture = chromium_pages.browser_fixture, chromium_pages.dashboard_fixture

ORDER = '{"order": 1042, "customer": "alice@example.com", "lines": ["apples", "pears", "plums"], "note": "leave at the door"}'

# Each word of an element's text laid out on one line: the ranges of a word broken across
# lines have two client rectangles or more.
WORDS_ON_ONE_LINE = """(element) => {
  const node = element.firstChild, text = node.textContent, broken = [];
  for (const match of text.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    if (range.getClientRects().length > 1) broken.push(match[0]);
  }
  return broken;
}"""

# The placeholders of the visible fields whose text is wider than the field's content box.
PLACEHOLDERS_CUT = """() => {
  const canvas = document.createElement("canvas").getContext("2d"), cut = [];
  for (const input of document.querySelectorAll("input[placeholder]")) {
    if (!input.placeholder || !input.offsetParent) continue;
    const style = getComputedStyle(input);
    canvas.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      - (input.type === "number" ? 16 : 0);  // a number field's spin buttons
    if (canvas.measureText(input.placeholder).width > room) cut.push(`${input.id}: ${input.placeholder}`);
  }
  return cut;
}"""


def arn_of(sqs, url: str) -> str:
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def with_dead_letter_queue(sqs, queue_factory, prefix: str, max_receives: int = 1, fifo: bool = False):
    """(source URL, dead-letter queue URL)."""
    suffix, fifo_attributes = (".fifo", {"FifoQueue": "true"}) if fifo else ("", {})
    dlq = queue_factory(name=unique_name(f"{prefix}-dlq") + suffix, attributes=fifo_attributes)
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": max_receives})
    source = queue_factory(name=unique_name(prefix) + suffix, attributes={**fifo_attributes, "RedrivePolicy": policy})
    return source, dlq


def queue_view(endpoint: str, url: str) -> dict:
    return next(q for q in admin_call(endpoint, "GET", "/_emulator/queues")[1]["queues"] if q["url"] == url)


def test_fifo_bodies_read_whole_beside_their_long_ids(dashboard, endpoint, sqs, queue_factory):
    url = queue_factory(
        name=unique_name("dash-fifo-body") + ".fifo",
        attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )
    message_id = sqs.send_message(QueueUrl=url, MessageBody=ORDER, MessageGroupId="customer-alice")["MessageId"]
    page = dashboard()
    select(page, url)

    entry = message(page, message_id)
    body = field(entry, "body")
    expect(body).to_have_text(ORDER)
    # the body keeps room for a line of words (it had about six characters), and no word is cut in two
    assert body.bounding_box()["width"] >= 200
    assert body.evaluate(WORDS_ON_ONE_LINE) == []
    # the 64-digit content-based deduplication id shows its start; all of it is the title
    dedup_id = admin_call(endpoint, "GET", f"/_emulator/messages?queue={url}")[1]["messages"][0]["dedup_id"]
    dedup = field(entry, "fifo").locator(".fact", has_text="dedup")
    expect(dedup).to_have_attribute("title", dedup_id)
    expect(dedup).to_have_text(f"dedup {dedup_id[:20]}…")
    expect(field(entry, "fifo")).to_contain_text("group customer-alice")
    screenshot(page, "dashboard-fifo-bodies.png")


def test_each_queue_shows_its_event_source_mappings_and_a_failing_one_stands_out(dashboard, endpoint, sqs, queue):
    # Two functions where nothing listens (one queue may not map to the same function twice: Lambda's 409).
    nowhere, elsewhere = (f"http://127.0.0.1:{free_port()}/2015-03-31/functions/{name}/invocations" for name in "ab")
    made = []
    try:
        for fields in ({"target": nowhere, "batch_size": 5}, {"target": elsewhere, "enabled": False}):
            status, mapping = admin_call(endpoint, "POST", "/_emulator/event-sources", {"queue": queue, **fields})
            assert status == 201, mapping
            made.append(mapping["id"])
        failing, disabled = made
        sqs.send_message(QueueUrl=queue, MessageBody="for the function")
        page = dashboard()
        expect(field(row(page, queue), "event_sources")).to_have_text("1 of 2 failing")
        select(page, queue)

        shown = page.locator(f'[data-testid="mapping"][data-id="{failing}"]')
        for name, value in [("invocations", "1"), ("records", "1"), ("succeeded", "0"), ("failures", "1")]:
            expect(field(shown, name)).to_have_text(value)
        expect(field(shown, "state")).to_have_text("enabled")
        expect(field(shown, "target")).to_have_text(nowhere)
        expect(field(shown, "batch_size")).to_have_text("5")
        expect(field(shown, "last_error")).to_contain_text(nowhere)
        expect(field(shown, "last_error")).to_contain_text("refused")
        expect(shown).to_have_class("failing")
        quiet = page.locator(f'[data-testid="mapping"][data-id="{disabled}"]')
        expect(field(quiet, "state")).to_have_text("disabled")
        expect(field(quiet, "last_error")).to_have_text("none")
        # what the page shows is the admin API's view of the queue
        view = queue_view(endpoint, queue)["event_sources"]
        assert [(m["id"], m["state"], m["counters"]["failures"]) for m in view] == [
            (failing, "enabled", 1),
            (disabled, "disabled", 0),
        ]
        screenshot(page, "dashboard-event-sources.png")
    finally:
        for mapping_id in made:
            admin_call(endpoint, "DELETE", f"/_emulator/event-sources/{mapping_id}")


def test_a_dead_letter_queue_is_marked_and_counts_what_arrived(dashboard, endpoint, sqs, queue_factory, advance):
    source, dlq = with_dead_letter_queue(sqs, queue_factory, "dash-arrive", max_receives=2)
    sqs.send_message_batch(QueueUrl=source, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(3)])
    for _ in range(2):
        assert len(sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10, VisibilityTimeout=5)["Messages"]) == 3
        advance(5)
    assert "Messages" not in sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)  # the third moves them
    view = queue_view(endpoint, dlq)
    assert (view["totals"]["sent"], view["totals"]["moved_in"], view["visible"]) == (0, 3, 3)
    assert view["dead_letter_sources"] == [arn_of(sqs, source)]
    assert queue_view(endpoint, source)["dead_letter_sources"] == []
    page = dashboard()

    dlq_row = row(page, dlq)
    expect(dlq_row.get_by_test_id("dlq-badge")).to_have_text("DLQ")
    expect(row(page, source).get_by_test_id("dlq-badge")).to_have_count(0)
    expect(field(dlq_row, "sent")).to_have_text("0")
    expect(field(dlq_row, "moved_in")).to_have_text("3")
    expect(field(row(page, source), "dead_lettered")).to_have_text("3")
    node = page.locator(f'[data-testid="dlq-node"][data-name="{name_of(dlq)}"]')
    expect(node).to_contain_text("3 visible · 0 in flight · 3 moved in")
    # the arrow from the source to its dead-letter queue says after how many receives
    edge = page.locator(f'[data-testid="dlq-edge"][data-source="{name_of(source)}"][data-target="{name_of(dlq)}"]')
    expect(edge.locator("text")).to_have_text("maxReceiveCount 2")
    expect(field(row(page, source), "dead_letter_target")).to_contain_text("after 2 receives")
    page.get_by_test_id("dlq-diagram").screenshot(path=str(artifact_dir() / "dashboard-redrive-arrow.png"))
    select(page, dlq)
    expect(page.get_by_test_id("detail-dlq")).to_be_visible()
    expect(field(page.get_by_test_id("detail"), "totals")).to_contain_text("moved in 3")
    screenshot(page, "dashboard-dead-letter-queue.png")

    # a redrive back moves them in to the source: its arrivals count them too
    page.get_by_test_id("redrive-button").click()
    expect(field(row(page, source), "moved_in")).to_have_text("3")
    expect(field(row(page, source), "visible")).to_have_text("3")


def test_an_empty_dead_letter_queue_offers_no_redrive(dashboard, sqs, queue_factory, advance):
    source, dlq = with_dead_letter_queue(sqs, queue_factory, "dash-empty", max_receives=1)
    page = dashboard()
    select(page, dlq)
    button = page.get_by_test_id("redrive-button")
    expect(button).to_be_disabled()
    expect(page.get_by_test_id("redrive-empty")).to_be_visible()
    page.get_by_test_id("redrive-rate").press("Enter")  # a submit without the button starts nothing either
    screenshot(page, "dashboard-redrive-disabled.png")
    # the query protocol leaves an empty list out of the answer
    assert sqs.list_message_move_tasks(SourceArn=arn_of(sqs, dlq)).get("Results", []) == []

    sqs.send_message(QueueUrl=source, MessageBody="poison")
    sqs.receive_message(QueueUrl=source, VisibilityTimeout=1)
    advance(1)
    sqs.receive_message(QueueUrl=source)  # its second receive moves it to the dead-letter queue
    expect(button).to_be_enabled()
    expect(page.get_by_test_id("redrive-empty")).to_be_hidden()
    button.click()
    expect(
        page.locator('[data-testid="move-task"][data-status="COMPLETED"]').locator('[data-field="moved"]')
    ).to_have_text("1 of 1")
    expect(button).to_be_disabled()  # empty again


def test_faults_are_edited_from_the_page(dashboard, endpoint, sqs, queue):
    page = dashboard()
    select(page, queue)
    expect(page.get_by_test_id("faults-clear")).to_be_disabled()  # no policy yet
    page.get_by_test_id("fault-duplicate").fill("0.5")
    page.get_by_test_id("fault-delay").fill("3")
    page.get_by_test_id("fault-seed").fill("7")
    page.get_by_test_id("faults-button").click()
    expect(page.get_by_test_id("notice")).to_have_text(f"Faults of {name_of(queue)} saved")
    assert admin_call(endpoint, "GET", f"/_emulator/faults?queue={urllib.parse.quote(queue)}")[1]["faults"] == {
        "duplicate_delivery": 0.5,
        "lost_delete": 0.0,
        "delayed_visibility_seconds": 3.0,
        "loose": False,
        "seed": 7,
    }
    expect(page.get_by_test_id("faults-clear")).to_be_enabled()
    screenshot(page, "dashboard-faults.png")

    # a policy set through the API shows in the form; the page's clear removes it
    admin_call(endpoint, "PUT", "/_emulator/faults", {"queue": queue, "lost_delete": 0.25})
    expect(page.get_by_test_id("fault-lost")).to_have_value("0.25")
    expect(page.get_by_test_id("fault-duplicate")).to_have_value("")
    page.get_by_test_id("faults-clear").click()
    expect(page.get_by_test_id("notice")).to_have_text(f"Faults of {name_of(queue)} cleared")
    expect(page.get_by_test_id("fault-lost")).to_have_value("")
    assert admin_call(endpoint, "GET", f"/_emulator/faults?queue={urllib.parse.quote(queue)}")[1]["faults"] is None
    sqs.send_message(QueueUrl=queue, MessageBody="no faults now")
    assert len(sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]) == 1


def test_the_page_makes_a_standard_queue_loose_and_not_a_fifo_one(dashboard, endpoint, queue_factory):
    url = queue_factory()
    fifo = queue_factory(name=unique_name("loose") + ".fifo", attributes={"FifoQueue": "true"})
    page = dashboard()
    select(page, url)
    page.get_by_test_id("fault-loose").check()
    page.get_by_test_id("fault-seed").fill("1")
    page.get_by_test_id("faults-button").click()
    expect(page.get_by_test_id("notice")).to_have_text(f"Faults of {name_of(url)} saved")
    faults = admin_call(endpoint, "GET", f"/_emulator/faults?queue={urllib.parse.quote(url)}")[1]["faults"]
    assert (faults["loose"], faults["seed"]) == (True, 1)
    select(page, fifo)
    expect(page.get_by_test_id("fault-loose")).to_be_disabled()  # a FIFO queue keeps its order
    expect(page.get_by_test_id("fault-loose")).not_to_be_checked()
    select(page, url)
    expect(page.get_by_test_id("fault-loose")).to_be_checked()  # the policy in force, from the API


@pytest.mark.parametrize("width", [1500, 800])
def test_placeholders_say_what_an_empty_field_does_and_fit_it(dashboard, sqs, queue_factory, width):
    standard, dlq = with_dead_letter_queue(sqs, queue_factory, "dash-hint")
    sqs.set_queue_attributes(QueueUrl=standard, Attributes={"VisibilityTimeout": "45", "DelaySeconds": "2"})
    fifo = queue_factory(name=unique_name("dash-hint") + ".fifo", attributes={"FifoQueue": "true"})
    page = dashboard()
    page.set_viewport_size({"width": width, "height": 1000})
    page.get_by_test_id("create-open").click()
    cut = []
    for url, fields in [
        (standard, {"send-delay": "2 (the queue's)", "receive-visibility": "45 (the queue's)"}),
        (fifo, {"send-dedup": "required", "receive-visibility": "30 (the queue's)"}),
        (dlq, {"redrive-rate": "no limit", "fault-seed": "random"}),
    ]:
        select(page, url)
        for test_id, placeholder in fields.items():
            expect(page.get_by_test_id(test_id)).to_have_attribute("placeholder", placeholder)
        cut += page.evaluate(PLACEHOLDERS_CUT)
    assert cut == []
    if width == 800:
        screenshot(page, "dashboard-placeholders.png")


def test_a_dead_letter_queues_message_shows_its_timeline_in_one_click(dashboard, sqs, queue_factory, advance, protocol):
    # issue 39 item 4: "why did this message end up in the dead-letter queue?", from the page
    source, dlq = with_dead_letter_queue(sqs, queue_factory, "dash-story", max_receives=2)
    message_id = sqs.send_message(QueueUrl=source, MessageBody="poison")["MessageId"]
    for _ in range(2):
        sqs.receive_message(QueueUrl=source, VisibilityTimeout=5)
        advance(6)
    assert "Messages" not in sqs.receive_message(QueueUrl=source)  # the third receive moves it
    page = dashboard()
    select(page, dlq)

    message(page, message_id).get_by_test_id("timeline-button").click()
    timeline = page.get_by_test_id("timeline")
    expect(timeline).to_be_visible()
    expect(page.get_by_test_id("timeline-id")).to_have_text(message_id)
    events = timeline.get_by_test_id("timeline-event")
    expect(events).to_have_count(7)  # sent, twice received and its visibility timeout ended, moved, arrived
    moved = timeline.locator('[data-event="dead_lettered"]')
    expect(field(moved, "queue")).to_have_text(name_of(source))
    expect(field(moved, "facts")).to_contain_text("maxReceiveCount 2 reached: received 2 times, moved at receive 3")
    expect(field(timeline.locator('[data-event="arrived_as_dead_letter"]'), "queue")).to_have_text(name_of(dlq))
    expect(field(events.first, "facts")).to_contain_text(f"protocol {protocol}")
    screenshot(page, "dashboard-message-timeline.png")
    page.get_by_test_id("timeline-close").click()
    expect(timeline).to_be_hidden()
