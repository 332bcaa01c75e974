"""How a scenario runs against one server, is normalized, and is judged.

A scenario is data: queues to create up front, then a list of steps (an SQS
operation and its parameters, with ``${...}`` placeholders). The runner drives
the same steps through a boto3 client (whatever protocol the installed botocore
speaks) against the emulator and against moto, turns each answer into an
*outcome* (HTTP status plus the body, or the error's Code / QueryErrorCode /
Type), normalizes what legitimately differs between two servers (ids, receipt
handles, timestamps, hosts, the per-run queue-name token) and compares the two
outcomes path by path.

Every difference must be explained by a named deviation (deviations.py) that
the scenario allows for that step; a deviation carries the AWS document that
shows moto is the one departing from AWS, and a check that the emulator does
what that document says. Unexplained differences are DISAGREE; an emulator
answer that contradicts a documented expectation is an EMULATOR BUG.
"""

from __future__ import annotations

import fnmatch
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from compat_tests.helpers import sqs_client

ACCOUNT = "000000000000"
REGION = "us-east-1"


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()


# ------------------------------------------------------------------ scenario data


@dataclass
class Step:
    op: str  # SQS operation name, e.g. "SendMessage" ("Sleep" pauses)
    params: dict = field(default_factory=dict)
    label: str = ""
    save: dict = field(default_factory=dict)  # var -> dotted path into the raw response
    aws: dict = field(default_factory=dict)  # flattened path -> value AWS documents (checked on the emulator)
    region: str = REGION  # the region the step's client signs for


def step(op: str, label: str = "", *, save=None, aws=None, region=REGION, **params) -> Step:
    return Step(op=op, params=params, label=label, save=save or {}, aws=aws or {}, region=region)


@dataclass(frozen=True)
class Allow:
    """Scenario-side use of a named deviation, optionally limited to some step labels."""

    name: str
    steps: tuple = ()


@dataclass
class Scenario:
    id: str
    steps: list
    queues: dict = field(default_factory=dict)  # alias -> attributes (placeholders allowed), created in order
    allow: list = field(default_factory=list)  # [Allow] or deviation names
    doc: str = ""
    protocols: tuple = ("json", "query")
    needs: tuple = ()  # emulator features the scenario needs, e.g. "fifo"

    def allows(self) -> list:
        return [a if isinstance(a, Allow) else Allow(a) for a in self.allow]


# ------------------------------------------------------------------ running


def make_client(endpoint: str, region: str = REGION):
    return sqs_client(endpoint, region, validate=False)


def _snake(op: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


class Context:
    def __init__(self, endpoint: str, token: str):
        self.endpoint = endpoint
        self.token = token
        self.prefix = f"or{token}"
        self.vars: dict[str, Any] = {"prefix": self.prefix}

    def name(self, alias: str) -> str:
        return f"{self.prefix}-{alias}"

    def lookup(self, key: str) -> Any:
        if key in self.vars:
            return self.vars[key]
        alias, _, attr = key.rpartition(".")
        if alias and attr in ("name", "url", "arn"):
            name = self.name(alias)
            if attr == "name":
                return name
            if attr == "url":
                return f"{self.endpoint}/{ACCOUNT}/{name}"
            return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"
        raise KeyError(f"unknown placeholder ${{{key}}}")

    def resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            whole = _PLACEHOLDER.fullmatch(value)
            if whole:
                return self.lookup(whole.group(1))
            return _PLACEHOLDER.sub(lambda m: str(self.lookup(m.group(1))), value)
        if isinstance(value, dict):
            return {self.resolve(k): self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if callable(value):
            return value(self)
        return value


def dig(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)]
        else:
            obj = obj[part]
    return obj


@dataclass
class StepResult:
    label: str
    op: str
    outcome: dict  # normalized: {"status": int, "body": {...}} or {"status", "error": {...}}
    message: str | None  # the error message, kept for the report (not compared)


@dataclass
class Run:
    target: str
    results: list
    setup_error: str | None = None


# Parameters renamed between botocore generations (old name in the old model).
RENAMED = {"MessageSystemAttributeNames": "AttributeNames"}


def adapt(client, op: str, params: dict) -> dict:
    """Spell the parameters the way the installed botocore's model does."""
    members = client.meta.service_model.operation_model(op).input_shape.members
    return {(RENAMED.get(k, k) if k not in members else k): v for k, v in params.items()}


def call(client, op: str, params: dict) -> tuple[dict, str | None, dict | None]:
    """-> (outcome before normalization, error message, raw response or None)."""
    params = adapt(client, op, params)
    try:
        resp = getattr(client, _snake(op))(**params)
    except ClientError as exc:
        r = exc.response
        err = r.get("Error", {})
        kept = {k: err[k] for k in ("Code", "QueryErrorCode", "Type") if k in err}
        return {"status": r.get("ResponseMetadata", {}).get("HTTPStatusCode"), "error": kept}, err.get("Message"), None
    except (BotoCoreError, Exception) as exc:
        return {"status": None, "exception": type(exc).__name__}, str(exc)[:300], None
    resp = dict(resp)
    meta = resp.pop("ResponseMetadata", {})
    return {"status": meta.get("HTTPStatusCode"), "body": resp}, None, resp


def run_scenario(sc: Scenario, endpoint: str, target: str) -> Run:
    client = make_client(endpoint)
    clients = {REGION: client}
    ctx = Context(endpoint, uuid.uuid4().hex[:8])
    norm = Normalizer(ctx)
    results: list[StepResult] = []
    try:
        for alias, attrs in sc.queues.items():
            kwargs = {"QueueName": ctx.name(alias)}
            if attrs:
                kwargs["Attributes"] = ctx.resolve(attrs)
            try:
                url = client.create_queue(**kwargs)["QueueUrl"]
                arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            except ClientError as exc:
                return Run(target, results, f"setup CreateQueue {alias}: {exc}")
            ctx.vars[f"{alias}.url"] = url
            ctx.vars[f"{alias}.arn"] = arn
        for i, st in enumerate(sc.steps):
            label = st.label or f"{i}:{st.op}"
            if st.op == "Sleep":
                time.sleep(float(st.params.get("seconds", 0)))
                continue
            params = ctx.resolve(st.params)
            if st.region not in clients:
                clients[st.region] = make_client(endpoint, st.region)
            outcome, message, raw = call(clients[st.region], st.op, params)
            for var, path in st.save.items():
                try:
                    ctx.vars[var] = dig(raw, path) if raw is not None else None
                except (KeyError, IndexError, TypeError):
                    ctx.vars[var] = None
            results.append(StepResult(label, st.op, norm.outcome(outcome), norm.text(message)))
        return Run(target, results)
    finally:
        for each in clients.values():
            _cleanup(each, ctx.prefix)


def _cleanup(client, prefix: str) -> None:
    try:
        urls = client.list_queues(QueueNamePrefix=prefix).get("QueueUrls", [])
    except Exception:
        return
    for url in urls:
        try:
            client.delete_queue(QueueUrl=url)
        except Exception:
            pass


# ------------------------------------------------------------------ normalization

TIMESTAMP_KEYS = {
    "SentTimestamp",
    "ApproximateFirstReceiveTimestamp",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "StartedTimestamp",
}
ID_KINDS = {"MessageId": "msg", "ReceiptHandle": "rh", "TaskHandle": "task"}
OPAQUE_KEYS = {"SequenceNumber": "seq", "SenderId": "sender", "NextToken": "token"}
SORTED_LISTS = {"QueueUrls", "queueUrls"}
BY_ID_LISTS = {"Successful", "Failed"}
_URL_HOST = re.compile(r"https?://[^/\s\"']+")


class Normalizer:
    """Per run: maps ids to <kind#n> in first-seen order, hides hosts and the queue-name token."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.ids: dict[str, dict] = {}

    def _id(self, kind: str, value: Any) -> str:
        table = self.ids.setdefault(kind, {})
        if value not in table:
            table[value] = f"<{kind}#{len(table) + 1}>"
        return table[value]

    def text(self, s: str | None) -> str | None:
        if s is None:
            return None
        s = _URL_HOST.sub("<host>", s)
        return s.replace(self.ctx.token, "<sfx>")

    def outcome(self, outcome: dict) -> dict:
        return self.value(None, outcome)

    def value(self, key: str | None, v: Any) -> Any:
        if isinstance(v, dict):
            out = {k: self.value(k, x) for k, x in v.items()}
            return out
        if isinstance(v, list):
            items = [self.value(None, x) for x in v]
            if key in SORTED_LISTS:
                items = sorted(items, key=repr)
            elif key in BY_ID_LISTS:
                items = sorted(items, key=lambda e: repr(e.get("Id")) if isinstance(e, dict) else repr(e))
            return items
        if key in ID_KINDS and v is not None:
            return self._id(ID_KINDS[key], v)
        if key in OPAQUE_KEYS and v is not None:
            return f"<{OPAQUE_KEYS[key]}:{type(v).__name__}>"
        if key in TIMESTAMP_KEYS and v is not None:
            try:
                n = float(v)
            except (TypeError, ValueError):
                return f"<timestamp?:{type(v).__name__}:{v}>"
            unit = "ms" if n > 1e11 else "s"
            return f"<epoch-{unit}:{type(v).__name__}>"
        if key == "Policy" and isinstance(v, str):
            try:
                return self.value(None, json.loads(v))
            except ValueError:
                return self.text(v)
        if isinstance(v, str):
            return self.text(v)
        return v


# ------------------------------------------------------------------ comparison


def flatten(obj: Any, prefix: str = "") -> dict:
    out: dict[str, Any] = {}
    if isinstance(obj, dict) and obj:
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and obj:
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}.{i}" if prefix else str(i)))
    else:
        out[prefix] = obj
    return out


def lookup_flat(flat: dict, path: str) -> Any:
    """A leaf, or a sub-tree marker: present if any leaf is under the path."""
    if path in flat:
        return flat[path]
    under = [p for p in flat if p.startswith(path + ".")]
    return "<present>" if under else ABSENT


@dataclass
class StepVerdict:
    label: str
    op: str
    diffs: list  # [(path, emulator value, moto value)]
    unexplained: list  # subset of diffs
    deviations: list  # names that explained something here
    bugs: list  # emulator answers contradicting AWS's documents
    emu_message: str | None = None
    moto_message: str | None = None


@dataclass
class Verdict:
    scenario: str
    protocol: str
    status: str  # agree | deviation | disagree | bug | error
    steps: list
    deviations: list
    note: str = ""

    @property
    def failed(self) -> bool:
        return self.status in ("disagree", "bug", "error")


def check_expectations(flat: dict, expected: dict, protocol: str) -> list:
    """expected: path -> value (ABSENT, a value, or a callable(value) -> bool)."""
    problems = []
    for path, want in expected.items():
        if protocol == "query" and path.endswith("QueryErrorCode"):
            continue  # botocore keeps the shape name only when it parses JSON errors
        got = lookup_flat(flat, path)
        ok = want(got) if callable(want) else got == want
        if not ok:
            shown = getattr(want, "__doc__", None) or repr(want) if callable(want) else repr(want)
            problems.append(f"{path}: AWS documents {shown}, emulator gave {got!r}")
    return problems


# Texts are not compared (AWS's wording is checked by compat_tests/, not here).
IGNORED_PATHS = ("body.Failed.*.Message",)


def judge(sc: Scenario, emu: Run, moto: Run, protocol: str, catalogue: dict, global_allows=()) -> Verdict:
    if emu.setup_error and not moto.setup_error:
        # the set-up only creates queues AWS documents as valid
        return Verdict(sc.id, protocol, "bug", [], [], note=f"EMULATOR BUG in set-up: {emu.setup_error}")
    if emu.setup_error or moto.setup_error:
        return Verdict(sc.id, protocol, "error", [], [], note=f"emulator: {emu.setup_error} / moto: {moto.setup_error}")
    allows = sc.allows() + [Allow(n) for n in global_allows]
    for a in allows:
        if a.name not in catalogue:
            return Verdict(sc.id, protocol, "error", [], [], note=f"unknown deviation {a.name!r}")
    steps_by_label = {(st.label or f"{i}:{st.op}"): st for i, st in enumerate(sc.steps) if st.op != "Sleep"}
    verdicts, used = [], []
    for er, mr in zip(emu.results, moto.results, strict=False):
        fe, fm = flatten(er.outcome), flatten(mr.outcome)
        diffs = []
        for path in sorted(set(fe) | set(fm)):
            if any(fnmatch.fnmatchcase(path, g) for g in IGNORED_PATHS):
                continue
            a, b = fe.get(path, ABSENT), fm.get(path, ABSENT)
            if a != b or type(a) is not type(b):
                diffs.append((path, a, b))
        unexplained, names, bugs = [], [], []
        for path, a, b in diffs:
            explained = None
            for al in allows:
                if al.steps and er.label not in al.steps:
                    continue
                dev = catalogue[al.name]
                if any(fnmatch.fnmatchcase(path, g) for g in dev.paths):
                    explained = dev
                    break
            if explained is None:
                unexplained.append((path, a, b))
            elif explained.name not in names:
                names.append(explained.name)
        for name in names:
            dev = catalogue[name]
            if dev.ops and er.op not in dev.ops:
                continue
            if callable(dev.emulator):
                bugs += [f"[{name}] {p}" for p in dev.emulator(fe, protocol)]
            else:
                bugs += [f"[{name}] {p}" for p in check_expectations(fe, dev.emulator, protocol)]
        st = steps_by_label.get(er.label)
        if st is not None and st.aws:
            bugs += check_expectations(fe, st.aws, protocol)
        for n in names:
            if n not in used:
                used.append(n)
        verdicts.append(StepVerdict(er.label, er.op, diffs, unexplained, names, bugs, er.message, mr.message))
    if len(emu.results) != len(moto.results):
        return Verdict(sc.id, protocol, "error", verdicts, used, note="step counts differ")
    if any(v.bugs for v in verdicts):
        status = "bug"
    elif any(v.unexplained for v in verdicts):
        status = "disagree"
    elif used:
        status = "deviation"
    else:
        status = "agree"
    return Verdict(sc.id, protocol, status, verdicts, used)


def explain(v: Verdict) -> str:
    """A readable account of a failing verdict, for the assertion message."""
    lines = [f"scenario {v.scenario} [{v.protocol}]: {v.status.upper()} {v.note}".rstrip()]
    for s in v.steps:
        if not (s.unexplained or s.bugs):
            continue
        lines.append(f"  step {s.label} ({s.op}):")
        for path, a, b in s.unexplained:
            lines.append(f"    DISAGREE {path}: emulator={a!r} moto={b!r}")
        for bug in s.bugs:
            lines.append(f"    EMULATOR BUG {bug}")
        if s.emu_message or s.moto_message:
            lines.append(f"    messages: emulator={s.emu_message!r} moto={s.moto_message!r}")
    return "\n".join(lines)


Checker = Callable[[Any], bool]
