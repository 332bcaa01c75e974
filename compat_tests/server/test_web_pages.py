"""No web page the user visits can drive the emulator (emulator/server/guard.py).

What a browser sends for a page of another origin: a form POST (form-urlencoded,
multipart or text/plain, no preflight) with `Origin` and `Sec-Fetch-Site: cross-site`,
an image's GET with `Sec-Fetch-Site` only, and after a DNS rebinding, requests whose
`Host` is the attacker's name. Each is refused and changes nothing; SDKs, which send
none of these headers, and the dashboard's own origin keep working.
"""

import json
import urllib.parse

import pytest

from compat_tests.helpers import JSON_BODY, RawClient, sqs_client, unique_name
from compat_tests.servers import start_emulator

EVIL = "http://evil.example"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
CROSS_SITE = {"Origin": EVIL, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}


@pytest.fixture
def raw(endpoint):
    return RawClient(endpoint)


@pytest.fixture
def queue_url(sqs):
    url = sqs.create_queue(QueueName=unique_name("web"))["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="keep me")
    yield url
    sqs.delete_queue(QueueUrl=url)


def _still_there(sqs, url) -> None:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
    assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "1"


def _queue_count(raw) -> int:
    return len(raw.request("GET", "/_emulator/queues", sign=False).json()["queues"])


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("application/x-www-form-urlencoded", "Action=DeleteQueue&QueueUrl={url}"),
        ("text/plain", "Action=PurgeQueue&QueueUrl={url}"),
        (
            "multipart/form-data; boundary=b",
            '--b\r\nContent-Disposition: form-data; name="Action"\r\n\r\nPurgeQueue\r\n--b--',
        ),
    ],
    ids=["form", "text-plain", "multipart"],
)
def test_a_cross_origin_post_to_sqs_is_refused_and_changes_nothing(sqs, raw, queue_url, content_type, body):
    headers = {**CROSS_SITE, "Content-Type": content_type}
    response = raw.request("POST", "/", body.format(url=queue_url), headers, sign=False)
    assert response.status == 403
    assert response.xml().find("Error/Code").text == "AccessDenied"
    _still_there(sqs, queue_url)


def test_an_origin_alone_is_enough_to_refuse(sqs, raw, queue_url):
    """Browsers before Sec-Fetch-* headers still send Origin on a cross-origin POST."""
    body = f"Action=DeleteQueue&QueueUrl={urllib.parse.quote(queue_url)}"
    response = raw.request("POST", "/", body, {**FORM, "Origin": "null"}, sign=False)
    assert response.status == 403
    _still_there(sqs, queue_url)


def test_an_image_get_of_an_action_is_refused(sqs, raw, queue_url):
    """<img src="http://127.0.0.1:9324/?Action=DeleteQueue&QueueUrl=..."> sends no Origin."""
    query = urllib.parse.urlencode({"Action": "DeleteQueue", "QueueUrl": queue_url})
    response = raw.request("GET", f"/?{query}", headers={"Sec-Fetch-Site": "cross-site"}, sign=False)
    assert response.status == 403
    _still_there(sqs, queue_url)


def test_a_same_site_page_on_another_port_is_refused_too(sqs, raw, queue_url):
    """http://localhost:3000 is the same site as the emulator, but not its origin."""
    body = f"Action=DeleteQueue&QueueUrl={urllib.parse.quote(queue_url)}"
    headers = {**FORM, "Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}
    assert raw.request("POST", "/", body, headers, sign=False).status == 403
    _still_there(sqs, queue_url)


@pytest.mark.parametrize("path", ["/_emulator/reset", "/moto-api/reset", "/_emulator/clock/advance?seconds=60"])
def test_a_cross_origin_form_post_to_the_admin_api_is_refused(sqs, raw, queue_url, path):
    before = _queue_count(raw)
    response = raw.request("POST", path, "x=1", {**CROSS_SITE, **FORM}, sign=False)
    assert response.status == 403 and "evil.example" in response.json()["error"]
    assert _queue_count(raw) == before
    _still_there(sqs, queue_url)


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"])
def test_an_admin_post_must_be_json(sqs, raw, queue_url, content_type):
    """Even without an Origin (a browser that sends none, a proxy that strips it)."""
    before = _queue_count(raw)
    response = raw.request("POST", "/_emulator/reset", "{}", {"Content-Type": content_type}, sign=False)
    assert response.status == 415 and "application/json" in response.json()["error"]
    assert _queue_count(raw) == before


def test_the_own_origin_and_sdks_are_served(endpoint, sqs, raw, queue_url):
    own = {"Origin": endpoint, "Sec-Fetch-Site": "same-origin", **JSON_BODY}
    advanced = raw.request("POST", "/_emulator/clock/advance", json.dumps({"seconds": 0}), own, sign=False)
    assert advanced.status == 200
    listed = raw.json_call("ListQueues", {})
    assert listed.status == 200 and queue_url in listed.json()["QueueUrls"]
    dashboard = {**own, "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.ListQueues"}
    assert raw.request("POST", "/", "{}", dashboard, sign=False).status == 200
    assert "Access-Control-Allow-Origin" not in advanced.headers  # CORS only where configured


def test_a_foreign_host_is_refused_dns_rebinding(raw, sqs, queue_url):
    """A rebinding page at evil.example reads with its own name in Host: no message body leaks."""
    host = {"Host": f"evil.example:{raw.port}"}
    peek = raw.request("GET", f"/_emulator/messages?queue={urllib.parse.quote(queue_url)}", headers=host, sign=False)
    assert peek.status == 403 and b"keep me" not in peek.body
    assert "--allowed-hosts" in peek.json()["error"]
    receive = raw.request(
        "POST",
        "/",
        json.dumps({"QueueUrl": queue_url}),
        {**host, "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.ReceiveMessage"},
        sign=False,
    )
    assert receive.status == 403 and b"keep me" not in receive.body
    assert receive.header("x-amzn-query-error") == "AccessDenied;Sender"
    _still_there(sqs, queue_url)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "sqs.eu-west-1.localhost", "10.1.2.3"])
def test_loopback_names_and_addresses_are_answered(raw, host):
    response = raw.request("GET", "/_emulator/health", headers={"Host": f"{host}:{raw.port}"}, sign=False)
    assert response.status == 200


def test_allowed_hosts_and_cors_origins_are_configurable():
    """Docker: a container reached as http://sqs:9324 needs --allowed-hosts sqs (or --hostname)."""
    app_origin = "http://localhost:3000"
    server = start_emulator("manual", "web", "--allowed-hosts", "sqs,queues.internal", "--cors-origins", app_origin)
    try:
        raw = RawClient(server.url)
        for name in ("sqs", "queues.internal"):
            assert raw.request("GET", "/_emulator/queues", headers={"Host": f"{name}:9324"}).status == 200
        assert raw.request("GET", "/_emulator/queues", headers={"Host": "other:9324"}).status == 403
        preflight = raw.request(
            "OPTIONS",
            "/",
            headers={
                "Origin": app_origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-amz-target",
            },
            sign=False,
        )
        assert preflight.status == 204
        assert preflight.header("Access-Control-Allow-Origin") == app_origin
        assert preflight.header("Access-Control-Allow-Headers") == "content-type,x-amz-target"
        cors = {"Origin": app_origin, "Sec-Fetch-Site": "same-site"}
        listed = raw.request(
            "POST",
            "/",
            "{}",
            {**cors, "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.ListQueues"},
        )
        assert listed.status == 200 and listed.header("Access-Control-Allow-Origin") == app_origin
        assert "x-amzn-RequestId" in listed.header("Access-Control-Expose-Headers")
        refused = raw.request("OPTIONS", "/", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"})
        assert refused.status == 403 and refused.header("Access-Control-Allow-Origin") is None
    finally:
        server.stop()


def test_an_sdk_is_unaffected(endpoint):
    sqs = sqs_client(endpoint)
    url = sqs.create_queue(QueueName=unique_name("sdk"))["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="hi")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "hi"
    sqs.delete_queue(QueueUrl=url)
