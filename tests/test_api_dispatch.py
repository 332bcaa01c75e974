"""Every operation in botocore's SQS model has its API function, and nothing else does."""

import botocore.session
from botocore import xform_name

from emulator.api import HANDLERS


def test_every_model_operation_has_a_handler():
    operations = botocore.session.get_session().get_service_model("sqs").operation_names
    assert sorted(HANDLERS) == sorted(xform_name(op) for op in operations)
