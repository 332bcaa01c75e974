"""Every recorded wire fixture through both drivers of the one SQS answer
(emulator/server/drivers.py): the thread driver behind the WSGI callable, and the
event loop's LoopDriver on a real asyncio loop with its worker pool. Each replays on
a fresh app with the same manual clock; ids and times are normalized by recorded.py's
Normalizer; status, every header (names, values, order) and the body's bytes must be
the same both ways, and the pinned ones what was recorded."""

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from werkzeug.test import EnvironBuilder

from emulator.protocol import Answer, HttpRequest, Peer
from emulator.server.drivers import LoopDriver, call_wsgi

from .recorded import BASE_URL, RESPONSE_HEADERS, ROOT, Normalizer, fixture_files, new_app

FILES = fixture_files()
CONNECTION = Peer("127.0.0.1", 9324, "127.0.0.1")


def _environ(request: dict) -> dict:
    return EnvironBuilder(
        path=request["path"],
        base_url=BASE_URL,
        method=request["method"],
        query_string=request.get("query") or None,
        headers=list(request["headers"].items()),
        data=request["body"].encode("utf-8"),
    ).get_environ()


def _on_thread(app, request: dict) -> Answer:
    return call_wsgi(app, _environ(request))  # app(environ, start_response): the thread driver


def _on_the_loop(loop, driver: LoopDriver, request: dict) -> Answer:
    environ = _environ(request)
    sqs = HttpRequest.from_environ(environ, environ["wsgi.input"].read())
    return loop.run_until_complete(driver.run(sqs, CONNECTION))


def _replay(transcript: dict, answer) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    norm = Normalizer()
    exchanges = [*transcript["setup"], {"request": transcript["request"], "response": transcript["response"]}]
    answers = []
    for exchange in exchanges:
        live = answer(norm.denormalize(exchange["request"]))
        headers = dict(live.headers)
        norm.learn({"headers": headers, "body": live.body.decode()})
        normalized = [(name, norm.text(value)) for name, value in live.headers]
        answers.append((live.status, normalized, norm.text(live.body.decode()).encode()))
    return answers


@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    pool = ThreadPoolExecutor(2)
    yield loop, pool
    pool.shutdown(wait=True)
    loop.close()


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_a_fixture_answers_the_same_bytes_through_both_drivers(path, loop):
    loop, pool = loop
    transcript = json.loads(path.read_text(encoding="utf-8"))
    threaded_app = new_app()
    threaded = _replay(transcript, lambda request: _on_thread(threaded_app, request))
    driver = LoopDriver(new_app(), loop, pool)
    looped = _replay(transcript, lambda request: _on_the_loop(loop, driver, request))
    assert looped == threaded, path.relative_to(ROOT)
    status, headers, body = looped[-1]
    recorded = transcript["response"]
    assert Answer(status, [], b"").status_line == recorded["status"]
    assert {n: v for n, v in headers if n.lower() in RESPONSE_HEADERS} == recorded["headers"]
    assert body.decode() == recorded["body"]
