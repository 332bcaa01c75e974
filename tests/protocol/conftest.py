"""Fixtures of the protocol tests: the old query model, and a request builder or model per protocol."""

import pytest

from .support import JSON_MODEL, json_request, load_query_model, query_request


@pytest.fixture(scope="session")
def query_model():
    return load_query_model()


@pytest.fixture(params=["json", "query"])
def make_request(request, query_model):
    """A builder of ``(operation, params)`` requests, as each protocol's SDK sends them."""
    if request.param == "json":
        return json_request
    return lambda op, params, **kw: query_request(query_model, op, params, **kw)


@pytest.fixture(params=["json", "query"])
def proto_model(request, query_model):
    """(protocol, the model its SDK reads responses with)."""
    return request.param, JSON_MODEL if request.param == "json" else query_model
