"""The dashboard under attack from the same machine, in Debian's chromium (issue 31, items 2
and 7): the admin token never rides a cookie, so a page on another port of 127.0.0.1 (a
server that records everything it gets) never receives it, and no page of another origin
can frame the dashboard. Under --require-auth a dashboard opened without the token asks
for it; the 401 names the variable the inspector reads.

Why a cookie would not do: cookies do not isolate by port (RFC 6265, section 8.5); session
storage belongs to one origin, scheme, host and port (HTML Living Standard, "The
sessionStorage getter"). Framing: CSP `frame-ancestors` (CSP Level 2) and X-Frame-Options
(RFC 7034).
"""

import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

import boto3
import pytest
from playwright.sync_api import expect

from compat_tests import browser as chromium_pages
from compat_tests.browser import TIMEOUT_MS, OtherOrigin, dashboard_pages, row, screenshot
from compat_tests.conftest import TARGET
from compat_tests.helpers import unique_name
from compat_tests.servers import REPO_ROOT, start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="tests the emulator's own dashboard")
browser_fixture = chromium_pages.browser_fixture  # the fixture `browser` (compat_tests/browser.py)

TOKEN = "dash/token+&#=1"  # characters a URL must escape
KEY = ("AKIDDASH", "dash-secret")
CONFIG = f"""
[[credentials]]
access_key = "{KEY[0]}"
secret_key = "{KEY[1]}"
account = "000000000000"

[admin]
token = "{TOKEN}"
"""
STORAGE_KEY = "sqs-emulator-admin-token"
# What the other origin's page reports of itself: its cookies and its session storage.
PROBE = """<!doctype html><title>another port</title><img src="/pixel.png"><p id="done" hidden>sent</p>
<script>
fetch("/report", {method: "POST", credentials: "include",
  body: JSON.stringify({cookie: document.cookie, storage: Object.assign({}, sessionStorage)})})
  .then(() => { document.getElementById("done").hidden = false; });
</script>"""
FRAMED_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    path = tmp_path_factory.mktemp("dash-auth") / "auth.toml"
    path.write_text(CONFIG)
    server = start_emulator("manual", "dash-auth", "--require-auth", "--config", str(path))
    yield server
    server.stop()


@pytest.fixture
def other_origin():
    other = OtherOrigin({"/": PROBE})
    yield other
    other.close()


def banner_line(server, start: str) -> str:
    """The banner's line that starts with `start` (the banner follows the listening socket)."""
    deadline = time.monotonic() + 10
    while True:
        for line in server.log_path.read_text().splitlines():
            if line.startswith(start):
                return line
        assert time.monotonic() < deadline, server.log_path.read_text()
        time.sleep(0.05)


def test_the_token_from_the_banner_link_stays_with_its_origin(browser, auth_server, other_origin):
    link = banner_line(auth_server, "Dashboard: ").removeprefix("Dashboard: ")
    assert link == f"{auth_server.url}/_emulator/ui/#token={urllib.parse.quote(TOKEN, safe='')}"  # a fragment
    url = _signed(auth_server).create_queue(QueueName=unique_name("dash-auth"))["QueueUrl"]
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        with page.expect_request(lambda request: request.url.endswith("/_emulator/queues")) as listed:
            page.goto(link)
        assert listed.value.all_headers()["authorization"] == f"Bearer {TOKEN}"
        expect(row(page, url)).to_be_visible()  # the Bearer header opened the admin API
        assert "token" not in page.url  # the fragment left the address bar
        assert page.evaluate(f"sessionStorage.getItem('{STORAGE_KEY}')") == TOKEN
        assert context.cookies() == []
        # The dashboard's own SQS calls carry it too: a send from the page, unsigned, is accepted.
        page.get_by_test_id("queue-row").filter(has_text=url.rsplit("/", 1)[1]).get_by_role("link").click()
        page.get_by_test_id("send-body").fill("from the page")
        page.get_by_test_id("send-button").click()
        expect(page.get_by_test_id("notice")).to_have_class("ok")

        # The old way in, ?token=, sets no cookie any more: the page asks for the token instead.
        page.goto(f"{auth_server.url}/_emulator/ui?token={urllib.parse.quote(TOKEN)}")
        assert context.cookies() == []

        # Another port of the same host, in the same tab and in a new one: nothing of the token.
        page.goto(other_origin.url + "/")
        expect(page.locator("#done")).to_be_visible()
        second = context.new_page()
        second.goto(other_origin.url + "/")
        expect(second.locator("#done")).to_be_visible()
    finally:
        context.close()
    received = other_origin.seen()
    assert TOKEN not in received and urllib.parse.quote(TOKEN, safe="") not in received
    assert not [r for r in other_origin.requests if "Cookie" in r["headers"] or "Authorization" in r["headers"]]
    reports = [json.loads(r["body"]) for r in other_origin.requests if r["path"] == "/report"]
    assert reports == [{"cookie": "", "storage": {}}] * 2


def test_no_answer_sets_a_cookie_even_for_the_old_token_link(auth_server):
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(auth_server.url).netloc, timeout=10)
    for path in (
        f"/_emulator/ui?token={urllib.parse.quote(TOKEN)}",
        f"/_emulator/ui/?token={urllib.parse.quote(TOKEN)}",
    ):
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        assert answer.status in (200, 308) and answer.getheader("Set-Cookie") is None, path
    # nor does a cookie open anything: only the header does
    conn.request("GET", "/_emulator/queues", headers={"Cookie": f"sqs_emulator_token={TOKEN}"})
    answer = conn.getresponse()
    assert answer.status == 401 and b"SQS_EMULATOR_ADMIN_TOKEN" in answer.read()
    conn.close()


def test_a_dashboard_opened_without_the_token_asks_for_it(browser, auth_server):
    url = _signed(auth_server).create_queue(QueueName=unique_name("dash-ask"))["QueueUrl"]
    with dashboard_pages(browser, auth_server.url, manual_clock=False) as open_page:
        page = open_page()
        asked = page.get_by_test_id("token-page")
        expect(asked).to_be_visible()
        expect(asked).to_contain_text("--require-auth")
        expect(page.locator("main")).to_be_hidden()
        expect(page.get_by_test_id("clock-mode")).to_have_text("manual")  # health is open: the header shows
        expect(page.get_by_test_id("token-refused")).to_be_hidden()
        screenshot(page, "dashboard-token-page.png")

        page.get_by_test_id("token-input").fill("not the token")
        page.get_by_test_id("token-button").click()
        expect(page.get_by_test_id("token-refused")).to_be_visible()
        expect(page.locator("main")).to_be_hidden()
        page.get_by_test_id("token-input").fill(TOKEN)
        page.get_by_test_id("token-button").click()
        expect(row(page, url)).to_be_visible()
        expect(asked).to_be_hidden()


def test_the_401_names_the_variable_the_inspector_reads(auth_server):
    def inspector(env: dict) -> subprocess.CompletedProcess:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("SQS_EMULATOR_", "AWS_ENDPOINT_URL"))}
        return subprocess.run(
            [os.environ.get("SQS_COMPAT_SERVER_PYTHON", sys.executable), "-m", "emulator", "queues"],
            cwd=REPO_ROOT,
            env={**environ, "AWS_ENDPOINT_URL_SQS": auth_server.url, **env},
            capture_output=True,
            text=True,
            timeout=30,
        )

    refused = inspector({})
    assert refused.returncode == 1 and "(HTTP 401)" in refused.stderr
    assert "SQS_EMULATOR_ADMIN_TOKEN" in refused.stderr
    assert inspector({"SQS_EMULATOR_ADMIN_TOKEN": TOKEN}).returncode == 0


@pytest.mark.parametrize(
    "method, path, headers, status",
    [
        ("GET", "/_emulator/ui/", {}, 200),
        ("GET", "/_emulator/ui/app.js", {}, 200),
        ("GET", "/_emulator/ui", {}, 308),
        ("GET", "/_emulator/", {}, 302),
        ("GET", "/", {"Accept": "text/html"}, 302),  # a browser at the SQS endpoint
        ("GET", "/_emulator/health", {}, 200),
        ("GET", "/_emulator/queues", {}, 200),
        ("GET", "/_emulator/metrics", {}, 200),
        ("GET", "/_emulator/faults", {}, 200),
        ("GET", "/_emulator/event-sources", {}, 200),
        ("GET", "/_emulator/messages", {}, 400),
        ("GET", "/_emulator/nothing", {}, 404),
        ("DELETE", "/_emulator/health", {}, 405),
        ("POST", "/_emulator/clock/advance", {"Content-Type": "text/plain"}, 415),  # refused before routing
        ("GET", "/_emulator/queues", {"Host": "attacker.example"}, 403),  # a DNS-rebinding page's Host
    ],
)
def test_every_admin_answer_forbids_framing_and_sniffing(endpoint, method, path, headers, status):
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(endpoint).netloc, timeout=10)
    conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
    answer = conn.getresponse()
    answer.read()
    conn.close()
    assert answer.status == status
    for name, value in FRAMED_HEADERS.items():
        assert value in (answer.getheader(name) or ""), name


def test_the_401_forbids_framing_too(auth_server):
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(auth_server.url).netloc, timeout=10)
    conn.request("GET", "/_emulator/queues")
    answer = conn.getresponse()
    answer.read()
    conn.close()
    assert answer.status == 401
    for name, value in FRAMED_HEADERS.items():
        assert value in (answer.getheader(name) or ""), name


def test_a_page_of_another_origin_cannot_frame_the_dashboard(browser, endpoint):
    other = OtherOrigin(
        {"/": f'<!doctype html><iframe id="f" src="{endpoint}/_emulator/ui/" width="900" height="600"></iframe>'}
    )
    context = browser.new_context()
    try:
        page = context.new_page()
        asked = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(other.url + "/", wait_until="load")  # the frame's load (or refusal) is part of the page's
        (framed,) = page.main_frame.child_frames
        assert framed.url.startswith("chrome-error://"), framed.url  # Chromium's page for a refused frame
        assert not [url for url in asked if url.endswith(("/_emulator/ui/app.js", "/_emulator/queues"))]
        screenshot(page, "dashboard-framing-refused.png")
    finally:
        context.close()
        other.close()


def _signed(server):
    """A boto3 client that signs with the config file's key."""
    return boto3.session.Session().client(
        "sqs",
        endpoint_url=server.url,
        region_name="us-east-1",
        aws_access_key_id=KEY[0],
        aws_secret_access_key=KEY[1],
    )
