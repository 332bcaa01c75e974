"""Record byte-level wire fixtures: real SDK requests in, the emulator's exact bytes out.

    python scripts/record_fixtures.py            # (re)write fixtures/wire/<protocol>/<scenario>.json
    python scripts/record_fixtures.py --check    # diff live output against the stored files, exit 1 if different

Every scenario runs against a fresh in-process EmulatorApp (werkzeug's test
client, no sockets) whose ManualClock starts at T0, once per protocol:

- json:  requests built by the installed botocore's JSON 1.0 serializer;
- query: requests built by botocore's query serializer over the last
         query-protocol model (botocore 1.31.80), kept next to the fixtures.

Responses are parsed by botocore's parsers too, so a scenario can feed a
receipt handle from one call into the next, and a response botocore cannot
read fails the recording.

A fixture is a transcript: ``setup`` exchanges, then the ``request`` and
``response`` the scenario is about. Ids and times are replaced by
placeholders (``<MessageId:1>``, ``<ReceiptHandle:2>``, ``<RequestId:3>``,
``<EpochMillis:T0+3>``) by ``Normalizer`` of tests/protocol/recorded.py,
which tests/protocol/test_wire_fixtures.py replays them with.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from werkzeug.test import Client  # noqa: E402

from tests.protocol.recorded import (  # noqa: E402
    ACCOUNT,
    BASE_URL,
    FIXTURES,
    PROTOCOLS,
    REGION,
    T0,
    Normalizer,
    dump,
    fixture_files,
    new_app,
    send,
)

QUERY_MODEL = FIXTURES / "botocore-1.31.80-sqs-service-2.json"
OLD_WHEEL = Path("/tmp/oldbc/botocore-1.31.80-py3-none-any.whl")
WHEEL_MEMBER = "botocore/data/sqs/2012-11-05/service-2.json"

QUEUE_URL = f"{BASE_URL}/{ACCOUNT}/wire-queue"
# What a SigV4-signing SDK sends. The emulator reads the credential scope
# (account and region) and does not check the signature, so a fixed one keeps
# the fixtures stable.
AMZ_DATE = "20231114T221320Z"
SIGNATURE = "0" * 64

# Request headers worth pinning (compared case-insensitively, stored with the
# casing the client used).
REQUEST_HEADERS = ("content-type", "x-amz-target", "x-amzn-query-mode", "x-amz-date", "authorization")


# =================================================================== requests, as SDKs build them


def _json_model():
    import botocore.session

    return botocore.session.get_session().get_service_model("sqs")


def _query_model():
    from botocore.model import ServiceModel

    if not QUERY_MODEL.exists():
        with zipfile.ZipFile(OLD_WHEEL) as wheel:
            QUERY_MODEL.parent.mkdir(parents=True, exist_ok=True)
            QUERY_MODEL.write_bytes(wheel.read(WHEEL_MEMBER))
    return ServiceModel(json.loads(QUERY_MODEL.read_text()), service_name="sqs")


def _authorization(signed: list[str]) -> str:
    return (
        f"AWS4-HMAC-SHA256 Credential=test/{AMZ_DATE[:8]}/{REGION}/sqs/aws4_request, "
        f"SignedHeaders={';'.join(sorted(['host', *signed]))}, Signature={SIGNATURE}"
    )


class Wire:
    """Builds a protocol's requests with botocore's serializer and reads responses with its parser."""

    def __init__(self, protocol: str):
        self.protocol = protocol
        self.model = _json_model() if protocol == "json" else _query_model()

    def request(self, operation: str, params: dict) -> dict:
        from botocore.serialize import create_serializer

        op = self.model.operation_model(operation)
        req = create_serializer(self.protocol, include_validation=False).serialize_to_request(params, op)
        body = req["body"]
        # What botocore's AWSRequest does with each body: a dict is form-encoded.
        body = urlencode(body, doseq=True) if isinstance(body, dict) else body.decode("utf-8")
        return self._finish(req["method"], req["url_path"], dict(req["headers"]), body)

    def invalid_action(self, name: str) -> dict:
        """A request for an operation the model does not have, in the shape the serializer gives ListQueues."""
        req = self.request("ListQueues", {})
        if self.protocol == "json":
            req["headers"]["X-Amz-Target"] = f"AmazonSQS.{name}"
        else:
            req["body"] = req["body"].replace("Action=ListQueues", f"Action={name}")
        return req

    def _finish(self, method: str, path: str, headers: dict, body: str) -> dict:
        if self.protocol == "query":
            # botocore.awsrequest adds the charset to a form body's type.
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
        headers["X-Amz-Date"] = AMZ_DATE
        headers["Authorization"] = _authorization([n.lower() for n in headers])
        pinned = {n: v for n, v in headers.items() if n.lower() in REQUEST_HEADERS}
        return {"method": method, "path": path, "headers": pinned, "body": body}

    def parse(self, operation: str, response: dict) -> dict:
        from botocore.awsrequest import HeadersDict
        from botocore.parsers import create_parser

        raw = {
            "status_code": int(response["status"].split()[0]),
            "headers": HeadersDict(response["headers"]),
            "body": response["body"].encode("utf-8"),
        }
        return create_parser(self.protocol).parse(raw, self.model.operation_model(operation).output_shape)


# =================================================================== scenarios

# A scenario is a generator: it yields steps and receives each step's parsed
# response (botocore's view of it), so later steps can use earlier results.


@dataclass
class Call:
    operation: str
    params: dict
    subject: bool = False  # the exchange this scenario is about (the last one)


@dataclass
class InvalidAction:
    name: str
    subject: bool = True


@dataclass
class Advance:
    """Move the manual clock through the admin route."""

    seconds: int
    subject: bool = False


@dataclass
class Scenario:
    steps: Callable[[], Iterator]  # named _<scenario name>
    description: str
    protocols: tuple[str, ...] = field(default=PROTOCOLS)

    @property
    def name(self) -> str:
        return self.steps.__name__.lstrip("_")


BINARY = bytes(range(0, 256, 17)) + b"\xff\x00"
SEND_ATTRIBUTES = {
    "color": {"DataType": "String", "StringValue": "blue & <green>"},
    "count": {"DataType": "Number", "StringValue": "42"},
    "price": {"DataType": "Number.float", "StringValue": "-3.25"},
    "blob": {"DataType": "Binary", "BinaryValue": BINARY},
}
TRACE = {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"}}
BODY = 'Hello <wire> & "friends"\'s\r\nsecond line \u00e9\u4e2d'


def create(name: str = "wire-queue", **extra) -> Call:
    return Call("CreateQueue", {"QueueName": name, **extra})


def send_one(body: str = BODY, subject: bool = False, **extra) -> Call:
    return Call("SendMessage", {"QueueUrl": QUEUE_URL, "MessageBody": body, **extra}, subject)


def receive_all(subject: bool = False) -> Call:
    params = {"QueueUrl": QUEUE_URL, "AttributeNames": ["All"], "MessageAttributeNames": ["All"]}
    return Call("ReceiveMessage", {**params, "MaxNumberOfMessages": 10}, subject)


def _create_queue():
    yield Call(
        "CreateQueue",
        {
            "QueueName": "wire-queue",
            "Attributes": {"VisibilityTimeout": "45", "DelaySeconds": "2", "MessageRetentionPeriod": "86400"},
            "tags": {"env": "test", "team": "wire"},
        },
        subject=True,
    )


def _get_queue_url():
    yield create()
    yield Call("GetQueueUrl", {"QueueName": "wire-queue"}, subject=True)


def _list_queues():
    yield create("wire-a")
    yield create("wire-b")
    yield create("other")
    yield Call("ListQueues", {"QueueNamePrefix": "wire-"}, subject=True)


def _get_queue_attributes():
    yield create(Attributes={"ReceiveMessageWaitTimeSeconds": "3"})
    yield send_one()
    yield Advance(5)
    yield Call("GetQueueAttributes", {"QueueUrl": QUEUE_URL, "AttributeNames": ["All"]}, subject=True)


def _set_queue_attributes():
    yield create()
    yield Advance(2)
    yield Call(
        "SetQueueAttributes",
        {"QueueUrl": QUEUE_URL, "Attributes": {"VisibilityTimeout": "60", "MaximumMessageSize": "2048"}},
        subject=True,
    )


def _send_message():
    yield create()
    yield Call(
        "SendMessage",
        {
            "QueueUrl": QUEUE_URL,
            "MessageBody": BODY,
            "DelaySeconds": 0,
            "MessageAttributes": SEND_ATTRIBUTES,
            "MessageSystemAttributes": TRACE,
        },
        subject=True,
    )


def _send_message_batch():
    yield create()
    yield Call(
        "SendMessageBatch",
        {
            "QueueUrl": QUEUE_URL,
            "Entries": [
                {"Id": "first", "MessageBody": "one", "MessageAttributes": SEND_ATTRIBUTES},
                {"Id": "too-late", "MessageBody": "two", "DelaySeconds": 901},
                {"Id": "third", "MessageBody": "three", "MessageSystemAttributes": TRACE},
            ],
        },
        subject=True,
    )


def _receive_message():
    yield create()
    yield Call(
        "SendMessage",
        {
            "QueueUrl": QUEUE_URL,
            "MessageBody": BODY,
            "MessageAttributes": SEND_ATTRIBUTES,
            "MessageSystemAttributes": TRACE,
        },
    )
    yield send_one("plain second message")
    yield Advance(3)
    yield receive_all(subject=True)


def _delete_message():
    yield create()
    yield send_one()
    received = yield receive_all()
    handle = received["Messages"][0]["ReceiptHandle"]
    yield Call("DeleteMessage", {"QueueUrl": QUEUE_URL, "ReceiptHandle": handle}, subject=True)


def _delete_message_batch():
    yield create()
    yield send_one("first")
    yield send_one("second")
    received = yield receive_all()
    entries = [{"Id": f"m{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(received["Messages"], 1)]
    entries.append({"Id": "bogus", "ReceiptHandle": "not-a-receipt-handle"})
    yield Call("DeleteMessageBatch", {"QueueUrl": QUEUE_URL, "Entries": entries}, subject=True)


def _change_message_visibility():
    yield create()
    yield send_one()
    received = yield receive_all()
    handle = received["Messages"][0]["ReceiptHandle"]
    yield Advance(10)
    yield Call(
        "ChangeMessageVisibility",
        {"QueueUrl": QUEUE_URL, "ReceiptHandle": handle, "VisibilityTimeout": 120},
        subject=True,
    )


def _list_queue_tags():
    yield create(tags={"env": "test", "team": "wire", "cost-center": "42"})
    yield Call("ListQueueTags", {"QueueUrl": QUEUE_URL}, subject=True)


def _error_queue_does_not_exist():
    yield Call("GetQueueUrl", {"QueueName": "no-such-queue"}, subject=True)


def _error_invalid_attribute_name():
    yield create()
    yield Call("GetQueueAttributes", {"QueueUrl": QUEUE_URL, "AttributeNames": ["NoSuchAttribute"]}, subject=True)


def _error_missing_parameter():
    yield create()
    yield Call("SendMessage", {"QueueUrl": QUEUE_URL}, subject=True)


def _error_invalid_action():
    yield InvalidAction("NoSuchAction")


def _error_receipt_handle_is_invalid():
    yield create()
    yield Call("DeleteMessage", {"QueueUrl": QUEUE_URL, "ReceiptHandle": "not-a-receipt-handle"}, subject=True)


def _error_batch_entry_ids_not_distinct():
    yield create()
    entries = [{"Id": "same", "MessageBody": "one"}, {"Id": "same", "MessageBody": "two"}]
    yield Call("SendMessageBatch", {"QueueUrl": QUEUE_URL, "Entries": entries}, subject=True)


def _error_invalid_message_contents():
    yield create()
    yield send_one("bad \u0000 byte", subject=True)


SCENARIOS = [
    Scenario(_create_queue, "CreateQueue with attributes and tags"),
    Scenario(_get_queue_url, "GetQueueUrl of an existing queue"),
    Scenario(_list_queues, "ListQueues with a name prefix"),
    Scenario(_get_queue_attributes, "GetQueueAttributes All, one message waiting, 5 s after creation"),
    Scenario(_set_queue_attributes, "SetQueueAttributes (empty result)"),
    Scenario(_send_message, "SendMessage with String/Number/Binary attributes and AWSTraceHeader"),
    Scenario(_send_message_batch, "SendMessageBatch, one entry failing (DelaySeconds 901)"),
    Scenario(_receive_message, "ReceiveMessage with All attributes, two messages, 3 s after sending"),
    Scenario(_delete_message, "DeleteMessage with a live receipt handle"),
    Scenario(_delete_message_batch, "DeleteMessageBatch, two live handles and one malformed"),
    Scenario(_change_message_visibility, "ChangeMessageVisibility of an in-flight message"),
    Scenario(_list_queue_tags, "ListQueueTags"),
    Scenario(_error_queue_does_not_exist, "QueueDoesNotExist from GetQueueUrl"),
    Scenario(_error_invalid_attribute_name, "InvalidAttributeName from GetQueueAttributes"),
    Scenario(_error_missing_parameter, "MissingParameter: SendMessage without MessageBody"),
    Scenario(_error_invalid_action, "InvalidAction: an operation SQS does not have"),
    Scenario(_error_receipt_handle_is_invalid, "ReceiptHandleIsInvalid from DeleteMessage"),
    Scenario(_error_batch_entry_ids_not_distinct, "BatchEntryIdsNotDistinct from SendMessageBatch"),
    Scenario(_error_invalid_message_contents, "InvalidMessageContents: a NUL in the body"),
]


def _admin_advance(seconds: int) -> dict:
    path = "/_emulator/clock/advance"
    return {"method": "POST", "path": path, "query": f"seconds={seconds}", "headers": {}, "body": ""}


def record(scenario: Scenario, protocol: str) -> dict:
    """Run one scenario on a fresh app; return its normalized transcript."""
    wire = Wire(protocol)
    client = Client(new_app())
    norm = Normalizer()
    exchanges, subject = [], None
    steps = scenario.steps()
    parsed = None
    while True:
        try:
            step = steps.send(parsed)
        except StopIteration:
            break
        if isinstance(step, Advance):
            request = _admin_advance(step.seconds)
        elif isinstance(step, InvalidAction):
            request = wire.invalid_action(step.name)
        else:
            request = wire.request(step.operation, step.params)
        response = send(client, request)
        norm.learn(response)
        # Every SQS response must be readable by botocore; later steps use what it reads.
        parsed = wire.parse(step.operation, response) if isinstance(step, Call) else None
        exchanges.append((request, response))
        if step.subject:
            subject = len(exchanges) - 1
    if subject != len(exchanges) - 1:
        raise ValueError(f"{scenario.name}: the subject must be the last step")
    exchanges = [{"request": norm.message(req), "response": norm.message(resp)} for req, resp in exchanges]
    return {
        "scenario": scenario.name,
        "protocol": protocol,
        "description": scenario.description,
        "clock_start": T0,
        "setup": exchanges[:-1],
        **exchanges[-1],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="diff against the stored fixtures; exit 1 if different")
    args = parser.parse_args(argv)
    _query_model()  # copy the old model next to the fixtures on first use
    wanted: dict[Path, str] = {}
    for scenario in SCENARIOS:
        for protocol in scenario.protocols:
            wanted[FIXTURES / protocol / f"{scenario.name}.json"] = dump(record(scenario, protocol))
    stale = sorted(set(fixture_files()) - set(wanted))
    if args.check:
        different = 0
        for path, text in wanted.items():
            old = path.read_text() if path.exists() else ""
            if old != text:
                different += 1
                rel = path.relative_to(ROOT)
                diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"a/{rel}", f"b/{rel}")
                sys.stdout.writelines(diff)
        for path in stale:
            different += 1
            print(f"stale fixture (no scenario records it): {path.relative_to(ROOT)}")
        print(f"{len(wanted)} fixtures checked, {different} different", file=sys.stderr)
        return 1 if different else 0
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for path in stale:
        path.unlink()
    print(f"wrote {len(wanted)} fixtures under {FIXTURES.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
