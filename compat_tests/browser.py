"""What the dashboard's browser tests share: Debian's chromium driven by Playwright (no
downloaded browser), screenshots kept as CI artifacts, and a page server on another port of
127.0.0.1 that records every request it gets (the other origin a test plays).

A test module takes the fixtures `browser` and `dashboard` by importing browser_fixture and
dashboard_fixture (pytest registers a fixture under its name wherever the module holds it).
"""

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from compat_tests.local_http import LocalHttp
from compat_tests.servers import REPO_ROOT

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


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def dashboard_pages(browser: Browser, endpoint: str, manual_clock: bool = True):
    """open_page(path="/_emulator/ui/") -> a fresh page showing the dashboard, in one browser
    context (opened after the test made its queues, so the first poll already lists them).
    No JavaScript error may happen on any of its pages."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    errors: list[str] = []

    def open_page(path: str = "/_emulator/ui/"):
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(endpoint + path)
        if manual_clock:
            expect(page.get_by_test_id("clock-mode")).to_have_text("manual")
        return page

    try:
        yield open_page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# -- finding things on the dashboard -----------------------------------------------------


def name_of(url: str) -> str:
    """A queue's name from its URL (a name stays itself)."""
    return url.rsplit("/", 1)[-1]


def row(page, url: str):
    return page.locator(f'[data-testid="queue-row"][data-name="{name_of(url)}"]')


def field(locator, name: str):
    return locator.locator(f'[data-field="{name}"]')


def message(page, message_id: str):
    return page.locator(f'[data-testid="message"][data-id="{message_id}"]')


def select(page, url: str) -> None:
    field(row(page, url), "name").get_by_role("link").click()
    expect(page.get_by_test_id("detail-name")).to_have_text(name_of(url))


@pytest.fixture(scope="module", name="browser")
def browser_fixture():
    with chromium() as browser:
        yield browser


@pytest.fixture(name="dashboard")
def dashboard_fixture(browser, endpoint):
    """dashboard(path="/_emulator/ui/") -> a fresh page of the test server's dashboard."""
    with dashboard_pages(browser, endpoint) as open_page:
        yield open_page


def artifact_dir() -> Path:
    directory = Path(os.environ.get("SQS_ARTIFACT_DIR") or REPO_ROOT / ".artifacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def screenshot(page, name: str) -> None:
    """A picture of the page as it is, saved as a CI artifact (SQS_ARTIFACT_DIR)."""
    page.screenshot(path=str(artifact_dir() / name), full_page=True)


class OtherOrigin(LocalHttp):
    """A page server on its own port of 127.0.0.1: answers GET `path` with the HTML given
    for it (204 for any other), and records every request: method, path, headers, body."""

    def __init__(self, pages: dict[str, str]):
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                with outer._lock:
                    outer.requests.append(
                        {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                    )

            def do_GET(self):
                self._record()
                page = pages.get(self.path.split("?")[0])
                if page is None:
                    self.send_response(204)
                    self.end_headers()
                    return
                data = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    def seen(self) -> str:
        """Everything received so far, as one text to search."""
        with self._lock:
            return json.dumps(self.requests)
