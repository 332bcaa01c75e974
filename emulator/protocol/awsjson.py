"""The JSON 1.0 protocol: ``X-Amz-Target: AmazonSQS.<Op>`` with a JSON body, JSON out.

Current boto3 speaks this. Member names are the model's; the only conversions
are type checks and base64 for blobs.
"""

import functools
import json

import orjson

from emulator.errors import SqsError

from . import prepared_json
from .answers import Answer, json_answer
from .model import (
    check_required,
    operation_model,
    service_model,
    unparsable,
)
from .request import HttpRequest

CONTENT_TYPE = "application/x-amz-json-1.0"


@functools.cache
def target_prefix() -> str:
    return service_model().metadata["targetPrefix"] + "."


def parse(request: HttpRequest) -> tuple[str, dict]:
    target = request.headers.get("x-amz-target", "")
    prefix = target_prefix()
    name = target[len(prefix) :] if target.startswith(prefix) else target
    op = operation_model(name)
    raw = request.body
    # An empty body is an empty input: some clients send nothing for ListQueues.
    body = _decoded(raw) if raw.strip() else {}
    if not isinstance(body, dict):
        raise SqsError("InvalidParameterValue", "The request body must be a JSON object.")
    shape = op.input_shape
    if shape is None:
        return op.name, {}
    try:
        params = prepared_json.read(shape, body)
    except SqsError:
        # orjson reads an integer past 64 bits as a float, which no member of the model takes:
        # the body is read again as the standard library reads it, for the values it reports.
        params = prepared_json.read(shape, _standard(raw))
    check_required(shape, params)
    return op.name, params


def _decoded(raw: bytes):
    """The body's JSON value, by orjson, about four times faster than the standard library,
    which reads alike all it takes (but integers past 64 bits, read as floats: see parse())
    and refuses what the standard library reads its own way (lone surrogates, NaN, other
    encodings than UTF-8) or refuses with its own errors: those bodies go to the standard library."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _standard(raw)


def _standard(raw: bytes):
    """The body's JSON value as the standard library reads it."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SqsError("InvalidParameterValue", f"The request body is not valid JSON: {exc}") from None
    except RecursionError as exc:  # nested deeper than the decoder goes
        raise unparsable(exc) from None


_WRITER = prepared_json.Writer()


# ---------------------------------------------------------------- responses


def serialize_result(operation: str, output: dict, request_id: str) -> Answer:
    shape = operation_model(operation).output_shape
    body = _WRITER.write(shape, output or {}) if shape is not None else {}
    return json_answer(body, 200, CONTENT_TYPE, request_id)


def serialize_error(error: SqsError, request_id: str) -> Answer:
    fault = "Sender" if error.spec.sender_fault else "Receiver"
    body = {"__type": f"com.amazonaws.sqs#{error.spec.shape}", "message": error.message}
    answer = json_answer(body, error.spec.status, CONTENT_TYPE, request_id)
    # botocore reads Error.Code from this header (the legacy query code).
    answer.headers.append(("x-amzn-query-error", f"{error.spec.code};{fault}"))
    return answer
