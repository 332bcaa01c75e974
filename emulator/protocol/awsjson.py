"""The JSON 1.0 protocol: ``X-Amz-Target: AmazonSQS.<Op>`` with a JSON body, JSON out.

Current boto3 speaks this. Member names are the model's; the only conversions
are type checks and base64 for blobs.
"""

import base64
import binascii
import json

from botocore.model import Shape
from werkzeug.wrappers import Request, Response

from emulator.errors import SqsError

from .model import check_required, invalid_value, operation_model, service_model

CONTENT_TYPE = "application/x-amz-json-1.0"


def target_prefix() -> str:
    return service_model().metadata["targetPrefix"] + "."


def parse(request: Request) -> tuple[str, dict]:
    target = request.headers.get("X-Amz-Target", "")
    prefix = target_prefix()
    name = target[len(prefix) :] if target.startswith(prefix) else target
    op = operation_model(name)
    raw = request.get_data(cache=True)
    try:
        # An empty body is an empty input: some clients send nothing for ListQueues.
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise SqsError("InvalidParameterValue", f"The request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise SqsError("InvalidParameterValue", "The request body must be a JSON object.")
    shape = op.input_shape
    params = _structure(shape, body, "") if shape is not None else {}
    check_required(shape, params)
    return op.name, params


def _structure(shape: Shape, value: dict, path: str) -> dict:
    out = {}
    for name, member in shape.members.items():
        item = value.get(name)
        if item is not None:  # null is absent; unknown keys are ignored
            out[name] = _value(member, item, path + name)
    return out


def _value(shape: Shape, value, path: str):
    kind = shape.type_name
    if kind == "structure":
        _expect(isinstance(value, dict), value, path, "Must be an object.")
        return _structure(shape, value, path + ".")
    if kind == "list":
        _expect(isinstance(value, list), value, path, "Must be a list.")
        return [_value(shape.member, x, f"{path}.{i}") for i, x in enumerate(value, 1) if x is not None]
    if kind == "map":
        _expect(isinstance(value, dict), value, path, "Must be an object.")
        return {k: _value(shape.value, v, f"{path}.{k}") for k, v in value.items() if v is not None}
    if kind in ("integer", "long"):
        # bool is an int subclass in Python, but not in JSON.
        _expect(isinstance(value, int) and not isinstance(value, bool), value, path, "Must be an integer.")
        return value
    if kind == "boolean":
        _expect(isinstance(value, bool), value, path, "Must be a boolean.")
        return value
    if kind in ("float", "double"):
        _expect(isinstance(value, (int, float)) and not isinstance(value, bool), value, path, "Must be a number.")
        return float(value)
    _expect(isinstance(value, str), value, path, "Must be a string.")
    if kind == "blob":
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise invalid_value(value, path, "Must be base64 encoded.") from None
    return value


def _expect(ok: bool, value, path: str, reason: str) -> None:
    if not ok:
        raise invalid_value(json.dumps(value), path, reason)


# ---------------------------------------------------------------- responses


def serialize_result(operation: str, output: dict, request_id: str) -> Response:
    shape = operation_model(operation).output_shape
    body = _out_structure(shape, output or {}) if shape is not None else {}
    return _json_response(body, 200, request_id)


def serialize_error(error: SqsError, request_id: str) -> Response:
    fault = "Sender" if error.spec.sender_fault else "Receiver"
    body = {"__type": f"com.amazonaws.sqs#{error.spec.shape}", "message": error.message}
    response = _json_response(body, error.spec.status, request_id)
    # botocore reads Error.Code from this header (the legacy query code).
    response.headers["x-amzn-query-error"] = f"{error.spec.code};{fault}"
    return response


def _json_response(body: dict, status: int, request_id: str) -> Response:
    # Raw UTF-8 like AWS, which also keeps large non-ASCII bodies from growing sixfold.
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return Response(text.encode("utf-8"), status=status, content_type=CONTENT_TYPE, headers={"x-amzn-RequestId": request_id})


def _out_structure(shape: Shape, value: dict) -> dict:
    return {
        name: _out(member, value[name])
        for name, member in shape.members.items()
        if value.get(name) is not None
    }


def _out(shape: Shape, value):
    kind = shape.type_name
    if kind == "structure":
        return _out_structure(shape, value)
    if kind == "list":
        return [_out(shape.member, x) for x in value if x is not None]
    if kind == "map":
        return {k: _out(shape.value, v) for k, v in value.items() if v is not None}
    if kind == "blob":
        return base64.b64encode(value.encode() if isinstance(value, str) else value).decode("ascii")
    return value
