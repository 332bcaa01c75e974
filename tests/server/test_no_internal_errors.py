"""No request of any shape makes the server answer 500.

Hypothesis throws requests at the WSGI app in-process: every operation of
botocore's SQS model with members of random types and values, in both
protocols, plus raw garbage. Each must get a well-formed answer below 500.
"""

import json
import string
from urllib.parse import urlencode

import botocore.session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import Client

from emulator.engine.broker import Broker
from emulator.engine.clock import ManualClock
from emulator.server.app import EmulatorApp

MODEL = botocore.session.get_session().get_service_model("sqs")
OPERATIONS = sorted(MODEL.operation_names)
QUEUE_URL = "http://localhost/000000000000/fuzz"
# A long poll on the manual clock waits until time moves; keep waits at 0 or invalid.
WAITS = st.sampled_from([0, -1, 21, 10**12])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.sampled_from(["All", ".*", QUEUE_URL, "fuzz", "arn:aws:sqs:us-east-1:000000000000:fuzz", "", "\x00", "🦀"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def json_params(draw, operation: str) -> dict:
    members = list(MODEL.operation_model(operation).input_shape.members)
    chosen = draw(st.lists(st.sampled_from(members), unique=True, max_size=len(members))) if members else []
    params = {name: draw(WAITS if name == "WaitTimeSeconds" else values) for name in chosen}
    if "QueueUrl" in members and draw(st.booleans()):
        params["QueueUrl"] = QUEUE_URL
    return params


@st.composite
def form_fields(draw, operation: str) -> list[tuple[str, str]]:
    members = list(MODEL.operation_model(operation).input_shape.members)
    suffixes = ["", ".1", ".1.Name", ".1.Value", ".1.Value.DataType", ".1.Value.StringValue", ".member.1", ".1.Id"]
    keys = (
        st.builds(
            lambda m, s: m + s, st.sampled_from([*members, "Attribute", "MessageAttribute"]), st.sampled_from(suffixes)
        )
        if members
        else st.just("Bogus")
    )
    fields = draw(st.lists(st.tuples(keys, st.text(max_size=30)), max_size=8))
    fields = [(k, "0" if k.startswith("WaitTimeSeconds") else v) for k, v in fields]
    return [("Action", operation), ("QueueUrl", QUEUE_URL), *fields]


def _client() -> Client:
    broker = Broker(ManualClock(start=1_700_000_000))
    broker.create_queue("000000000000", "us-east-1", "fuzz", {})
    return Client(EmulatorApp(broker, "000000000000", "us-east-1"))


def _assert_well_formed(response, protocol: str) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)
    assert response.headers.get("x-amzn-RequestId")
    body = response.get_data(as_text=True)
    if protocol == "json":
        parsed = json.loads(body)
        if response.status_code >= 400:
            assert parsed["__type"].startswith("com.amazonaws.sqs#")
            assert ";" in response.headers["x-amzn-query-error"]
    else:
        assert body.startswith(("<?xml", "<"))
        if response.status_code >= 400:
            assert "<ErrorResponse" in body and "<Code>" in body


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(OPERATIONS).flatmap(lambda op: st.tuples(st.just(op), json_params(op))))
def test_json_requests_of_any_shape(case):
    operation, params = case
    response = _client().post(
        "/",
        data=json.dumps(params, default=str),
        headers={"X-Amz-Target": f"AmazonSQS.{operation}", "Content-Type": "application/x-amz-json-1.0"},
    )
    _assert_well_formed(response, "json")


@FUZZ
@given(st.sampled_from(OPERATIONS).flatmap(form_fields))
def test_query_requests_of_any_shape(fields):
    response = _client().post("/", data=urlencode(fields), content_type="application/x-www-form-urlencoded")
    _assert_well_formed(response, "query")


@FUZZ
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"]),
    path=st.text(alphabet=string.ascii_letters + string.digits + "/-_.%", max_size=40).map(lambda p: "/" + p),
    body=st.binary(max_size=200),
    content_type=st.sampled_from(
        ["application/x-amz-json-1.0", "application/x-www-form-urlencoded", "text/plain", "", "application/json"]
    ),
    target=st.one_of(
        st.none(),
        st.text(string.printable.strip(), max_size=30),
        st.sampled_from([f"AmazonSQS.{op}" for op in OPERATIONS]),
    ),
)
def test_garbage_requests(method, path, body, content_type, target):
    headers = {"Content-Type": content_type} if content_type else {}
    if target is not None:
        headers["X-Amz-Target"] = target
    if path.startswith("/_emulator"):
        path = "/x" + path
    response = _client().open(path, method=method, data=body, headers=headers)
    assert response.status_code < 500, response.get_data(as_text=True)
