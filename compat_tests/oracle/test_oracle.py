"""One test per scenario: the same calls against the emulator and moto, judged.

A scenario fails when the two differ in a way no named deviation explains
(DISAGREE) or when the emulator contradicts what AWS documents (EMULATOR BUG).
"""

from __future__ import annotations

import pytest

from compat_tests.oracle import report
from compat_tests.oracle.deviations import CATALOGUE, GLOBAL
from compat_tests.oracle.engine import explain, judge, run_scenario
from compat_tests.oracle.scenarios import SCENARIOS

# Scenarios written ahead of a feature the emulator has not built yet. They are
# not counted as conformance: the report lists them as not run, with this reason.
NOT_BUILT: dict[str, str] = {}


@pytest.mark.parametrize("sc", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario(sc, oracle_servers, oracle_protocol):
    missing = [NOT_BUILT[feature] for feature in sc.needs if feature in NOT_BUILT]
    if missing:
        pytest.skip(missing[0])
    if oracle_protocol not in sc.protocols:
        pytest.skip(f"scenario is for {sc.protocols}, client speaks {oracle_protocol}")
    emu = run_scenario(sc, oracle_servers["emulator"], "emulator")
    moto = run_scenario(sc, oracle_servers["moto"], "moto")
    verdict = judge(sc, emu, moto, oracle_protocol, CATALOGUE, GLOBAL)
    report.VERDICTS.append(verdict)
    assert not verdict.failed, explain(verdict)
    # The list stays true: a deviation the scenario allows that moto no longer shows is
    # stale (moto 5.2.6 fixed three). Judged in JSON 1.0, the protocol the list is kept for.
    stale = sorted({a.name for a in sc.allows()} - set(verdict.deviations))
    if oracle_protocol == "json":
        assert not stale, f"moto now behaves as AWS here: drop {stale} from the scenario (and the list if unused)"


def test_every_operation_is_covered(oracle_protocol):
    import botocore.session

    model = botocore.session.get_session().get_service_model("sqs")
    used = {st.op for sc in SCENARIOS for st in sc.steps}
    assert set(model.operation_names) <= used, sorted(set(model.operation_names) - used)


def test_scenario_ids_unique():
    ids = [s.id for s in SCENARIOS]
    assert len(ids) == len(set(ids))
