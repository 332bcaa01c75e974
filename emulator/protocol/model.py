"""botocore's SQS service model, loaded once, plus the checks both protocols share.

The operation list, member names and member types all come from this model;
nothing here names an SQS operation.
"""

import functools
import html
import re

import botocore.session
from botocore.model import OperationModel, ServiceModel, Shape

from emulator.errors import SqsError

# Query responses and errors carry this namespace (from the last query-protocol model).
XML_NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/"


@functools.cache
def service_model() -> ServiceModel:
    # Loading the model costs tens of milliseconds: do it once per process.
    return botocore.session.get_session().get_service_model("sqs")


# Operation models by name, filled as they are first asked for: a dict read is a tenth of
# botocore's cached lookup, which a request made twice (to parse and to answer).
_OPERATIONS: dict[str, OperationModel] = {}


def operation_model(name: str | None) -> OperationModel:
    """The model of operation ``name``, or InvalidAction if SQS has no such operation."""
    op = _OPERATIONS.get(name)  # type: ignore[arg-type]
    if op is None:
        model = service_model()
        if not name or name not in model.operation_names:
            raise SqsError("InvalidAction", f"The action {name or ''} is not valid for this endpoint.")
        op = _OPERATIONS[name] = model.operation_model(name)
    return op


def invalid_value(value: object, param: str, reason: str) -> SqsError:
    # AWS's wording for a value it cannot accept for a named parameter.
    return SqsError("InvalidParameterValue", f"Value {value} for parameter {param} is invalid. Reason: {reason}")


def unparsable(exc: Exception) -> SqsError:
    """Input a parser's library cannot take at all (nested too deep, digits int() refuses)."""
    return SqsError("InvalidParameterValue", f"The request could not be parsed: {exc}")


def check_required(shape: Shape | None, params: dict) -> None:
    """MissingParameter for the first absent required top-level member.

    Only the top level: nested required members (a batch entry's Id, an
    attribute's DataType) get operation-specific messages from the API layer.
    """
    if shape is None:
        return
    for name in shape.required_members:
        if params.get(name) is None:
            raise SqsError("MissingParameter", f"The request must contain the parameter {name}.")


def error_documentation(shape_name: str) -> str:
    """The first paragraph of the model's documentation of an error shape, as text ('' if none)."""
    model = service_model()
    if shape_name not in model.shape_names:
        return ""
    first = (model.shape_for(shape_name).documentation or "").split("</p>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", first)).strip()
