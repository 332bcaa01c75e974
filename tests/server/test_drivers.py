"""The two drivers of the one SQS answer (emulator/server/drivers.py), on a real asyncio
loop and on the calling thread, with the app built without listening. The HTTP server
cancels a request's task when its client's connection closes: a long poll waiting then
ends at once, leaves its --max-waits place, stops watching, and takes no message."""

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from emulator.protocol import HttpRequest, Peer
from emulator.protocol.request import Headers
from emulator.server.build import Options, build
from emulator.server.drivers import LoopDriver, on_thread

ACCOUNT, REGION = "000000000000", "us-east-1"
CONNECTION = Peer("127.0.0.1", 9324, "127.0.0.1")


def sqs(operation: str, params: dict) -> HttpRequest:
    headers = Headers(
        {
            "host": "localhost:9324",
            "content-type": "application/x-amz-json-1.0",
            "x-amz-target": f"AmazonSQS.{operation}",
        }
    )
    return HttpRequest("POST", "/", "", headers, json.dumps(params).encode())


@pytest.fixture
def emulator():
    built = build(Options(port=0, clock="manual"), listen=False)
    yield built
    built.close()


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    pool = ThreadPoolExecutor(2)
    yield loop, pool
    pool.shutdown(wait=True)
    loop.close()


def call(emulator, operation: str, **params) -> dict:
    return json.loads(on_thread(emulator.app.answer(sqs(operation, params))).body or b"{}")


async def until(condition) -> None:
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("not true within 2 s")


def test_a_cancelled_long_poll_leaves_its_place_stops_watching_and_takes_no_message(emulator, loop):
    loop, pool = loop
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    queue = emulator.broker.get_queue(ACCOUNT, REGION, "q")
    waits = emulator.broker.waits
    driver = LoopDriver(emulator.app, loop, pool)

    async def scenario():
        poll = asyncio.ensure_future(
            driver.run(sqs("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20}), CONNECTION)
        )
        await until(lambda: queue.polls.waiting() == 1)
        assert waits.waiting == 1
        poll.cancel()  # what the server does when the client's connection closes
        with pytest.raises(asyncio.CancelledError):
            await poll
        assert waits.waiting == 0 and queue.polls.waiting() == 0
        call(emulator, "SendMessage", QueueUrl=url, MessageBody="for a client that is here")
        assert queue.counts()["ApproximateNumberOfMessages"] == 1  # visible: the gone poll took nothing

    loop.run_until_complete(scenario())


def test_a_long_poll_cancelled_after_a_send_woke_it_passes_the_message_on(emulator, loop):
    loop, pool = loop
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    queue = emulator.broker.get_queue(ACCOUNT, REGION, "q")
    driver = LoopDriver(emulator.app, loop, pool)
    receive = sqs("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})

    async def scenario():
        gone = asyncio.ensure_future(driver.run(receive, CONNECTION))
        await until(lambda: queue.polls.waiting() == 1)
        here = asyncio.ensure_future(driver.run(receive, CONNECTION))
        await until(lambda: queue.polls.waiting() == 2)
        call(emulator, "SendMessage", QueueUrl=url, MessageBody="m")  # wakes the older poll, `gone`
        gone.cancel()  # its client left before it could receive
        with pytest.raises(asyncio.CancelledError):
            await gone
        answer = await asyncio.wait_for(here, 5)
        assert [m["Body"] for m in json.loads(answer.body)["Messages"]] == ["m"]
        assert emulator.broker.waits.waiting == 0

    loop.run_until_complete(scenario())


def test_past_max_waits_a_long_poll_is_answered_at_once_by_either_driver(emulator, loop):
    loop, pool = loop
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    emulator.broker.waits.cap = 0
    receive = sqs("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
    answer = loop.run_until_complete(asyncio.wait_for(LoopDriver(emulator.app, loop, pool).run(receive, CONNECTION), 5))
    assert json.loads(answer.body) == {}
    assert json.loads(on_thread(emulator.app.answer(receive)).body) == {}
    assert emulator.broker.waits.refused == 2


def test_release_ends_every_wait_and_answers_new_ones_at_once(emulator, loop):
    loop, pool = loop
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    queue = emulator.broker.get_queue(ACCOUNT, REGION, "q")
    driver = LoopDriver(emulator.app, loop, pool)
    receive = sqs("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})

    async def scenario():
        waiting = asyncio.ensure_future(driver.run(receive, CONNECTION))
        await until(lambda: queue.polls.waiting() == 1)
        driver.release()
        assert json.loads((await asyncio.wait_for(waiting, 5)).body) == {}
        assert json.loads((await asyncio.wait_for(driver.run(receive, CONNECTION), 5)).body) == {}

    loop.run_until_complete(scenario())


def test_the_thread_driver_waits_for_a_send_from_another_thread(emulator):
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    queue = emulator.broker.get_queue(ACCOUNT, REGION, "q")
    answers: list[dict] = []
    poll = threading.Thread(
        target=lambda: answers.append(call(emulator, "ReceiveMessage", QueueUrl=url, WaitTimeSeconds=20))
    )
    poll.start()
    for _ in range(2000):
        if queue.polls.waiting() == 1:
            break
        threading.Event().wait(0.001)
    assert emulator.broker.waits.waiting == 1
    call(emulator, "SendMessage", QueueUrl=url, MessageBody="woken")
    poll.join(5)
    assert [m["Body"] for m in answers[0]["Messages"]] == ["woken"]
    assert emulator.broker.waits.waiting == 0


def test_a_manual_clock_advance_ends_a_thread_drivers_long_poll(emulator):
    url = call(emulator, "CreateQueue", QueueName="q")["QueueUrl"]
    queue = emulator.broker.get_queue(ACCOUNT, REGION, "q")
    answers: list[dict] = []
    poll = threading.Thread(
        target=lambda: answers.append(call(emulator, "ReceiveMessage", QueueUrl=url, WaitTimeSeconds=20))
    )
    poll.start()
    for _ in range(2000):
        if queue.polls.waiting() == 1:
            break
        threading.Event().wait(0.001)
    emulator.broker.clock.advance(20)
    poll.join(5)
    assert answers == [{}]
