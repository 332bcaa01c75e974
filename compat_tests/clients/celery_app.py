"""A Celery app whose broker is the SQS server under test (used by test_celery.py).

The worker (``celery -A compat_tests.clients.celery_app worker``) reads its
settings from the environment; the test builds its producer with make_app().
"""

from __future__ import annotations

import os
import threading

from celery import Celery, signals


def make_app(endpoint: str, queue: str, out_path: str) -> Celery:
    host_port = endpoint.split("://", 1)[1].rstrip("/")
    app = Celery("sqs_compat", broker=f"sqs://test:test@{host_port}")
    app.conf.update(
        broker_transport_options={
            "region": "us-east-1",
            "is_secure": False,  # kombu builds the endpoint URL from the broker host: http://host:port
            "wait_time_seconds": 5,  # long polls; the server must wake them when a task arrives
            "polling_interval": 0.5,
            "visibility_timeout": 120,  # longer than the test: any redelivery would be a bug
            "client-config": {"connect_timeout": 5, "read_timeout": 30, "retries": {"max_attempts": 1}},
        },
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=3,
        task_default_queue=queue,
        task_ignore_result=True,
        worker_enable_remote_control=False,
        worker_send_task_events=False,
        worker_prefetch_multiplier=4,
        worker_hijack_root_logger=False,
    )

    @app.task(name="record")
    def record(n: int) -> None:
        line = f"{n} {os.getpid()} {threading.get_ident()}\n".encode()
        fd = os.open(out_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one small O_APPEND write: lines never interleave
        finally:
            os.close(fd)

    return app


@signals.worker_ready.connect
def _report_loop(sender=None, **_kwargs) -> None:
    """Write which consumer loop runs: 'asynloop' means kombu's asynchronous
    (pycurl) SQS client does the ReceiveMessage calls, 'synloop' boto3's."""
    marker = os.environ.get("SQS_CELERY_LOOP_MARKER")
    if marker:
        with open(marker, "w") as f:
            f.write(getattr(sender, "loop", None).__name__)


app = make_app(
    os.environ.get("SQS_CELERY_ENDPOINT", "http://127.0.0.1:9324"),
    os.environ.get("SQS_CELERY_QUEUE", "celery"),
    os.environ.get("SQS_CELERY_OUT", os.devnull),
)
