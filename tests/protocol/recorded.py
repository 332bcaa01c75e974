"""The recorded wire fixtures (fixtures/wire/<protocol>/<scenario>.json): their
files, their placeholders, and their replay on a fresh app.

A fixture is a transcript: ``setup`` exchanges, then the ``request`` and
``response`` the scenario is about. Ids and times are replaced by
placeholders (``<MessageId:1>``, ``<ReceiptHandle:2>``, ``<RequestId:3>``,
``<EpochMillis:T0+3>``) by ``Normalizer``. scripts/record_fixtures.py writes
the transcripts with it, test_wire_fixtures.py replays them with it:
normalization lives here and nowhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote_plus

from werkzeug.test import Client

from emulator.server.app import EmulatorApp
from emulator.server.build import Options, build

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "wire"
PROTOCOLS = ("json", "query")

T0 = 1_700_000_000  # 2023-11-14T22:13:20Z: the ManualClock's start
ACCOUNT = "000000000000"
REGION = "us-east-1"
BASE_URL = "http://localhost:9324"
# Response headers worth pinning (stored with the casing the server used).
RESPONSE_HEADERS = ("content-type", "x-amzn-requestid", "x-amzn-query-error")


def new_app() -> EmulatorApp:
    return build(Options(account_id=ACCOUNT, region=REGION, clock="manual", clock_start=float(T0)), listen=False).app


# =================================================================== normalization


_PLACEHOLDER = re.compile(r"<(RequestId|MessageId|ReceiptHandle|Uuid):(\d+)>")
# Where the emulator puts fresh ids, in XML and in JSON, found in order of appearance.
_NAMED_ID = re.compile(
    r"<(?P<xml>RequestId|MessageId|ReceiptHandle)>(?P<xv>[^<]+)</(?P=xml)>"
    r'|"(?P<json>MessageId|ReceiptHandle)"\s*:\s*"(?P<jv>[^"]+)"'
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_EPOCH = re.compile(r"\b1\d{9}(?:\d{3})?\b")
_EPOCH_WINDOW = 30 * 86400  # timestamps within 30 days after T0 are the clock's


class Normalizer:
    """Replaces fresh ids and clock times with stable placeholders, for one transcript.

    Ids are learnt from responses (``learn``) in order of appearance, so the
    same value always gets the same placeholder and the numbering is the same
    for the recording and for a replay. ``denormalize`` turns the placeholders
    of a stored request back into the live values of the current replay.
    """

    def __init__(self, t0: int = T0):
        self.t0 = t0
        self.placeholder: dict[str, str] = {}  # live value -> placeholder
        self.value: dict[str, str] = {}  # placeholder -> live value
        self._counts: dict[str, int] = {}

    def _add(self, kind: str, value: str) -> None:
        if value in self.placeholder or _PLACEHOLDER.fullmatch(value):
            return
        self._counts[kind] = self._counts.get(kind, 0) + 1
        name = f"<{kind}:{self._counts[kind]}>"
        self.placeholder[value] = name
        self.value[name] = value

    def learn(self, response: dict) -> None:
        """Learn the ids of a raw (not yet normalized) response."""
        for name, value in response["headers"].items():
            if name.lower() == "x-amzn-requestid":
                self._add("RequestId", value)
        body = response["body"]
        for match in _NAMED_ID.finditer(body):
            self._add(match.group("xml") or match.group("json"), match.group("xv") or match.group("jv"))
        for match in _UUID.finditer(body):
            self._add("Uuid", match.group())

    def text(self, text: str) -> str:
        # Longest first, so no value is cut by a shorter one inside it.
        for value in sorted(self.placeholder, key=len, reverse=True):
            name = self.placeholder[value]
            text = text.replace(value, name)
            encoded = quote_plus(value)
            if encoded != value:  # as it appears in a form-encoded query request
                text = text.replace(encoded, name)
        return _EPOCH.sub(self._epoch, text)

    def _epoch(self, match: re.Match) -> str:
        digits = match.group()
        if len(digits) == 10 and 0 <= int(digits) - self.t0 <= _EPOCH_WINDOW:
            return f"<EpochSeconds:T0+{int(digits) - self.t0}>"
        if len(digits) == 13 and 0 <= int(digits) - self.t0 * 1000 <= _EPOCH_WINDOW * 1000:
            offset = int(digits) - self.t0 * 1000
            return f"<EpochMillis:T0+{offset // 1000}.{offset % 1000:03d}>"
        return digits

    def message(self, message: dict) -> dict:
        """A normalized copy of a request or response dict."""
        out = dict(message)
        out["headers"] = {name: self.text(value) for name, value in message["headers"].items()}
        out["body"] = self.text(message["body"])
        return out

    def denormalize(self, request: dict) -> dict:
        """A stored request with its id placeholders replaced by this replay's values."""
        form = any(
            n.lower() == "content-type" and v.startswith("application/x-www-form-urlencoded")
            for n, v in request["headers"].items()
        )

        def live(match: re.Match, encode: Callable[[str], str]) -> str:
            try:
                return encode(self.value[match.group()])
            except KeyError:
                raise KeyError(f"{match.group()} was not seen in an earlier response of this replay") from None

        out = dict(request)
        out["headers"] = {n: _PLACEHOLDER.sub(lambda m: live(m, str), v) for n, v in request["headers"].items()}
        body_encode = quote_plus if form else (lambda v: json.dumps(v)[1:-1])
        out["body"] = _PLACEHOLDER.sub(lambda m: live(m, body_encode), request["body"])
        return out


# =================================================================== replay


def send(client: Client, request: dict) -> dict:
    """Send a raw request dict through the app; return the raw response dict."""
    response = client.open(
        path=request["path"],
        base_url=BASE_URL,
        method=request["method"],
        query_string=request.get("query") or None,
        headers=list(request["headers"].items()),
        data=request["body"].encode("utf-8"),
    )
    return {
        "status": response.status,
        "headers": {n: v for n, v in response.headers.items() if n.lower() in RESPONSE_HEADERS},
        "body": response.get_data(as_text=True),
    }


def replay(transcript: dict) -> Iterator[tuple[str, dict, dict]]:
    """Replay a stored fixture on a fresh app; yield (label, stored response, live normalized response)."""
    client = Client(new_app())
    norm = Normalizer()
    exchanges = [*transcript["setup"], {"request": transcript["request"], "response": transcript["response"]}]
    for i, exchange in enumerate(exchanges):
        live = send(client, norm.denormalize(exchange["request"]))
        norm.learn(live)
        label = "request" if i == len(exchanges) - 1 else f"setup[{i}]"
        yield label, exchange["response"], norm.message(live)


def dump(transcript: dict) -> str:
    return json.dumps(transcript, indent=2, ensure_ascii=False) + "\n"


def fixture_files() -> list[Path]:
    return sorted(p for proto in PROTOCOLS for p in (FIXTURES / proto).glob("*.json"))
