"""Requests as botocore's serializers build them, and responses as its parsers read them.

Requests are produced by botocore's serializers (the current JSON model, and
the last query-protocol model from botocore 1.31.80), responses are read by
botocore's parsers, so passing tests mean real clients understand us.
"""

import json
from urllib.parse import urlencode

import botocore.session
import pytest
from botocore.awsrequest import HeadersDict
from botocore.model import ServiceModel
from botocore.parsers import create_parser
from botocore.serialize import create_serializer
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from emulator import protocol
from emulator.errors import SqsError
from emulator.protocol import HttpRequest

from .recorded import FIXTURES

# The last query-protocol model (botocore 1.31.80's sqs/2012-11-05/service-2.json), kept in the repository.
QUERY_MODEL = FIXTURES / "botocore-1.31.80-sqs-service-2.json"
HOST = "http://localhost:9324"
QURL = f"{HOST}/000000000000/q1"
RID = "11111111-2222-3333-4444-555555555555"

JSON_MODEL = botocore.session.get_session().get_service_model("sqs")


def load_query_model() -> ServiceModel:
    return ServiceModel(json.loads(QUERY_MODEL.read_text()), service_name="sqs")


def json_request(operation, params):
    op = JSON_MODEL.operation_model(operation)
    req = create_serializer("json", include_validation=False).serialize_to_request(params, op)
    return _request(req, req["body"])


def query_request(model, operation, params, path="/"):
    op = model.operation_model(operation)
    req = create_serializer("query", include_validation=False).serialize_to_request(params, op)
    req["url_path"] = path
    # What botocore's AWSRequest does with a dict body.
    return _request(req, urlencode(req["body"], doseq=True))


def _request(req, body):
    env = EnvironBuilder(
        path=req["url_path"], base_url=HOST, method=req["method"], headers=dict(req["headers"]), data=body
    )
    return _sans_io(env)


def raw_request(path="/", method="POST", headers=None, data=None, query_string=None):
    env = EnvironBuilder(
        path=path, base_url=HOST, method=method, headers=headers or {}, data=data, query_string=query_string
    )
    return _sans_io(env)


def _sans_io(builder: EnvironBuilder) -> HttpRequest:
    """The protocol layer's request (emulator/protocol/request.py) for what werkzeug's test builder made."""
    environ = builder.get_environ()
    return HttpRequest.from_environ(environ, Request(environ).get_data())


def roundtrip(request):
    proto = protocol.detect(request)
    return proto, protocol.parse(proto, request)


def parse_error(request) -> SqsError:
    """The SqsError that parsing ``request`` raises."""
    with pytest.raises(SqsError) as info:
        roundtrip(request)
    return info.value


def parse_response(model, proto, operation, response):
    assert response.headers["x-amzn-RequestId"] == RID
    headers = HeadersDict(dict(response.headers))
    raw = {"status_code": response.status_code, "headers": headers, "body": response.get_data()}
    return create_parser(proto).parse(raw, model.operation_model(operation).output_shape)
