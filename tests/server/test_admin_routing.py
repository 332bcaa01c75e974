"""The admin API's routing on werkzeug's Map (emulator/server/admin/routing.py), in-process:
the answers the hand-made table gave (statuses, JSON bodies, Allow), slashes at either end
as before, and the reference page rendered from the map in step with it.

Two answers differ from the table's on purpose: a route that takes GET takes HEAD too
(werkzeug's rule, as RFC 9110 section 9.3.2 expects of a GET resource), so Allow names
HEAD; and the redirect at /_emulator/ answers another method 405, not 404.
"""

import json
from pathlib import Path

import pytest
from werkzeug.test import Client

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.server.admin import reference
from emulator.server.admin.routing import MAP
from emulator.server.app import EmulatorApp

ROOT = Path(__file__).resolve().parents[2]
JSON_BODY = {"data": b"{}", "headers": {"Content-Type": "application/json"}}


@pytest.fixture
def client():
    broker = Broker(ManualClock(start=1_800_000_000.0))
    client = Client(EmulatorApp(broker, "000000000000", "us-east-1"))
    client.post(
        "/",
        data=json.dumps({"QueueName": "q"}),
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue"},
    )
    yield client
    broker.close()


def ask(client, method: str, path: str):
    return client.open(path, method=method, **(JSON_BODY if method in ("POST", "PUT", "PATCH", "DELETE") else {}))


def test_the_mappings_listing_shows_the_process_s_pool_of_invocation_threads(client):
    listed = ask(client, "GET", "/_emulator/event-sources").get_json()
    assert listed["event_sources"] == []
    assert set(listed["invokers"]) == {"max_threads", "threads", "running", "waiting", "waited"}


def not_allowed(method: str, path: str) -> dict:
    return {"error": f"{method} is not allowed on {path}"}


@pytest.mark.parametrize(
    "method, path, status, body",
    [
        ("GET", "/_emulator/health/", 200, None),
        ("GET", "/_emulator//health", 200, None),
        (
            "GET",
            "/_emulator/messages?queue=q",
            200,
            {"queue": "http://localhost/000000000000/q", "messages": [], "next": None},
        ),
        ("GET", "/_emulator/messages", 400, {"error": "name a queue: queue=<queue URL or name>"}),
        ("GET", "/_emulator/messages?queue=nope", 404, {"error": "no queue nope"}),
        ("POST", "/_emulator/reset", 200, {"reset": True}),
        ("POST", "/moto-api/reset", 200, {"reset": True}),
        ("POST", "/_emulator/clock/advance", 400, {"error": "seconds must be a number"}),
        ("GET", "/_emulator/faults", 200, {"faults": []}),
        ("DELETE", "/_emulator/faults", 200, {"faults": []}),
        ("GET", "/_emulator/event-sources/", 200, None),  # the pool's counts are the process's: below
        ("GET", "/_emulator/event-sources/nope/", 404, {"error": "no event source mapping nope"}),
        ("PATCH", "/_emulator/event-sources/nope", 404, {"error": "no event source mapping nope"}),
        ("DELETE", "/_emulator/event-sources/nope", 404, {"error": "no event source mapping nope"}),
        ("GET", "/_emulator/clock", 404, {"error": "no admin route /_emulator/clock"}),
        ("POST", "/_emulator/clock//advance", 404, {"error": "no admin route /_emulator/clock//advance"}),
        ("GET", "/_emulator/event-sources/a/b", 404, {"error": "no admin route /_emulator/event-sources/a/b"}),
        ("GET", "/_emulator/health/x", 404, {"error": "no admin route /_emulator/health/x"}),
        ("DELETE", "/_emulator/uix", 404, {"error": "no admin route /_emulator/uix"}),
        ("GET", "/_emulator/ui/a/b", 404, {"error": "no dashboard file a/b"}),
        ("GET", "/_emulator/ui/.hidden", 404, {"error": "no dashboard file .hidden"}),
        ("GET", "/_emulator/ui/nope.js", 404, {"error": "no dashboard file nope.js"}),
    ],
)
def test_answers_as_the_table_gave_them(client, method, path, status, body):
    answer = ask(client, method, path)
    assert answer.status_code == status
    assert answer.mimetype == "application/json"
    if body is not None:
        assert answer.get_json() == body


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("DELETE", "/_emulator/health", "GET, HEAD"),
        ("POST", "/_emulator/health/", "GET, HEAD"),
        ("GET", "/_emulator/reset", "POST"),
        ("GET", "/moto-api/reset", "POST"),
        ("PUT", "/_emulator/clock/set", "POST"),
        ("POST", "/_emulator/faults", "DELETE, GET, HEAD, PUT"),
        ("DELETE", "/_emulator/event-sources", "GET, HEAD, POST"),
        ("POST", "/_emulator/event-sources/abc", "DELETE, GET, HEAD, PATCH"),
        ("OPTIONS", "/_emulator/metrics", "GET, HEAD"),
        ("POST", "/_emulator/ui/", "GET, HEAD"),
        ("POST", "/_emulator/", "GET, HEAD"),
    ],
)
def test_a_method_the_path_does_not_take_is_a_405_naming_those_it_does(client, method, path, allow):
    answer = ask(client, method, path)
    assert answer.status_code == 405
    assert answer.get_json() == not_allowed(method, path.split("?")[0])
    assert answer.headers["Allow"] == allow


def test_the_dashboard_and_its_redirects(client):
    for path in ("/_emulator", "/_emulator/", "/_emulator//"):
        answer = client.get(path)
        assert (answer.status_code, answer.headers["Location"]) == (302, "/_emulator/ui/"), path
    assert client.get("/_emulator/ui").headers["Location"] == "/_emulator/ui/"  # 308: relative links resolve under ui/
    page = client.get("/_emulator/ui/")
    assert page.status_code == 200 and page.mimetype == "text/html" and b"<title>SQS emulator</title>" in page.data
    script = client.get("/_emulator/ui/app.js")
    assert script.mimetype == "text/javascript" and script.headers["Cache-Control"] == "no-cache"


def test_head_answers_as_get_without_a_body(client):
    got, head = client.get("/_emulator/queues"), client.head("/_emulator/queues")
    assert head.status_code == 200 and head.data == b""
    assert head.headers["Content-Length"] == str(len(got.data))


def test_every_rule_of_the_map_is_reached_by_its_own_methods(client):
    """A rule whose path or method table is wrong answers routing's 404 or a 405 to what it should take."""
    for rule in MAP.iter_rules():
        path = rule.rule.replace("<mapping_id>", "nope").replace("<path:name>", "app.js")
        for method in rule.methods:
            answer = ask(client, method, path)
            assert answer.status_code != 405 and b"no admin route" not in answer.data, (method, path)


def test_the_committed_reference_page_is_the_one_the_map_renders():
    page = ROOT / reference.PAGE
    assert page.read_text(encoding="utf-8") == reference.render(), (
        f"{reference.PAGE} is out of date: python -m emulator.server.admin.reference > {reference.PAGE}"
    )


def test_the_reference_lists_every_rule_with_its_docstring():
    rendered = reference.render()
    for rule in MAP.iter_rules():
        summary = rule.endpoint.__doc__.strip().splitlines()[0]
        for method in rule.methods - {"HEAD"}:
            assert f"| {method} | `{rule.rule.replace('<path:name>', '<name>')}` | {summary} |" in rendered


FRAMING = {
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def assert_unframeable(answer, what) -> None:
    for name, value in FRAMING.items():
        assert value in answer.headers.get(name, ""), (what, name)


def test_every_answer_of_every_rule_forbids_framing_and_sniffing(client):
    for rule in MAP.iter_rules():
        path = rule.rule.replace("<mapping_id>", "nope").replace("<path:name>", "app.js")
        for method in [*rule.methods, "PATCH" if "PATCH" not in rule.methods else "PUT"]:
            assert_unframeable(ask(client, method, path), (method, path))
    assert_unframeable(client.get("/_emulator/nothing"), "404")
    assert_unframeable(client.get("/_emulator/queues", headers={"Host": "attacker.example"}), "the guard's 403")
    assert_unframeable(client.get("/", headers={"Accept": "text/html"}), "the redirect of a browser at /")


def test_the_token_challenge_forbids_framing_and_names_the_inspectors_variable():
    broker = Broker(ManualClock(start=1_800_000_000.0))
    client = Client(EmulatorApp(broker, "000000000000", "us-east-1", admin_token="secret"))
    refused = client.get("/_emulator/queues")
    assert refused.status_code == 401 and "SQS_EMULATOR_ADMIN_TOKEN" in refused.get_json()["error"]
    assert_unframeable(refused, "401")
    assert client.get("/_emulator/queues", headers={"Authorization": "Bearer secret"}).status_code == 200
    assert client.get("/_emulator/queues", headers={"Cookie": "sqs_emulator_token=secret"}).status_code == 401
    # open without it: health, and the dashboard's page and files (a GET), which hold no data
    for path in ("/_emulator/health", "/_emulator/ui/", "/_emulator/ui/app.js", "/_emulator/"):
        assert client.get(path).status_code in (200, 302), path
    assert client.post("/_emulator/ui/", data=b"{}", content_type="application/json").status_code == 401
    broker.close()


def test_a_browser_at_the_endpoint_is_redirected_unless_it_names_an_action(client):
    """The SQS path reads header names in lower case (emulator/protocol/request.py): an
    X-Amz-Target sent in any case still marks an SQS request, not a person at a browser."""
    assert client.get("/", headers={"Accept": "text/html"}).status_code == 302
    for name in ("X-Amz-Target", "x-amz-target", "X-AMZ-TARGET"):
        answer = client.get("/", headers={"Accept": "text/html", name: "AmazonSQS.ListQueues"})
        assert answer.status_code != 302, name
