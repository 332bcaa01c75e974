"""The peek LocalStack's developer endpoint answers (emulator/api/peek.py): ReceiveMessage's
output with every attribute, and nothing changed. LocalStack's SQS page, "Developer
endpoints" > "Peeking into queues", shows the shape; compat_tests/server/test_other_emulators.py
drives it over HTTP."""

import json

from engine_support import ACCOUNT, REGION

from emulator import api
from emulator.api.peek import PEEK_HANDLE, peek_messages

BASE_URL = "http://localhost:9324"


def _ctx(broker) -> api.Context:
    return api.Context(
        broker=broker, account=ACCOUNT, region=REGION, base_url=BASE_URL, default_region=REGION, sender_id=ACCOUNT
    )


def _create(ctx, name: str, **attributes) -> str:
    return api.dispatch(ctx, "CreateQueue", {"QueueName": name, "Attributes": attributes})["QueueUrl"]


def test_a_peek_shows_what_a_receive_would_and_receives_nothing(broker, clock):
    ctx = _ctx(broker)
    url = _create(ctx, "jobs")
    attributes = {"colour": {"DataType": "String", "StringValue": "blue"}}
    sent = api.dispatch(ctx, "SendMessage", {"QueueUrl": url, "MessageBody": "hello", "MessageAttributes": attributes})
    queue = ctx.queue(url)
    [peeked] = peek_messages(queue)["Messages"]
    assert peeked["MessageId"] == sent["MessageId"] and peeked["ReceiptHandle"] == PEEK_HANDLE
    assert peeked["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert peeked["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert peeked["MessageAttributes"] == attributes
    assert peeked["Attributes"] == {
        "SenderId": ACCOUNT,
        "SentTimestamp": str(int(clock.now() * 1000)),
        "ApproximateReceiveCount": "0",
        "ApproximateFirstReceiveTimestamp": "0",  # never received: LocalStack shows 0
    }
    [received] = api.dispatch(ctx, "ReceiveMessage", {"QueueUrl": url, "AttributeNames": ["All"]})["Messages"]
    assert received["Attributes"]["ApproximateReceiveCount"] == "1"
    assert peek_messages(queue) == {}  # in flight now
    [inflight] = peek_messages(queue, show_invisible=True)["Messages"]
    assert inflight["Attributes"]["ApproximateReceiveCount"] == "1"
    assert inflight["Attributes"]["ApproximateFirstReceiveTimestamp"] == str(int(clock.now() * 1000))
    assert (inflight["Attributes"]["IsVisible"], inflight["Attributes"]["IsDelayed"]) == ("false", "false")


def test_a_peeked_fifo_or_dead_lettered_message_shows_its_system_attributes(broker, clock):
    ctx = _ctx(broker)
    dlq = _create(ctx, "jobs-dlq")
    policy = {"deadLetterTargetArn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:jobs-dlq", "maxReceiveCount": 1}
    source = _create(ctx, "jobs", RedrivePolicy=json.dumps(policy), VisibilityTimeout="0")
    api.dispatch(ctx, "SendMessage", {"QueueUrl": source, "MessageBody": "twice"})
    for _ in range(2):
        api.dispatch(ctx, "ReceiveMessage", {"QueueUrl": source})
    [dead] = peek_messages(ctx.queue(dlq))["Messages"]
    assert dead["Attributes"]["DeadLetterQueueSourceArn"] == f"arn:aws:sqs:{REGION}:{ACCOUNT}:jobs"
    fifo = _create(ctx, "orders.fifo", FifoQueue="true")
    params = {"QueueUrl": fifo, "MessageBody": "o", "MessageGroupId": "g", "MessageDeduplicationId": "d"}
    sent = api.dispatch(ctx, "SendMessage", params)
    [ordered] = peek_messages(ctx.queue(fifo))["Messages"]
    assert ordered["Attributes"]["MessageGroupId"] == "g"
    assert ordered["Attributes"]["MessageDeduplicationId"] == "d"
    assert ordered["Attributes"]["SequenceNumber"] == sent["SequenceNumber"]
