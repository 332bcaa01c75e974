#!/usr/bin/env python
"""The floor for the benchmark (python -m bench): a trivial WSGI app that answers
boto3's SQS calls with canned JSON (no engine, no validation), on a chosen HTTP
server. What a server costs per request with next to no app on top of it.

    PYTHONPATH=$PWD python scripts/floor_app.py --port 9400    # on the emulator's server
    python scripts/floor_app.py --port 9400 --server uvicorn   # or werkzeug, waitress, cheroot, gunicorn, granian

Answers SendMessage, SendMessageBatch (one entry per Id) and CreateQueue /
GetQueueUrl / DeleteQueue; a ReceiveMessage gets no messages.

The one place that knows how to serve an app on the emulator's own HTTP server the
way the emulator does (main(), "emulator"): when that server changes, this file
changes with it, and the benchmark's floor stays on the same server as the emulator.
The benchmark runs it with this checkout on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SERVERS = ("emulator", "werkzeug", "waitress", "cheroot", "gunicorn", "granian", "uvicorn")
SENT = {"MessageId": "00000000-0000-0000-0000-000000000000", "MD5OfMessageBody": "0" * 32}


def answer(operation: str, body: bytes, host: str) -> bytes:
    if operation == "SendMessageBatch":
        answer: dict = {"Successful": [{"Id": e["Id"], **SENT} for e in json.loads(body)["Entries"]]}
    elif operation in ("CreateQueue", "GetQueueUrl"):
        answer = {"QueueUrl": f"http://{host}/000000000000/{json.loads(body)['QueueName']}"}
    elif operation == "SendMessage":
        answer = SENT
    else:
        answer = {}
    return json.dumps(answer).encode()


def app(environ, start_response):
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    data = answer(environ.get("HTTP_X_AMZ_TARGET", ".").rsplit(".", 1)[1], body, environ["HTTP_HOST"])
    start_response("200 OK", [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(data)))])
    return [data]


async def asgi_app(scope, receive, send):
    """The same answers as an ASGI app (uvicorn on uvloop and httptools, the ecosystem's standard)."""
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    headers = dict(scope["headers"])
    target = headers.get(b"x-amz-target", b".").decode().rsplit(".", 1)[1]
    data = answer(target, body, headers.get(b"host", b"").decode())
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/x-amz-json-1.0"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})


class OnTheEmulatorsServer:
    """The floor behind the emulator's server and its event loop's driver
    (emulator/server/drivers.py), as the emulator's app is: every request answered on the
    server's event loop as soon as it is read (the way the emulator answers SendMessage),
    through its one SQS answer."""

    def takes_werkzeug(self, method: str, path: str) -> bool:
        return False

    refuses_unsigned = False

    def refused_early(self, request):
        return None

    def answer(self, request):
        from emulator.protocol import Answer

        data = answer(request.headers.get("x-amz-target", ".").rsplit(".", 1)[1], request.body, request.host)
        return Answer(200, [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(data)))], data)

    def __call__(self, environ, start_response):
        return app(environ, start_response)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--server", choices=SERVERS, default="emulator")
    args = parser.parse_args()
    host, port = "127.0.0.1", args.port
    if args.server == "emulator":
        from emulator.server.build import Options, http_limits
        from emulator.server.http import HttpServer

        HttpServer(OnTheEmulatorsServer(), host, port, http_limits(Options())).serve_forever()
    elif args.server == "werkzeug":
        from werkzeug.serving import run_simple

        run_simple(host, port, app, threaded=True)
    elif args.server == "waitress":
        import waitress

        waitress.serve(app, host=host, port=port, threads=8)
    elif args.server == "cheroot":
        from cheroot import wsgi

        wsgi.Server((host, port), app).safe_start()
    elif args.server == "gunicorn":  # one process, threads: the emulator's state is in memory
        command = "-m gunicorn -k gthread --threads 8 -w 1 -b {address} --chdir {here} floor_app:app"
        os.execv(sys.executable, [sys.executable, *command.format(address=f"{host}:{port}", here=HERE).split()])
    elif args.server == "uvicorn":
        import uvicorn

        uvicorn.run(
            asgi_app, host=host, port=port, loop="uvloop", http="httptools", log_level="warning", access_log=False
        )
    else:
        command = "-m granian --interface wsgi --workers 1 --log-level warning --host {host} --port {port}"
        command += " --working-dir {here} floor_app:app"
        os.execv(sys.executable, [sys.executable, *command.format(host=host, port=port, here=HERE).split()])


if __name__ == "__main__":
    main()
