"""Hostile requests built from botocore's SQS model, for compat_tests/api/test_hostile_requests.py
and scripts/fuzz.py (the same strategy, run longer).

A request starts valid-ish: an operation of the model, its input shape's members filled
with values of their types (the fixture queues' URLs, attribute names of the model's
enums). Then one or more mutations: a value of the wrong type, a size past every limit,
a lone UTF-16 surrogate or invalid UTF-8, a NUL, a number past float's range, nesting
deeper than a parser goes (as a value and as JSON text inside Policy / RedrivePolicy), a
list index of 0, -1 or 10^20, a truncated body. It is sent in JSON 1.0 or the query
protocol (or to the admin API). `check` says what is wrong with the answer, if anything:
it must be a success or a well-formed AWS error (4xx, a code of emulator/errors.py),
never a 5xx, a hang or a lost connection; and a refused request changes nothing.
compat_tests/hostile_members.py aims one such value at each member of the model in turn.
"""

from __future__ import annotations

import http.client
import json
import string
import urllib.parse
from dataclasses import dataclass

import botocore.session
from hypothesis import strategies as st

from emulator.errors import ERRORS

MODEL = botocore.session.get_session().get_service_model("sqs")
# Long polls on the manual clock wait until time moves: waits are never valid and positive.
WAITS = ["0", "-1", "21", "100000000000000000000", "1e400", "x"]
CODES = {spec.code for spec in ERRORS.values()} | {spec.shape for spec in ERRORS.values()}
STANDARD, FIFO, DLQ = "hostile", "hostile.fifo", "hostile-dlq"
TIMEOUT = 15.0  # seconds for one answer: anything slower is a hang
DEEP = 50_000  # levels of nesting: past json's recursion limit


@dataclass
class Request:
    method: str
    path: str
    headers: dict
    body: bytes
    kind: str  # "json", "query" or "admin"

    def describe(self) -> str:
        return f"{self.method} {self.path} {self.headers} {self.body[:300]!r}"


def fixture_urls(endpoint: str) -> dict[str, str]:
    return {name: f"{endpoint}/000000000000/{name}" for name in (STANDARD, FIFO, DLQ)}


# ---------------------------------------------------------------- values of the model's shapes

# The server's default --max-body-bytes (emulator/server/build.py), not imported: the query env's
# test process runs without the server's dependencies.
MAX_BODY_BYTES = 3 * 1024 * 1024 + 64 * 1024

_ODD_STRINGS = [
    "",
    "\x00",
    "\ud800",
    "a\udfffb",
    "\U0001f980",
    "\x07\x0b\ufffe\uffff",
    "x" * 1_100_000,
    "All",
    ".*",
    "AWS.x",
    "1e400",
    "-0",
    "99999999999999999999999999",
    "[" * DEEP,
    "{}",
    "null",
]


def _policy_texts(urls: dict[str, str]):
    arn = "arn:aws:sqs:us-east-1:000000000000:" + DLQ
    deep = "[" * DEEP + "]" * DEEP
    return st.sampled_from(
        [
            json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 5}),
            *(f'{{"deadLetterTargetArn": "{arn}", "maxReceiveCount": {n}}}' for n in ("1e400", "-1e400", "NaN")),
            '{"redrivePermission": "byQueue", "sourceQueueArns": ["\\ud800"]}',
            '{"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sqs:*", "Sid": "\\udc00"}]}',
            '{"Statement": 5}',
            '{"Statement": [1, "x", null]}',
            '{"a": ' + deep + "}",
            deep,
            '{"x": "\ud800"}',
        ]
    )


def _string(member: str, shape, urls: dict[str, str]):
    if member == "QueueUrl":
        return st.sampled_from([*urls.values(), urls[STANDARD] + "/extra", "hostile", "/", "http://x/1/2/3/4"])
    if member in ("QueueName", "QueueNamePrefix"):
        return st.sampled_from([STANDARD, FIFO, DLQ, "new-queue", "new.fifo"])
    if member in ("SourceArn", "DestinationArn"):
        return st.sampled_from([f"arn:aws:sqs:us-east-1:000000000000:{n}" for n in (STANDARD, DLQ)] + ["arn:x"])
    if member == "WaitTimeSeconds":
        return st.sampled_from(WAITS)
    if shape.enum:
        return st.sampled_from(list(shape.enum))
    return st.one_of(st.text(max_size=20), st.sampled_from(_ODD_STRINGS[:12]))


def value_of(shape, member: str, urls: dict[str, str], depth: int = 0):
    """A strategy of JSON-able values of a botocore shape, mostly valid."""
    kind = shape.type_name
    if kind == "structure":
        members = list(shape.members.items())
        required = set(shape.required_members)
        return st.fixed_dictionaries(
            {name: value_of(m, name, urls, depth + 1) for name, m in members if name in required},
            optional={name: value_of(m, name, urls, depth + 1) for name, m in members if name not in required},
        )
    if kind == "list":
        return st.lists(value_of(shape.member, member, urls, depth + 1), max_size=3 if depth else 11)
    if kind == "map":
        if member == "Attributes":
            keys = st.sampled_from(list(shape.key.enum) or ["VisibilityTimeout"])
            values = st.one_of(st.sampled_from(["0", "30", "true", "-1", "1e400", ""]), _policy_texts(urls))
            return st.dictionaries(keys, values, max_size=4).map(_no_long_poll)
        return st.dictionaries(
            st.one_of(st.text(string.ascii_letters, min_size=1, max_size=8), st.sampled_from(["\ud800", "AWS.x", ""])),
            value_of(shape.value, member, urls, depth + 1),
            max_size=3,
        )
    if kind in ("integer", "long"):
        if member == "WaitTimeSeconds":
            return st.sampled_from([0, -1, 21, 10**20])
        return st.one_of(st.integers(-5, 1300), st.sampled_from([2**31, -(2**63), 10**40]))
    if kind == "boolean":
        return st.booleans()
    if kind == "blob":
        return st.sampled_from(["aGVsbG8=", "not base64!", "", "\ud800"])
    return _string(member, shape, urls)


def _no_long_poll(attributes: dict) -> dict:
    if attributes.get("ReceiveMessageWaitTimeSeconds") not in (None, *WAITS):
        attributes["ReceiveMessageWaitTimeSeconds"] = "0"
    return attributes


# ---------------------------------------------------------------- mutations


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


_WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_ODD_STRINGS),
    # built anew each time: a shared object, mutated into itself, would be a cycle
    st.builds(lambda: [[[]]]),
    st.builds(lambda: {"a": {"b": []}}),
)


@st.composite
def mutated_params(draw, params: dict) -> dict:
    """params with one value replaced by a hostile one (or the whole params, rarely)."""
    paths = [p for p in _paths(params) if p]
    if not paths:
        return params
    path = draw(st.sampled_from(paths))
    replacement = draw(_WRONG)
    node = params
    for step in path[:-1]:
        node = node[step]
    if isinstance(node, list | dict):
        node[path[-1]] = replacement
    return params


def _json_text(params: dict, how: str) -> bytes:
    text = json.dumps(params)  # lone surrogates become \ud800 escapes, NaN and Infinity literals
    if how == "huge-number":
        text = text.replace("1300", "1e400").replace(": 0", ": 1e400", 1)
    elif how == "deep":
        text = text[:-1] + (", " if len(text) > 2 else "") + '"Deep": ' + "[" * DEEP + "]" * DEEP + "}"
    return text.encode("utf-8", "surrogatepass")


def _form_pairs(node, prefix: str, style: str) -> list[tuple[str, str]]:
    """Query keys for a value: lists as .N (or .member.N), maps as .N.Name/.N.Value (or .entry.N.key)."""
    if isinstance(node, dict):
        if prefix and style == "map":
            pairs = []
            for i, (key, value) in enumerate(node.items(), 1):
                pairs.append((f"{prefix}.{i}.Name", str(key)))
                pairs += _form_pairs(value, f"{prefix}.{i}.Value", style)
            return pairs
        return [
            pair
            for key, value in node.items()
            for pair in _form_pairs(value, f"{prefix}.{key}" if prefix else str(key), style)
        ]
    if isinstance(node, list):
        step = ".member." if style == "member" else "."
        return [pair for i, value in enumerate(node, 1) for pair in _form_pairs(value, f"{prefix}{step}{i}", style)]
    if isinstance(node, bool):
        return [(prefix, "true" if node else "false")]
    return [(prefix, "" if node is None else str(node))]


_BAD_INDEXES = [".0.", ".-1.", ".100000000000000000000.", ".x.", "..", ".1.1.1.1.1.1."]
_RAW_BYTES = ["%ED%A0%80", "%FF", "%C3", "%00", "%", "%zz", "%F4%90%80%80"]


def _form_text(pairs: list[tuple[str, str]], draw) -> bytes:
    encoded = [
        urllib.parse.quote(key, safe=".", errors="surrogatepass")
        + "="
        + urllib.parse.quote(value, safe="", errors="surrogatepass")
        for key, value in pairs
    ]
    how = draw(st.sampled_from(["plain", "index", "bytes", "dots", "repeat"]))
    if how == "index" and encoded:
        i = draw(st.integers(0, len(encoded) - 1))
        encoded[i] = encoded[i].replace(".1.", draw(st.sampled_from(_BAD_INDEXES)), 1)
    elif how == "bytes" and encoded:
        i = draw(st.integers(0, len(encoded) - 1))
        encoded[i] += draw(st.sampled_from(_RAW_BYTES))
    elif how == "dots":
        encoded.append("A" + ".A" * DEEP + "=1")
    elif how == "repeat" and encoded:
        encoded += encoded[-1:]
    return "&".join(encoded).encode("ascii")


# ---------------------------------------------------------------- requests


@st.composite
def requests(draw, endpoint: str, kinds: tuple[str, ...] = ("json", "json", "query", "query", "admin")) -> Request:
    urls = fixture_urls(endpoint)
    kind = draw(st.sampled_from(kinds))
    if kind == "admin":
        return draw(admin_requests(urls))
    operation = draw(st.sampled_from(sorted(MODEL.operation_names)))
    shape = MODEL.operation_model(operation).input_shape
    params = draw(value_of(shape, "", urls)) if shape is not None else {}
    for _ in range(draw(st.integers(0, 2))):
        params = draw(mutated_params(params))
    if kind == "json":
        how = draw(st.sampled_from(["plain", "plain", "huge-number", "deep"]))
        body = _json_text(params if isinstance(params, dict) else {}, how)
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"AmazonSQS.{operation}"}
    else:
        style = draw(st.sampled_from(["flat", "member", "map"]))
        pairs = [("Action", operation), ("Version", "2012-11-05"), *_form_pairs(params, "", style)]
        body = _form_text(pairs, draw)
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if draw(st.integers(0, 9)) == 0:  # truncated: the length says what was sent
        body = body[: draw(st.integers(0, max(len(body) - 1, 0)))]
    path = "/" if kind == "json" or draw(st.booleans()) else urllib.parse.urlsplit(urls[STANDARD]).path
    return Request("POST", path, headers, body, kind)


@st.composite
def admin_requests(draw, urls: dict[str, str]) -> Request:
    """The admin routes that change nothing when refused: peek and faults (not reset, not the clock)."""
    route = draw(st.sampled_from(["messages", "faults-put", "faults-delete", "queues"]))
    queue = draw(st.sampled_from([*urls.values(), "\ud800", "%ED%A0%80", "x" * 5000]))
    if route == "faults-put":
        field = draw(
            st.sampled_from(["duplicate_delivery", "lost_delete", "delayed_visibility_seconds", "seed", "bogus"])
        )
        value = draw(st.one_of(_WRONG, st.floats(0, 1)))
        body = json.dumps({"queue": queue, field: value}).encode("utf-8", "surrogatepass")
        if draw(st.booleans()):
            body = b'{"queue": "%s", "seed": %s}' % (queue.encode("utf-8", "surrogatepass"), b"[" * DEEP + b"]" * DEEP)
        return Request("PUT", "/_emulator/faults", {"Content-Type": "application/json"}, body, "admin")
    query = urllib.parse.quote(queue, safe="%", errors="surrogatepass")
    if route == "faults-delete":
        return Request("DELETE", f"/_emulator/faults?queue={query}", {}, b"", "admin")
    if route == "queues":
        return Request("GET", "/_emulator/queues", {}, b"", "admin")
    state = draw(st.sampled_from(["visible", "all", "lost", "\x00"]))
    limit = draw(st.sampled_from(["1", "0", "1e400", "-1", "x"]))
    return Request(
        "GET", f"/_emulator/messages?queue={query}&state={urllib.parse.quote(state)}&limit={limit}", {}, b"", "admin"
    )


# ---------------------------------------------------------------- sending and judging


def send(endpoint: str, request: Request) -> tuple[int, dict, bytes]:
    """(status, headers, body); raises OSError or http.client.HTTPException on a lost connection."""
    parts = urllib.parse.urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        connection.request(request.method, request.path, body=request.body, headers=request.headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def problem(request: Request, status: int, headers: dict, body: bytes) -> str | None:
    """What is wrong with an answer (None: nothing)."""
    if status >= 500:
        return f"answered {status}"
    if status < 400:
        return None
    try:
        if request.kind == "admin":
            return None if "error" in json.loads(body) else "an admin error without 'error'"
        if "json" in headers.get("content-type", ""):
            shape = json.loads(body)["__type"].rsplit("#", 1)[-1]
            code = headers["x-amzn-query-error"].split(";")[0]
            return None if shape in CODES and code in CODES else f"unknown error {shape} / {code}"
        text = body.decode("utf-8")
        if status == 404 and "<UnknownOperationException" in text:
            return None  # AWS's answer to a queue URL without an action (docs/sqs-reference.md section 3)
        code = text.split("<Code>", 1)[1].split("</Code>", 1)[0]
        return None if "<ErrorResponse" in text and code in CODES else f"unknown error code {code}"
    except (ValueError, KeyError, IndexError, UnicodeDecodeError):
        return f"a {status} that is not a well-formed error: {body[:200]!r}"


def snapshot(endpoint: str) -> bytes:
    """Every queue's attributes, tags, counts and totals, and the fault policies, as the admin API shows them."""
    status, _, body = send(endpoint, Request("GET", "/_emulator/queues", {}, b"", "admin"))
    assert status == 200, body
    return body


def ensure_fixtures(endpoint: str) -> None:
    """The queues the requests name: a standard queue with a message, a FIFO queue, a dead-letter queue."""
    for name, attributes in ((DLQ, {}), (STANDARD, {}), (FIFO, {"FifoQueue": "true"})):
        body = json.dumps({"QueueName": name, "Attributes": attributes}).encode()
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue"}
        send(endpoint, Request("POST", "/", headers, body, "json"))
    for name in (STANDARD, FIFO, DLQ):
        body = json.dumps(
            {"QueueUrl": fixture_urls(endpoint)[name], "Attributes": {"ReceiveMessageWaitTimeSeconds": "0"}}
        )
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.SetQueueAttributes"}
        send(endpoint, Request("POST", "/", headers, body.encode(), "json"))


def ready(endpoint: str) -> bytes:
    """The snapshot, once the fixture queues exist and none of them long-polls by default."""
    state = snapshot(endpoint)
    queues = {q["name"]: q for q in json.loads(state)["queues"] if q["account"] == "000000000000"}
    if any(
        queues.get(n, {}).get("attributes", {}).get("ReceiveMessageWaitTimeSeconds") != "0"
        for n in (STANDARD, FIFO, DLQ)
    ):
        ensure_fixtures(endpoint)
        state = snapshot(endpoint)
    return state


def judge(endpoint: str, request: Request) -> str | None:
    """Send one request; what is wrong with how it was answered (None: nothing)."""
    before = ready(endpoint)
    try:
        status, headers, body = send(endpoint, request)
    except TimeoutError:
        return "no answer in time (a hang)"
    except (OSError, http.client.HTTPException) as error:
        if len(request.body or b"") > MAX_BODY_BYTES:
            # Refused (413) before it was all sent, and the connection closed, as RFC 9112 allows:
            # a client still sending then sees a broken pipe instead of the answer.
            return None if snapshot(endpoint) == before else "refused an oversized body but changed the state"
        return f"lost connection: {error!r}"
    wrong = problem(request, status, headers, body)
    if wrong is None and status >= 400 and snapshot(endpoint) != before:
        wrong = f"refused with {status} but changed the state"
    return wrong
