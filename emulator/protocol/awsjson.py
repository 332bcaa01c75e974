"""The JSON 1.0 protocol: ``X-Amz-Target: AmazonSQS.<Op>`` with a JSON body, JSON out.

Current boto3 speaks this. Member names are the model's; the only conversions
are type checks and base64 for blobs.
"""

import json

from werkzeug.wrappers import Request

from emulator.errors import SqsError

from .answers import Answer, json_answer
from .model import (
    check_required,
    invalid_value,
    operation_model,
    service_model,
    unparsable,
)
from .shapes import Codec, blob_bytes, walk

CONTENT_TYPE = "application/x-amz-json-1.0"


def target_prefix() -> str:
    return service_model().metadata["targetPrefix"] + "."


def parse(request: Request) -> tuple[str, dict]:
    target = request.environ.get("HTTP_X_AMZ_TARGET", "")  # read directly: a header lookup costs more
    prefix = target_prefix()
    name = target[len(prefix) :] if target.startswith(prefix) else target
    op = operation_model(name)
    raw = request.get_data(cache=True)
    try:
        # An empty body is an empty input: some clients send nothing for ListQueues.
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise SqsError("InvalidParameterValue", f"The request body is not valid JSON: {exc}") from None
    except RecursionError as exc:  # nested deeper than the decoder goes
        raise unparsable(exc) from None
    if not isinstance(body, dict):
        raise SqsError("InvalidParameterValue", "The request body must be a JSON object.")
    shape = op.input_shape
    params = walk(_READER, shape, body) if shape is not None else {}
    check_required(shape, params)
    return op.name, params


class _Reader(Codec):
    """JSON values to params: type checks, base64 blobs; null is absent, unknown keys are ignored."""

    def members(self, shape, node, path):
        _expect(isinstance(node, dict), node, path, "Must be an object.")
        prefix = f"{path}." if path else ""
        return [
            (name, member, child, prefix + name, None)
            for name, member in shape.members.items()
            if (child := node.get(name)) is not None
        ]

    def elements(self, node, path, names):
        _expect(isinstance(node, list), node, path, "Must be a list.")
        return [(x, f"{path}.{i}") for i, x in enumerate(node, 1) if x is not None]

    def entries(self, node, path, names):
        _expect(isinstance(node, dict), node, path, "Must be an object.")
        return [(k, v, f"{path}.{k}") for k, v in node.items() if v is not None]

    def leaf(self, shape, node, path):
        kind = shape.type_name
        if kind in ("integer", "long"):
            # bool is an int subclass in Python, but not in JSON.
            _expect(isinstance(node, int) and not isinstance(node, bool), node, path, "Must be an integer.")
            return node
        if kind == "boolean":
            _expect(isinstance(node, bool), node, path, "Must be a boolean.")
            return node
        if kind in ("float", "double"):
            _expect(isinstance(node, (int, float)) and not isinstance(node, bool), node, path, "Must be a number.")
            return float(node)
        _expect(isinstance(node, str), node, path, "Must be a string.")
        return blob_bytes(node, path) if kind == "blob" else node


def _expect(ok: bool, value, path: str, reason: str) -> None:
    if not ok:
        try:
            shown = json.dumps(value)
        except RecursionError as exc:  # a value nested as deep as the decoder allows
            raise unparsable(exc) from None
        raise invalid_value(shown, path, reason)


class _Writer(Codec):
    """Outputs to JSON values: absent members and null elements left out, blobs in base64."""

    copies_scalars = True

    # Nulls are dropped on the way in, so the walk builds each list and map once.
    def elements(self, node, path, names):
        return [(x, path) for x in node if x is not None]

    def entries(self, node, path, names):
        return [(k, v, path) for k, v in node.items() if v is not None]


_READER = _Reader()
_WRITER = _Writer()


# ---------------------------------------------------------------- responses


def serialize_result(operation: str, output: dict, request_id: str) -> Answer:
    shape = operation_model(operation).output_shape
    body = walk(_WRITER, shape, output or {}) if shape is not None else {}
    return json_answer(body, 200, CONTENT_TYPE, request_id)


def serialize_error(error: SqsError, request_id: str) -> Answer:
    fault = "Sender" if error.spec.sender_fault else "Receiver"
    body = {"__type": f"com.amazonaws.sqs#{error.spec.shape}", "message": error.message}
    answer = json_answer(body, error.spec.status, CONTENT_TYPE, request_id)
    # botocore reads Error.Code from this header (the legacy query code).
    answer.headers.append(("x-amzn-query-error", f"{error.spec.code};{fault}"))
    return answer
