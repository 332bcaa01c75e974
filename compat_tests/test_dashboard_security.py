"""The dashboard under attack from the same machine, in Debian's chromium (issue 31, item
7): no page of another origin (a page server on another port of 127.0.0.1) can frame the
dashboard, and every admin answer says so. Framing: CSP `frame-ancestors` (CSP Level 2)
and X-Frame-Options (RFC 7034).
"""

import http.client
import urllib.parse

import pytest

from compat_tests import browser as chromium_pages
from compat_tests.browser import OtherOrigin, screenshot
from compat_tests.conftest import TARGET
from compat_tests.servers import start_emulator

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
