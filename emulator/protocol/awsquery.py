"""The query protocol: form-encoded ``Action=..`` requests in, XML out.

Requests are parsed by walking the operation's input shape over a tree of the
dotted keys (``MessageAttribute.1.Value.DataType``), the reverse of botocore's
QuerySerializer. Responses are built as dicts from the output shape and
rendered by xml_writer (xmltodict's tree form), in the layout botocore's QueryParser reads.
"""

import re
import sys
from urllib.parse import unquote

from botocore.model import Shape

from emulator.errors import SqsError

from . import answers, xml_writer
from . import query_names as qn
from .model import (
    XML_NAMESPACE,
    check_required,
    invalid_value,
    operation_model,
    unparsable,
)
from .request import HttpRequest
from .shapes import Codec, blob_bytes, blob_text, walk

# The value of a tree node; the other keys of a node are the next dotted parts.
_VALUE = None
# Keys that are not operation parameters: the envelope and SigV2/SigV4 query auth.
_ENVELOPE = {"Action", "Version", "AWSAccessKeyId", "Timestamp", "Expires"}
_ENVELOPE_PREFIXES = ("X-Amz-", "Signature")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NOT_FOUND_JSON = "The specified queue does not exist."
_NOT_FOUND_QUERY = "The specified queue does not exist for this wsdl version."


# ---------------------------------------------------------------- requests


def _form(request: HttpRequest) -> dict[str, str]:
    """Query-string and body parameters; the body wins, the first of repeated keys wins.
    The body is read whatever its Content-Type: some hand-written clients omit it."""
    params: dict[str, str] = {}
    sources = [request.query_string.encode("latin-1", "replace")]
    if request.method == "POST":
        sources.append(request.body)
    for raw in sources:
        if not raw:
            continue
        try:
            pairs = form_pairs(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise SqsError("MalformedQueryString", "The query string is not valid UTF-8.") from None
        seen: set[str] = set()
        for key, value in pairs:
            if key not in seen:
                seen.add(key)
                params[key] = value
    return params


def form_pairs(text: str) -> list[tuple[str, str]]:
    """What ``parse_qsl(text, keep_blank_values=True, errors="strict")`` answers, with its
    decoding done only for the pieces that hold a "+" or a "%": a form's names and most of
    its values hold neither, and a batch's form is read in half the time."""
    pairs = []
    for piece in text.split("&"):
        if piece:
            name, _, value = piece.partition("=")
            if "%" in piece or "+" in piece:
                name = unquote(name.replace("+", " "), errors="strict")
                value = unquote(value.replace("+", " "), errors="strict")
            pairs.append((name, value))
    return pairs


def _tree(flat: dict[str, str]) -> dict:
    root: dict = {}
    for key, value in flat.items():
        if key in _ENVELOPE or key.startswith(_ENVELOPE_PREFIXES):
            continue
        node = root
        for part in key.split("."):
            node = node.setdefault(part, {})
        node[_VALUE] = value
    return root


# Actions without a QueueUrl that a queue's URL still answers: GetQueueUrl, for the queue its
# QueueName names, whichever queue the URL is (issue 18, AWS-recorded).
_ANY_ENDPOINT = frozenset(("GetQueueUrl",))


def parse(request: HttpRequest) -> tuple[str, dict]:
    flat = _form(request)
    action = flat.get("Action")
    # A path (/000000000000/q) is a queue URL: the endpoint of that queue's actions only.
    queue_endpoint = request.path not in ("", "/")
    if action is None:
        if queue_endpoint:
            raise SqsError("UnknownOperationException", "")
        raise SqsError("MissingParameter", "The request must contain the parameter Action.")
    op = operation_model(action)
    shape = op.input_shape
    takes_url = shape is not None and "QueueUrl" in shape.members
    if queue_endpoint and not takes_url and op.name not in _ANY_ENDPOINT:
        raise SqsError("InvalidAction", f"The action {op.name} is not valid for this endpoint.")
    params = walk(_READER, shape, _tree(flat)) if shape is not None else {}
    # The queue URL path names the queue when the body does not.
    if queue_endpoint and takes_url and params.get("QueueUrl") is None:
        params["QueueUrl"] = request.url_root + request.path
    check_required(shape, params)
    return op.name, params


class _Reader(Codec):
    """The tree of dotted keys to params, under the query names of query_names.

    A member list or map is found on its structure's node by ``members`` (in
    the model's form or the forms other clients send) and handed on as its
    node of indexes; a list or map inside another is in botocore's default
    form (``.member.N``, ``.entry.N.key``).
    """

    def members(self, shape, node, path):
        # A generator: each member is looked for only after the one before it
        # is read, so the first bad member is the one reported.
        prefix = f"{path}." if path else ""
        for m in qn.members(shape):
            if m.kind == "list":
                child, child_path = _find_list(m, node, prefix)
            elif m.kind == "map":
                child, child_path = _find_map(m, node, prefix)
            else:
                child, child_path = node.get(m.own), None  # the path, only for a member that is there
            if child is not None:
                yield m.name, m.shape, child, child_path or prefix + m.own, m.wire

    def elements(self, node, path, names):
        if names is None:  # a list in a list: botocore's default form
            node, path = node.get("member", {}), f"{path}.member"
        return [(node[i], f"{path}.{i}") for i in _indexes(node)]

    def entries(self, node, path, names):
        # A generator, so entries are checked in order with their values.
        if names is None:  # a map in a list or map: botocore's default form
            node, path = node.get("entry", {}), f"{path}.entry"
        w = names or qn.Wire()
        key_name, value_name = w.key or "key", w.value or "value"
        for i in _indexes(node):
            entry = node[i]
            prefix = f"{path}.{i}."
            key_node = entry.get(key_name)
            if key_node is None or key_node.get(_VALUE) is None:
                raise SqsError("MissingParameter", f"The request must contain the parameter {prefix}{key_name}.")
            value_node = entry.get(value_name)
            if value_node is None:
                raise SqsError("MissingParameter", f"The request must contain the parameter {prefix}{value_name}.")
            yield key_node[_VALUE], value_node, prefix + value_name

    def leaf(self, shape, node, path):
        text = node.get(_VALUE)
        return None if text is None else scalar(shape, text, path)


_READER = _Reader()


def _find_list(m: qn.Member, node: dict, prefix: str) -> tuple[dict | None, str]:
    """A member list's node of indexes and its path, tried in the model's form first,
    then the forms other clients send: AttributeName.1, AttributeNames.member.1, AttributeNames.1."""
    w, own = m.wire, m.own
    candidates: list[tuple[str, str | None]] = []  # (key, the level under it that holds the indexes, if any)
    if w.flattened:
        candidates.append((m.element, None))
    else:
        candidates.append((own, w.list_member or "member"))
    candidates += [(own, "member"), (own, None)]
    if w.list_member:
        candidates.append((w.list_member, None))
    for key, inner in candidates:
        items = node.get(key)
        if items is not None and inner is not None:
            items = items.get(inner)
        if items is not None and _indexes(items):
            return items, f"{prefix}{key}" + (f".{inner}" if inner else "")
    # botocore sends an empty list as a bare "AttributeNames=".
    bare = node.get(own)
    if bare is not None and bare.get(_VALUE) == "":
        return {}, prefix + own
    return None, ""


def _find_map(m: qn.Member, node: dict, prefix: str) -> tuple[dict | None, str]:
    """A member map's node of indexes and its path: the model's form first, then the
    member name (Tags.1.Key, Attributes.entry.1.key)."""
    own, name = m.own, m.name
    if own not in node and name not in node:  # absent, the usual case: no forms to try
        return None, ""
    for key, flat in [(own, m.wire.flattened), (name, True), (name, False)]:
        entries = node.get(key)
        if entries is not None and not flat:
            key, entries = f"{key}.entry", entries.get("entry")
        if entries is not None and _indexes(entries):
            return entries, prefix + key
    return None, ""


def _indexes(node: dict) -> list[str]:
    try:
        return sorted((k for k in node if k is not _VALUE and k.isdigit()), key=int)
    except ValueError as exc:  # a digit int() refuses, such as "²"
        raise unparsable(exc) from None


def _integer(text: str, path: str) -> int:
    """An integer member's text: digits, with a sign; leading zeros never count, and more
    significant digits than int() reads (sys.get_int_max_str_digits) are past every range."""
    if not _INTEGER.fullmatch(text):
        raise invalid_value(text, path, "Must be an integer.")
    sign, digits = ("-" if text[0] == "-" else ""), text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > (sys.get_int_max_str_digits() or len(digits)):
        raise invalid_value(text, path, "Must be an integer.")
    return int(sign + digits)


def scalar(shape: Shape, text: str, path: str):
    kind = shape.type_name
    if kind in ("integer", "long"):
        return _integer(text, path)
    if kind == "boolean":
        lowered = text.lower()
        if lowered not in ("true", "false"):
            raise invalid_value(text, path, "Must be true or false.")
        return lowered == "true"
    if kind == "blob":
        return blob_bytes(text, path)
    if kind in ("float", "double"):
        try:
            return float(text)
        except ValueError:
            raise invalid_value(text, path, "Must be a number.") from None
    return text


# ---------------------------------------------------------------- responses


def _xml_answer(tree: dict, status: int, request_id: str) -> answers.Answer:
    return answers.answer(xml_writer.document(tree).encode("utf-8"), status, "text/xml", request_id)


def serialize_result(operation: str, output: dict, request_id: str) -> answers.Answer:
    op = operation_model(operation)
    body: dict = {"@xmlns": XML_NAMESPACE}
    if op.output_shape is not None:
        # The old model wraps every output in <OperationResult>.
        body[f"{operation}Result"] = walk(_WRITER, op.output_shape, output or {})
    body["ResponseMetadata"] = {"RequestId": request_id}
    return _xml_answer({f"{operation}Response": body}, 200, request_id)


def error_fields(error: SqsError) -> dict:
    """Type, Code and Message of a query-protocol error, in AWS's wording for this protocol."""
    message = error.message
    if error.name == "QueueDoesNotExist" and message == _NOT_FOUND_JSON:
        message = _NOT_FOUND_QUERY  # what AWS says on this protocol
    return {"Type": "Sender" if error.spec.sender_fault else "Receiver", "Code": error.spec.code, "Message": message}


def serialize_error(error: SqsError, request_id: str) -> answers.Answer:
    if error.name == "UnknownOperationException":
        # AWS answers a queue URL with no action by this bare element.
        return _xml_answer({"UnknownOperationException": None}, error.spec.status, request_id)
    document = {
        "ErrorResponse": {
            "@xmlns": XML_NAMESPACE,
            "Error": {**error_fields(error), "Detail": None},
            "RequestId": request_id,
        }
    }
    return _xml_answer(document, error.spec.status, request_id)


class _Writer(Codec):
    """Outputs to xml_writer's tree (xmltodict's form), under the query names of query_names.

    A flattened list repeats its element in the structure (``<Message>..</Message>``);
    otherwise it is wrapped (``<QueueUrls><member>..``), and so are maps in
    ``<entry>``. Leaves are text.
    """

    def members(self, shape, node, path):
        return [
            (element, member, child, path, w)
            for name, member, _, w, _, element in qn.members(shape)
            if (child := node.get(name)) is not None
        ]

    def as_list(self, items, names):
        w = names or qn.Wire()
        items = [x for x in items if x is not None]
        return items if w.flattened else {w.list_member or "member": items}

    def as_map(self, entries, names):
        w = names or qn.Wire()
        k, v = w.key or "key", w.value or "value"
        pairs = [{k: key, v: value} for key, value in entries.items() if value is not None]
        return pairs if w.flattened else {"entry": pairs}

    def leaf(self, shape, node, path):
        kind = shape.type_name
        if kind == "boolean":
            return "true" if node else "false"
        if kind == "blob":
            return blob_text(node)
        return str(node)


_WRITER = _Writer()
