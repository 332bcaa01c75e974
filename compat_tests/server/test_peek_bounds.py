"""Peeks are bounded, and admin requests a web page sends are refused, reads too (issue 38, item 1).

A peek of 40 messages of 1 MiB of `é` was a 120 MiB answer (six bytes a character in
ASCII-only JSON), and LocalStack's peek had no limit at all. Now a page of either holds
at most PAGE_BYTES (4 MiB) of bodies and attributes, always one message, and the admin
API's `next` pages on; LocalStack documents no limit or paging for its developer
endpoint ("Developer endpoints" of its SQS page), so it shows the oldest page.
"""

import json
import urllib.parse

import pytest

from compat_tests.conftest import TARGET
from compat_tests.helpers import RawClient
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="the admin API and peeks are the emulator's own")

PAGE_BYTES = 4 * 1024 * 1024
BODY = "é" * (256 * 1024)  # 512 KiB in UTF-8, the size SQS counts; six times that as \u00e9 escapes
BODY_BYTES = len(BODY.encode())
SLACK = 64 * 1024  # a page's fields beside the bodies: ids, attributes, cursors


def _send_large(sqs, url, count) -> list[str]:
    """The ids of `count` messages of BODY, in the order sent."""
    ids = []
    for _ in range(count):
        ids.append(sqs.send_message(QueueUrl=url, MessageBody=BODY)["MessageId"])
    return ids


def test_the_admin_peek_pages_by_size_and_writes_each_message_once(sqs, queue_factory, raw_endpoint):
    url = queue_factory()
    _send_large(sqs, url, 12)
    seen, after, pages = [], "0", 0
    while after is not None:
        path = f"/_emulator/messages?queue={urllib.parse.quote(url)}&limit=1000&after={after}"
        response = raw_endpoint.request("GET", path, sign=False)
        assert response.status == 200
        # UTF-8, not \u00e9: the answer is about the size of what it shows.
        assert len(response.body) <= PAGE_BYTES + SLACK, len(response.body)
        page = json.loads(response.body)
        assert page["messages"] and all(m["body"] == BODY for m in page["messages"])
        seen += [m["id"] for m in page["messages"]]
        after, pages = page["next"], pages + 1
    assert len(seen) == len(set(seen)) == 12 and pages == 2  # 8 messages of 512 KiB fill a page


def test_localstack_s_peek_shows_one_page_of_the_oldest_messages(sqs, queue_factory, raw_endpoint):
    url = queue_factory()
    sent = _send_large(sqs, url, 12)
    path = f"/_aws/sqs/messages?QueueUrl={urllib.parse.quote(url)}"
    answer = raw_endpoint.request("GET", path, headers={"Accept": "application/json"}, sign=False)
    assert answer.status == 200
    messages = json.loads(answer.body)["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"]
    assert [m["MessageId"] for m in messages] == sent[: PAGE_BYTES // BODY_BYTES]  # the 8 oldest of 12


def test_localstack_s_peek_shows_at_most_1000_messages(sqs, queue_factory, raw_endpoint):
    url = queue_factory()
    for start in range(0, 1001, 10):
        entries = [{"Id": str(i), "MessageBody": f"m{i}"} for i in range(start, min(1001, start + 10))]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    path = f"/_aws/sqs/messages?QueueUrl={urllib.parse.quote(url)}"
    answer = raw_endpoint.request("GET", path, headers={"Accept": "application/json"}, sign=False)
    messages = json.loads(answer.body)["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"]
    assert len(messages) == 1000


EVIL = "http://evil.example"


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"},  # an <img>
        {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"},  # a page of localhost:3000
        {"Origin": EVIL},  # a browser without Sec-Fetch-* headers
    ],
    ids=["image", "same-site-fetch", "origin-only"],
)
@pytest.mark.parametrize("path", ["/_emulator/queues", "/_emulator/messages?queue=q", "/_emulator/metrics"])
def test_an_admin_read_a_web_page_sends_is_refused(raw_endpoint, headers, path):
    response = raw_endpoint.request("GET", path, headers=headers, sign=False)
    assert response.status == 403 and "web page" in response.json()["error"]


def test_the_dashboard_s_own_reads_links_to_it_and_tools_are_served(raw_endpoint):
    own = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Origin": raw_endpoint.endpoint}
    assert raw_endpoint.request("GET", "/_emulator/queues", headers=own, sign=False).status == 200
    typed = {"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert raw_endpoint.request("GET", "/_emulator/queues", headers=typed, sign=False).status == 200
    link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert raw_endpoint.request("GET", "/_emulator/ui/", headers=link, sign=False).status == 200
    assert raw_endpoint.request("GET", "/_emulator/queues", headers=link, sign=False).status == 403
    assert raw_endpoint.request("GET", "/_emulator/queues", sign=False).status == 200  # curl, scripts


def test_a_cors_origins_page_may_read_the_admin_api():
    app_origin = "http://localhost:3000"
    server = start_emulator("manual", "peek-cors", "--cors-origins", app_origin)
    try:
        raw = RawClient(server.url)
        page = {"Origin": app_origin, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}
        response = raw.request("GET", "/_emulator/queues", headers=page, sign=False)
        assert response.status == 200 and response.header("Access-Control-Allow-Origin") == app_origin
        other = {"Origin": EVIL, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
        assert raw.request("GET", "/_emulator/queues", headers=other, sign=False).status == 403
    finally:
        server.stop()


@pytest.fixture
def raw_endpoint(endpoint):
    return RawClient(endpoint)
