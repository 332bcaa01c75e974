"""Celery with the SQS broker (kombu's SQS transport and its pycurl-based
asynchronous client): two workers compete for 50 tasks; each runs exactly once.

The workers long-poll, so they talk to a server on the real clock
(real_clock_endpoint in conftest.py), not the session's manual-clock one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import boto3
import pytest

from compat_tests.clients.conftest import clean_env, missing
from compat_tests.helpers import unique_name
from compat_tests.servers import REPO_ROOT, stop

TASKS = 50
WORKERS = 2
READY_TIMEOUT = 45
RUN_TIMEOUT = 60


def _wait_for(predicate, timeout: float, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def _lines(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def celery_app_module():
    try:
        import pycurl  # noqa: F401  kombu's asynchronous SQS client needs it

        from compat_tests.clients import celery_app
    except ImportError as exc:
        missing(f"needs celery[sqs] (`pip install 'celery[sqs]'`): {exc}")
    return celery_app


@pytest.fixture
def start_worker(real_clock_endpoint, tmp_path):
    """start_worker(i, queue, out) -> (process, log path, loop marker path); stopped after the test."""
    procs = []

    def start(i: int, queue: str, out) -> tuple:
        log_path, marker = tmp_path / f"worker{i}.log", tmp_path / f"worker{i}.loop"
        env = clean_env(
            SQS_CELERY_ENDPOINT=real_clock_endpoint,
            SQS_CELERY_QUEUE=queue,
            SQS_CELERY_OUT=str(out),
            SQS_CELERY_LOOP_MARKER=str(marker),
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        )
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "compat_tests.clients.celery_app",
                    "worker",
                    "--pool=solo",
                    "--concurrency=1",
                    "-Q",
                    queue,
                    "-n",
                    f"w{i}-{queue}@localhost",
                    "--without-mingle",
                    "--without-gossip",
                    "--without-heartbeat",
                    "--loglevel=INFO",
                ],
                cwd=REPO_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        procs.append(proc)
        return proc, log_path, marker

    yield start
    for proc in procs:
        stop(proc, timeout=20)


def test_fifty_tasks_each_run_once(celery_app_module, start_worker, real_clock_endpoint, tmp_path):
    queue = unique_name("celery")
    out = tmp_path / "ran.txt"
    producer = celery_app_module.make_app(real_clock_endpoint, queue, str(out))
    sqs = boto3.client(
        "sqs",
        endpoint_url=real_clock_endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )

    # Half before any worker exists (the producer creates the queue), half while they long-poll.
    for n in range(TASKS // 2):
        producer.send_task("record", args=[n], queue=queue)
    url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
    workers = []
    try:
        workers += [start_worker(i, queue, out) for i in range(WORKERS)]
        for proc, log_path, marker in workers:
            ready = _wait_for(
                lambda proc=proc, marker=marker: proc.poll() is not None or marker.exists(), READY_TIMEOUT
            )
            assert ready and proc.poll() is None, f"worker not ready:\n{log_path.read_text()[-4000:]}"
            assert marker.read_text() == "asynloop", "the worker does not use kombu's asynchronous SQS client"
        time.sleep(1)  # let the long polls start, so the next sends must wake them
        for n in range(TASKS // 2, TASKS):
            producer.send_task("record", args=[n], queue=queue)

        _wait_for(lambda: len(_lines(out)) >= TASKS, RUN_TIMEOUT)
        time.sleep(2)  # room for a duplicate delivery to show up
        ran = Counter(int(line.split()[0]) for line in _lines(out))
        logs = "\n".join(log.read_text()[-3000:] for _, log, _ in workers)
        assert set(ran) == set(range(TASKS)), f"lost tasks: {sorted(set(range(TASKS)) - set(ran))}\n{logs}"
        assert {n: c for n, c in ran.items() if c > 1} == {}, "tasks run more than once"

        def drained():
            a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
            return a["ApproximateNumberOfMessages"] == a["ApproximateNumberOfMessagesNotVisible"] == "0"

        assert _wait_for(drained, 10), "acked tasks still in the queue (DeleteMessage did not take)"
    finally:
        for proc, _, _ in workers:
            stop(proc, timeout=20)  # warm shutdown, before the queue goes away
        producer.close()
        sqs.delete_queue(QueueUrl=url)
    for _, log_path, _ in workers:
        assert "Traceback" not in log_path.read_text(), log_path.read_text()[-4000:]
