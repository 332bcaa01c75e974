"""What botocore's model decides for both protocols: which protocol a request speaks, which
operations exist, which members are required.
"""

from emulator import protocol
from emulator.errors import ERRORS
from emulator.protocol.model import error_documentation, service_model

from .support import QURL, json_request, parse_error, raw_request


def test_detect():
    assert protocol.detect(json_request("ListQueues", {})) == "json"
    assert protocol.detect(raw_request(data={"Action": "ListQueues"})) == "query"
    assert protocol.detect(raw_request(method="GET")) == "query"


def test_unknown_action():
    err = parse_error(raw_request(data={"Action": "DoSomething"}))
    assert (err.name, err.message) == ("InvalidAction", "The action DoSomething is not valid for this endpoint.")
    err = parse_error(raw_request(headers={"X-Amz-Target": "AmazonSQS.DoSomething"}, data="{}"))
    assert err.name == "InvalidAction" and "DoSomething" in err.message


def test_missing_required(make_request):
    err = parse_error(make_request("SendMessage", {"QueueUrl": QURL}))
    assert (err.name, err.message) == ("MissingParameter", "The request must contain the parameter MessageBody.")


def test_every_error_of_the_model_is_in_the_errors_table():
    # An error rule may answer any of them (engine/error_rules.py), by the shape's name and with
    # the code and status the table gives it: the table must know each one the model lists.
    model = service_model()
    shapes = {shape.name for name in model.operation_names for shape in model.operation_model(name).error_shapes}
    assert shapes and shapes <= ERRORS.keys(), sorted(shapes - ERRORS.keys())
    assert all(ERRORS[shape].shape == shape for shape in shapes)


def test_an_errors_documentation_is_its_first_paragraph_as_text():
    assert error_documentation("OverLimit").startswith(
        "The specified action violates a limit. For example, ReceiveMessage"
    )
    assert error_documentation("InternalError") == ""  # not in the model
