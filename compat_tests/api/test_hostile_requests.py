"""Hostile requests never get a 5xx, a hang or a lost connection, and a refused one changes
nothing (issue 16, item 6). Hypothesis mutates requests built from botocore's SQS model
(compat_tests/hostile.py) with a fixed seed and a budget of about 20 s; scripts/fuzz.py
runs the same strategy for as many requests as it is told.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compat_tests import hostile, hostile_members
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


# Each value of a member's kind in both protocols: hypothesis stops once it has tried them all.
PER_MEMBER = 2 * max(len(hostile_members.HOSTILE_STRINGS), len(hostile_members.HOSTILE_INTEGERS) + 1)


@pytest.mark.parametrize("leaf", hostile_members.LEAVES, ids=str)
def test_a_hostile_value_of_any_member_is_answered_with_an_aws_error_or_success(endpoint, leaf):
    """Every integer and string member (blobs, map keys, every batch entry's, each queue attribute's
    value), in JSON and the query protocol, given the values that once answered 500: lone
    surrogates in a batch entry, integers of thousands of digits (issue 31, item 9)."""
    urls = hostile.fixture_urls(endpoint)

    @settings(
        max_examples=PER_MEMBER,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.sampled_from(leaf.values()), st.sampled_from(["json", "query"]))
    def check(value, protocol):
        request = hostile_members.leaf_request(leaf, value, protocol, urls)
        wrong = hostile.judge(endpoint, request)
        assert wrong is None, f"{wrong}\n{request.describe()}"

    check()
