"""Wire formats of SQS: the query protocol and JSON 1.0. Knows no queues.

    detect(request)                                   -> 'json' | 'query' | 'query-json'
    parse(protocol, request)                          -> (operation, params)   raises SqsError on bad input
    (request: an HttpRequest, request.py: method, path, query, headers and body; no I/O)
    serialize_result(protocol, operation, output, request_id) -> Answer (status, headers, body)
    serialize_error(protocol, error, request_id)      -> Answer

Params and outputs are the same dicts for both protocols, keyed by the
current botocore model's member names: str, int, bool, bytes (blobs), dict,
list. Members whose value is None are omitted from responses.
"""

from emulator.errors import SqsError

from . import awsjson, awsquery, query_json
from .answers import Answer
from .request import HttpRequest, Peer

__all__ = ["Answer", "HttpRequest", "Peer", "detect", "parse", "serialize_error", "serialize_result"]

_MODULES = {"json": awsjson, "query": awsquery, "query-json": query_json}


def detect(request: HttpRequest) -> str:
    # Only headers: the body is left for parse(). A JSON content type without a
    # target still gets a JSON error (InvalidAction), which its client can read.
    if "x-amz-target" in request.headers or request.mimetype == awsjson.CONTENT_TYPE:
        return "json"
    # AWS negotiates: a query request that prefers JSON to XML is answered in JSON.
    accept = request.accept_mimetypes
    if accept[query_json.CONTENT_TYPE] > accept["text/xml"]:
        return "query-json"
    return "query"


def parse(protocol: str, request: HttpRequest) -> tuple[str, dict]:
    # Malformed input is an SqsError raised where it is found; anything else
    # is a bug of ours and goes up to the app, which answers InternalFailure.
    return _MODULES[protocol].parse(request)


def serialize_result(protocol: str, operation: str, output: dict, request_id: str) -> Answer:
    return _MODULES[protocol].serialize_result(operation, output, request_id)


def serialize_error(protocol: str, error: SqsError, request_id: str) -> Answer:
    return _MODULES[protocol].serialize_error(error, request_id)
