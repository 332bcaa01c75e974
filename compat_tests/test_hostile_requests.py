"""Hostile requests never get a 5xx, a hang or a lost connection, and a refused one changes
nothing (issue 16, item 6). Hypothesis mutates requests built from botocore's SQS model
(compat_tests/hostile.py) with a fixed seed and a budget of about 20 s; scripts/fuzz.py
runs the same strategy for as many requests as it is told.
"""

import pytest
from hypothesis import HealthCheck, given, settings

from compat_tests import hostile
from compat_tests.servers import start_emulator

EXAMPLES = 750  # about 20 s on a shared 2-core machine


@pytest.fixture(scope="module")
def endpoint():
    # Cooldowns off: a fixture queue a request deleted is created again at once.
    server = start_emulator("manual", "hostile", "--purge-cooldown", "0", "--recreate-cooldown", "0")
    hostile.ensure_fixtures(server.url)
    yield server.url
    server.stop()


@pytest.mark.parametrize("kind", ["json", "query", "admin"])
def test_a_hostile_request_is_answered_with_an_aws_error_or_success(endpoint, kind):
    @settings(
        max_examples=EXAMPLES // 3,
        derandomize=True,  # the same requests on every run
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(hostile.requests(endpoint, (kind,)))
    def check(request):
        wrong = hostile.judge(endpoint, request)
        assert wrong is None, f"{wrong}\n{request.describe()}"

    check()
