"""The query protocol answered in JSON: what AWS sends a query request whose
``Accept`` header prefers ``application/json``.

Requests are the query protocol's. A response is the XML document's tree as
JSON: ``{"<Op>Response": {"<Op>Result": {...}, "ResponseMetadata": {"RequestId": ..}}}``;
every member of the result shape is present, null when it has no value, maps
are objects and lists are arrays, under the model's member names except where
AWS names them otherwise (``messages``, ``queueUrls``). Errors are
``{"ErrorResponse": {"Error": {"Type", "Code", "Message"}, "RequestId": ..}}``.

Evidence (AWS's own samples and clients written against AWS): the API Gateway
to SQS pattern of aws-samples/serverless-patterns (APIGateway-SQS-ReceiveMessages,
"messages": null on an empty receive, null members), JustSaying's README
(Attributes as an object), and the awsxmltojson converter (ListQueuesResult.queueUrls,
the ErrorResponse form).
"""

from emulator.errors import SqsError

from . import awsquery, prepared_json
from .answers import Answer, json_answer
from .model import operation_model

CONTENT_TYPE = "application/json"
# Result members whose JSON name is not the model's member name.
_NAMES = {("ReceiveMessageResult", "Messages"): "messages", ("ListQueuesResult", "QueueUrls"): "queueUrls"}

parse = awsquery.parse


def serialize_result(operation: str, output: dict, request_id: str) -> Answer:
    shape = operation_model(operation).output_shape
    body: dict = {}
    if shape is not None:
        body[f"{operation}Result"] = _WRITER.write(shape, output or {})
    body["ResponseMetadata"] = {"RequestId": request_id}
    return json_answer({f"{operation}Response": body}, 200, CONTENT_TYPE, request_id)


def serialize_error(error: SqsError, request_id: str) -> Answer:
    if error.name == "UnknownOperationException":
        # AWS answers a queue URL without an action in XML, whatever the Accept header asks (issue 18).
        return awsquery.serialize_error(error, request_id)
    body = {"ErrorResponse": {"Error": awsquery.error_fields(error), "RequestId": request_id}}
    return json_answer(body, error.spec.status, CONTENT_TYPE, request_id)


# Every member present (null when absent), nulls kept in lists and maps.
_WRITER = prepared_json.Writer(keep_absent=True, names=_NAMES)
