"""What the admin API shows of queues and messages, as JSON-able dicts."""

import base64
import json

from werkzeug.wrappers import Response


def queue(ctx, queue) -> dict:
    counts = queue.counts()
    dead_letter = queue.redrive.target_arn if queue.redrive else None
    return {
        "url": ctx.queue_url(queue),
        "name": queue.name,
        "account": queue.account,
        "region": queue.region,
        "arn": queue.arn,
        "type": "fifo" if queue.fifo else "standard",
        "visible": counts["ApproximateNumberOfMessages"],
        "inflight": counts["ApproximateNumberOfMessagesNotVisible"],
        "delayed": counts["ApproximateNumberOfMessagesDelayed"],
        "totals": queue.stats.as_dict(),
        "attributes": dict(queue.attributes),
        "tags": dict(queue.tags),
        "dead_letter_target": dead_letter,
        "created_at": queue.created_at,
        "faults": queue.faults.as_dict() if queue.faults else None,
        # AWS's fair-queue metrics (CloudWatch), by their names; a FIFO queue has none.
        "fair": None if queue.fifo else queue.fair_metrics(),
    }


def message(snapshot: dict) -> dict:
    """A peeked message: Binary attribute values in base64, as SQS's JSON protocol sends them."""
    attributes = {}
    for name, value in snapshot["attributes"].items():
        value = dict(value)
        if isinstance(value.get("BinaryValue"), bytes):
            value["BinaryValue"] = base64.b64encode(value["BinaryValue"]).decode()
        attributes[name] = value
    return {**snapshot, "cursor": str(snapshot["cursor"]), "attributes": attributes}


def faults(ctx, queue) -> dict:
    return {"queue": ctx.queue_url(queue), "faults": queue.faults.as_dict() if queue.faults else None}


def dead_letter_sources(queues) -> dict[str, list[str]]:
    """The ARNs of the queues whose redrive policy names each queue's ARN: a queue with any
    is a dead-letter queue."""
    sources: dict[str, list[str]] = {}
    for queue in queues:
        if queue.redrive:
            sources.setdefault(queue.redrive.target_arn, []).append(queue.arn)
    return sources


def event_sources(mappings) -> list[dict]:
    """The mappings that poll a queue, with their counters (the last error among them), for the queue's view."""
    return [
        {
            "id": m.id,
            "target": m.spec.target.describe(),
            "state": m.state,
            "batch_size": m.spec.batch_size,
            "counters": m.stats.as_dict(),
        }
        for m in mappings
    ]


def json_page(fields: dict, name: str, items: list) -> Response:
    """{**fields, name: items} as a JSON answer in UTF-8, each item encoded once and joined."""
    head = json.dumps(fields, ensure_ascii=False)[:-1].encode()
    parts = [json.dumps(item, ensure_ascii=False).encode() for item in items]
    body = b"".join((head, b", ", json.dumps(name).encode(), b": [", b", ".join(parts), b"]}"))
    return Response(body, mimetype="application/json")
