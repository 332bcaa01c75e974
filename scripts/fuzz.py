"""Throw N hostile requests at an emulator and count what went wrong.

The strategies of compat_tests/api/test_hostile_requests.py, run for as long as asked: requests
built from botocore's SQS model, then mutated (compat_tests/hostile.py), and one request in
four a hostile value of its kind at one member of the model (compat_tests/hostile_members.py:
lone surrogates in batch entries, integers of thousands of digits). Every answer
must be a success or a well-formed AWS error below 500, in time, on a connection that
holds; a refused request must change nothing.

    python scripts/fuzz.py                        # 50,000 requests to a server of its own
    python scripts/fuzz.py --requests 5000 --seed 7
    python scripts/fuzz.py --endpoint http://127.0.0.1:9324   # a running server (manual clock, no cooldowns)

Exit status 1 if any request was answered wrongly; the first ones are printed.
"""

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

from compat_tests import hostile, hostile_members
from compat_tests.servers import start_emulator


def run(endpoint: str, requests: int, seed: int) -> tuple[collections.Counter, list[str]]:
    statuses: collections.Counter = collections.Counter()
    problems: list[str] = []

    mutated = hostile.requests(endpoint)

    @seeded(seed)
    @settings(
        max_examples=requests,
        phases=[Phase.generate],  # no shrinking: every request counts once
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(mutated, mutated, mutated, hostile_members.requests(endpoint)))
    def one(request):
        wrong = hostile.judge(endpoint, request)
        statuses["wrong" if wrong else "fine"] += 1
        statuses[request.kind] += 1
        if wrong:
            problems.append(f"{wrong}\n    {request.describe()}")
        done = statuses["fine"] + statuses["wrong"]
        if done % 5000 == 0:
            print(f"{done} requests, {statuses['wrong']} answered wrongly", flush=True)

    one()
    return statuses, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--endpoint", help="a running emulator (default: start one)")
    args = parser.parse_args()
    server = None
    if args.endpoint is None:
        server = start_emulator("manual", "fuzz", "--purge-cooldown", "0", "--recreate-cooldown", "0")
    endpoint = args.endpoint or server.url
    started = time.monotonic()
    try:
        hostile.ensure_fixtures(endpoint)
        statuses, problems = run(endpoint, args.requests, args.seed)
    finally:
        if server is not None:
            server.stop()
    total = statuses["fine"] + statuses["wrong"]
    kinds = ", ".join(f"{kind} {statuses[kind]}" for kind in ("json", "query", "admin"))
    server_errors = sum(problem.startswith("answered 5") for problem in problems)
    print(
        f"{total} hostile requests ({kinds}) in {time.monotonic() - started:.0f} s: "
        f"{statuses['wrong']} answered wrongly, {server_errors} of them with a 5xx"
    )
    for problem in problems[:20]:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
