"""Event source mappings in a server process: made through the admin API and the
config file, invoking an HTTP endpoint (the Lambda runtime interface emulator's
invoke path, served here by a small HTTP server running a Powertools handler), a
command and a module's function. Messages are sent with boto3; time moves on the
manual clock; a background thread's work is awaited with a short deadline.

AWS's rules are those of tests/events/test_event_sources.py (Lambda Developer
Guide, "Using Lambda with Amazon SQS" and its pages); the admin API and the config
file are the emulator's own.
"""

import json
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.parser.models import SqsModel
from prometheus_client.parser import text_string_to_metric_families

from compat_tests.conftest import TARGET
from compat_tests.event_sources import wait_for
from compat_tests.helpers import admin_call as call
from compat_tests.helpers import counts, sqs_client
from compat_tests.local_http import LocalHttp
from compat_tests.restartable import refused_start
from compat_tests.servers import start_emulator

pytestmark = pytest.mark.skipif(TARGET != "emulator", reason="event source mappings are the emulator's own")

INVOKE_PATH = "/2015-03-31/functions/function/invocations"


class InvokeServer(LocalHttp):
    """POST /2015-03-31/functions/function/invocations as the runtime interface emulator
    serves it: the event in, 200 and the handler's result out; a handler's exception is
    200 with Lambda's error object (aws-lambda-runtime-interface-emulator issue 20)."""

    def __init__(self, handler):
        self.events: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                event = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != INVOKE_PATH:
                    self.send_error(404)
                    return
                outer.events.append(event)
                try:
                    result = handler(event, None)
                except Exception as error:
                    result = {"errorType": type(error).__name__, "errorMessage": str(error)}
                body = json.dumps(result).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(Handler, INVOKE_PATH)


@pytest.fixture
def invoke_server():
    started = []

    def start(handler):
        server = InvokeServer(handler)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def powertools_handler(record_handler):
    processor = BatchProcessor(event_type=EventType.SQS)

    def handler(event, context):
        SqsModel.model_validate(event)  # Powertools' model of Lambda's SQS event
        return process_partial_response(event=event, record_handler=record_handler, processor=processor)

    return handler


def test_an_http_target_made_through_the_admin_api_gets_partial_batches(
    endpoint, sqs, queue_factory, mappings, invoke_server
):
    url = queue_factory(attributes={"VisibilityTimeout": 60})
    for body in ("ok-1", "bad-1", "ok-2"):
        sqs.send_message(QueueUrl=url, MessageBody=body)

    def record_handler(record):
        if record.body.startswith("bad"):
            raise ValueError(record.body)

    function = invoke_server(powertools_handler(record_handler))
    mapping = mappings({"queue": url, "target": function.url, "report_batch_item_failures": True})
    assert mapping["queue"] == url and mapping["target"] == function.url
    assert (mapping["batch_size"], mapping["batching_window_seconds"], mapping["enabled"]) == (10, 0, True)
    assert mapping["state"] == "enabled"
    done = wait_for(endpoint, mapping["id"], lambda c: c["invocations"] == 1 and not c["in_flight"])
    assert done["counters"]["deleted"] == 2 and done["counters"]["items_reported_failed"] == 1
    assert [r["body"] for r in function.events[0]["Records"]] == ["ok-1", "bad-1", "ok-2"]
    assert counts(sqs, url) == (0, 1, 0)

    status, listed = call(endpoint, "GET", "/_emulator/event-sources")
    assert status == 200 and mapping["id"] in [m["id"] for m in listed["event_sources"]]
    _, queues = call(endpoint, "GET", "/_emulator/queues")
    (shown,) = [q for q in queues["queues"] if q["url"] == url]
    (source,) = shown["event_sources"]
    assert source["id"] == mapping["id"] and source["counters"]["items_reported_failed"] == 1

    with urllib.request.urlopen(endpoint + "/_emulator/metrics", timeout=10) as response:
        families = {f.name: f for f in text_string_to_metric_families(response.read().decode())}
    samples = {
        s.labels["event"]: s.value
        for s in families["sqs_event_source_events"].samples
        if s.labels["mapping"] == mapping["id"] and s.name.endswith("_total")
    }
    assert samples["invocations"] == 1 and samples["deleted"] == 2 and samples["items_reported_failed"] == 1

    status, deleted = call(endpoint, "DELETE", f"/_emulator/event-sources/{mapping['id']}")
    assert status == 200 and deleted["deleted"] is True
    assert call(endpoint, "GET", f"/_emulator/event-sources/{mapping['id']}")[0] == 404


def test_a_function_error_from_an_http_target_leaves_the_batch_for_its_visibility_timeout(
    endpoint, sqs, queue_factory, mappings, invoke_server, advance
):
    url = queue_factory(attributes={"VisibilityTimeout": 45})
    sqs.send_message(QueueUrl=url, MessageBody="flaky")
    attempts = []

    def handler(event, context):
        attempts.append(event["Records"][0]["attributes"]["ApproximateReceiveCount"])
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")
        return None

    function = invoke_server(handler)
    mapping = mappings({"queue": url, "target": function.url})
    failed = wait_for(endpoint, mapping["id"], lambda c: c["failures"] == 1 and not c["in_flight"])
    assert "RuntimeError" in failed["counters"]["last_error"]
    assert counts(sqs, url) == (0, 1, 0)
    advance(45)
    done = wait_for(endpoint, mapping["id"], lambda c: c["deleted"] == 1)
    assert attempts == ["1", "2"] and done["counters"]["retried_records"] == 1
    assert counts(sqs, url) == (0, 0, 0)


COMMAND = """
import json, sys
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as out:
    for record in event["Records"]:
        out.write(record["body"] + "\\n")
failed = [{"itemIdentifier": r["messageId"]} for r in event["Records"] if r["body"].startswith("bad")]
print(json.dumps({"batchItemFailures": failed}))
"""


def test_patch_disables_enables_and_changes_a_mapping(endpoint, sqs, queue_factory, mappings, invoke_server):
    url = queue_factory()
    function = invoke_server(lambda event, context: None)
    mapping = mappings({"queue": url, "target": function.url, "enabled": False})
    assert mapping["state"] == "disabled"
    sqs.send_message(QueueUrl=url, MessageBody="waits")
    assert counts(sqs, url) == (1, 0, 0)  # nobody polls a disabled mapping
    status, changed = call(
        endpoint, "PATCH", f"/_emulator/event-sources/{mapping['id']}", {"enabled": True, "batch_size": 5}
    )
    assert status == 200 and changed["state"] == "enabled" and changed["batch_size"] == 5
    wait_for(endpoint, mapping["id"], lambda c: c["deleted"] == 1)
    status, refused = call(endpoint, "PATCH", f"/_emulator/event-sources/{mapping['id']}", {"queue": "other"})
    assert (status, refused["field"]) == (400, "queue")
    status, refused = call(endpoint, "PATCH", f"/_emulator/event-sources/{mapping['id']}", {"batch_size": 0})
    assert (status, refused) == (400, {"error": "batch_size: must be from 1 to 10000, not 0", "field": "batch_size"})


@pytest.mark.parametrize(
    "fields, field, error",
    [
        ({}, "target", "target: is required"),
        ({"target": "ftp://nowhere"}, "target", "target: 'ftp://nowhere' is neither an http(s) URL"),
        ({"target": "http://127.0.0.1:1/x", "batch_size": 0}, "batch_size", "batch_size: must be from 1 to 10000"),
        ({"target": "http://127.0.0.1:1/x", "batch_size": 11}, "batching_window_seconds", "must be at least 1"),
        ({"target": "http://127.0.0.1:1/x", "maximum_concurrency": 1}, "maximum_concurrency", "from 2 to 1000"),
        ({"target": "http://127.0.0.1:1/x", "filters": [{"body": {"a": [{"like": "x"}]}}]}, "filters[0]", "unknown"),
        ({"target": "http://127.0.0.1:1/x", "timeout_seconds": 31}, "timeout_seconds", "Queue visibility timeout"),
        ({"target": "http://127.0.0.1:1/x", "colour": "red"}, "colour", "colour: is not a field"),
    ],
)
def test_bad_mapping_input_answers_a_json_400_naming_the_field(endpoint, queue_factory, fields, field, error):
    url = queue_factory()
    status, answer = call(endpoint, "POST", "/_emulator/event-sources", {"queue": url, **fields})
    assert status == 400 and answer["field"] == field and error in answer["error"], answer


def test_admin_requests_without_a_queue_or_mapping_are_refused(endpoint):
    assert call(endpoint, "POST", "/_emulator/event-sources", {"target": "http://127.0.0.1:1/x"})[0] == 400
    missing = {"queue": "nowhere", "target": "http://127.0.0.1:1/x"}
    status, answer = call(endpoint, "POST", "/_emulator/event-sources", missing)
    assert (status, answer["error"]) == (404, "no queue nowhere")
    assert call(endpoint, "POST", "/_emulator/event-sources", raw=b"{not json")[0] == 400
    for method in ("GET", "PATCH", "DELETE"):
        status, answer = call(
            endpoint, method, "/_emulator/event-sources/no-such-id", {} if method == "PATCH" else None
        )
        assert (status, answer["error"]) == (404, "no event source mapping no-such-id")
    assert call(endpoint, "PUT", "/_emulator/event-sources")[0] == 405


def test_a_mapping_is_made_only_from_a_json_request_of_this_origin_and_commands_only_from_this_machine(
    endpoint, queue_factory
):
    # A mapping runs code: a web page must not be able to make one (cross-site request forgery,
    # DNS rebinding). The emulator's own rule; AWS has no such API.
    url = queue_factory()
    fields = {"queue": url, "target": "http://127.0.0.1:1/x"}
    plain = {"Content-Type": "text/plain"}
    assert call(endpoint, "POST", "/_emulator/event-sources", fields, headers=plain)[0] == 415
    # The guard refuses a page's origin and a rebound Host before the route (emulator/server/guard.py).
    status, answer = call(endpoint, "POST", "/_emulator/event-sources", fields, headers={"Origin": "http://evil.test"})
    assert status == 403 and "http://evil.test" in answer["error"]
    command = {"queue": url, "target": ["touch", "/tmp/pwned"]}
    rebound = {"Host": "evil.test:" + endpoint.rsplit(":", 1)[1]}
    status, answer = call(endpoint, "POST", "/_emulator/event-sources", command, headers=rebound)
    assert status == 403 and "evil.test" in answer["error"]
    assert all(m["queue"] != url for m in call(endpoint, "GET", "/_emulator/event-sources")[1]["event_sources"])


def test_a_deep_json_message_is_filtered_out_and_the_mapping_delivers_the_next_one(
    endpoint, sqs, queue_factory, mappings, invoke_server
):
    """A 10 KB body of JSON nested 5,000 deep beside a body filter ended the mapping in state
    'failed: RecursionError' (issue 31, item 6). A body the decoder cannot read matches no body
    filter, so it is filtered out (deleted, as Lambda does with a record no filter passes:
    with-sqs-filtering), and the mapping goes on to deliver the next matching message."""
    url = queue_factory()
    function = invoke_server(lambda event, context: None)
    mapping = mappings({"queue": url, "target": function.url, "filters": [{"body": {"kind": ["order"]}}]})
    sqs.send_message(QueueUrl=url, MessageBody="[" * 5000 + "]" * 5000)
    done = wait_for(endpoint, mapping["id"], lambda c: c["filtered_out"] == 1)
    assert done["state"] == "enabled" and done["counters"]["errors"] == 0
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"kind": "order", "n": 2}))
    done = wait_for(endpoint, mapping["id"], lambda c: c["deleted"] == 1)
    assert done["state"] == "enabled"
    assert [json.loads(r["body"]) for e in function.events for r in e["Records"]] == [{"kind": "order", "n": 2}]
    assert counts(sqs, url) == (0, 0, 0)


def test_a_record_without_message_attributes_carries_md5_of_message_attributes_null(
    endpoint, sqs, queue_factory, mappings, invoke_server
):
    """As events Lambda delivered show it (a logged eu-west-1 event in ChristianKatka/aws-step-functions,
    my-lambda1/test/event.ts; Powertools for TypeScript's SqsRecordSchema allows null): the key is
    there, null; with attributes it is their digest."""
    url = queue_factory()
    function = invoke_server(lambda event, context: None)
    sqs.send_message(QueueUrl=url, MessageBody="plain")
    attributes = {"a": {"DataType": "String", "StringValue": "b"}}
    sent = sqs.send_message(QueueUrl=url, MessageBody="with", MessageAttributes=attributes)
    mapping = mappings({"queue": url, "target": function.url})
    wait_for(endpoint, mapping["id"], lambda c: c["deleted"] == 2)
    records = {r["body"]: r for e in function.events for r in e["Records"]}
    assert "md5OfMessageAttributes" in records["plain"] and records["plain"]["md5OfMessageAttributes"] is None
    assert records["with"]["md5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]


def test_a_second_mapping_of_a_queue_to_the_same_function_is_a_409_resource_conflict(endpoint, queue_factory, mappings):
    """CreateEventSourceMapping answers ResourceConflictException (HTTP 409) for a queue and function
    already mapped, in the wording AWS answered in aws/chalice#2146 and getlift/lift#295; the same
    queue to another function, or another queue to the same function, is a new mapping. (The same
    function: the same URL, command line or "package.module:function", emulator/events/registry.py.)"""
    url, other_queue = queue_factory(), queue_factory()
    arn = f"arn:aws:sqs:us-east-1:000000000000:{url.rsplit('/', 1)[1]}"
    first = mappings({"queue": url, "target": "http://127.0.0.1:1/f", "enabled": False})
    status, answer = call(
        endpoint, "POST", "/_emulator/event-sources", {"queue": url, "target": "http://127.0.0.1:1/f"}
    )
    assert (status, answer["code"], answer["field"], answer["existing"]) == (
        409,
        "ResourceConflictException",
        "target",
        first["id"],
    )
    name = first["function_arn"].rsplit(":", 1)[1]
    assert answer["error"] == (
        f'An event source mapping with SQS arn (" {arn} ") and function (" {name} ") already exists. '
        f"Please update or delete the existing mapping with UUID {first['id']}"
    )
    mappings({"queue": other_queue, "target": "http://127.0.0.1:1/f", "enabled": False})  # another queue
    other = mappings({"queue": url, "target": "http://127.0.0.1:1/g", "enabled": False})  # another function
    patch = {"target": "http://127.0.0.1:1/f"}
    status, answer = call(endpoint, "PATCH", f"/_emulator/event-sources/{other['id']}", patch)
    assert (status, answer["existing"]) == (409, first["id"])
    assert call(endpoint, "GET", f"/_emulator/event-sources/{other['id']}")[1]["target"] == "http://127.0.0.1:1/g"
    assert (
        len([m for m in call(endpoint, "GET", "/_emulator/event-sources")[1]["event_sources"] if m["queue"] == url])
        == 2
    )


# -- the config file ------------------------------------------------------------


def test_a_config_file_starts_its_event_sources(tmp_path):
    out = tmp_path / "from-config.txt"
    config = tmp_path / "events.toml"
    config.write_text(
        '[[queues]]\nname = "work"\n\n'
        "[[event_sources]]\n"
        'queue = "work"\n'
        f"target = {json.dumps([sys.executable, '-c', COMMAND, str(out)])}\n"
        "batch_size = 2\n"
        "report_batch_item_failures = true\n"
        "timeout_seconds = 20\n"
    )
    server = start_emulator("manual", "events-config", "--config", str(config))
    try:
        sqs = sqs_client(server.url)
        url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
        for body in ("a", "b", "c"):
            sqs.send_message(QueueUrl=url, MessageBody=body)
        _, listed = call(server.url, "GET", "/_emulator/event-sources")
        (mapping,) = listed["event_sources"]
        assert (mapping["queue"], mapping["batch_size"], mapping["report_batch_item_failures"]) == (url, 2, True)
        wait_for(server.url, mapping["id"], lambda c: c["deleted"] == 3)
        assert sorted(out.read_text().split()) == ["a", "b", "c"]
    finally:
        server.stop()


@pytest.mark.parametrize(
    "entry, expected",
    [
        ('queue = "work"\ntarget = "http://127.0.0.1:1/x"\nbatch_size = 0\n', "event_sources[0]: batch_size: "),
        ('queue = "work"\ntarget = "http://127.0.0.1:1/x"\nshape = 1\n', "event_sources[0]: unknown key 'shape'"),
        ('queue = "nowhere"\ntarget = "http://127.0.0.1:1/x"\n', "event_sources[0]: queue: no queue 'nowhere'"),
        ('target = "http://127.0.0.1:1/x"\n', "event_sources[0]: queue: an event source needs a queue"),
        ('queue = "work"\ntarget = "no_such_module_xyz:f"\n', "event_sources[0]: target: cannot import"),
    ],
)
def test_a_bad_event_source_in_the_config_stops_the_start_naming_the_file_and_key(tmp_path, entry, expected):
    config = tmp_path / "bad-events.toml"
    config.write_text(f'[[queues]]\nname = "work"\n\n[[event_sources]]\n{entry}')
    result = refused_start("--config", str(config))
    assert result.returncode != 0
    assert f"sqs-emulator: {config}: {expected}" in result.stderr, result.stderr
