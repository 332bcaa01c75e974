"""The app's own cost: the WSGI callable called in-process (no HTTP, no sockets),
per operation and both protocols, in microseconds of CPU.

    python3 scripts/bench_inprocess.py [-n 2000] [--rounds 3] [--profile OP]

Prints, per round, us per SendMessage, per message in SendMessageBatch(10) and
per message in ReceiveMessage(10)+DeleteMessageBatch(10), for JSON and query.
"""

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from urllib.parse import urlencode

from emulator.server.build import Options, build

HOST = "localhost:9324"
BODY = "x" * 256


def environ(body: bytes, headers: dict) -> dict:
    """A request's environ as waitress (emulator/server/http.py) hands it to the app."""
    env = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "9324",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": HOST,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,  # waitress's: the input ends with the body, werkzeug reads it unwrapped
        "SERVER_SOFTWARE": "waitress",
        "HTTP_USER_AGENT": "Boto3/1.40.0 md/Botocore#1.40.0",
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        env[key if key in ("CONTENT_TYPE",) else f"HTTP_{key}"] = value
    return env


class Client:
    def __init__(self, app, wire: str):
        self.app = app
        self.wire = wire

    def call(self, op: str, params: dict) -> bytes:
        if self.wire == "json":
            body = json.dumps(params).encode()
            headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"AmazonSQS.{op}"}
        else:
            body = urlencode({"Action": op, "Version": "2012-11-05", **_flat(params)}).encode()
            headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
        status = []
        chunks = self.app(environ(body, headers), lambda s, h, exc=None: status.append(s))
        out = b"".join(chunks)
        if not status[0].startswith("200"):
            raise RuntimeError(f"{op}: {status[0]} {out[:300]!r}")
        return out

    def handles(self, out: bytes) -> list[str]:
        if self.wire == "json":
            return [m["ReceiptHandle"] for m in json.loads(out).get("Messages", [])]
        text = out.decode()
        return [part.split("</ReceiptHandle>")[0] for part in text.split("<ReceiptHandle>")[1:]]


def _flat(params: dict) -> dict:
    """The query form of the few params this script sends."""
    flat: dict = {}
    for key, value in params.items():
        if key == "Entries":
            for i, entry in enumerate(value, 1):
                for k, v in entry.items():
                    flat[f"{_entry_prefix(params)}.{i}.{k}"] = v
        else:
            flat[key] = value
    return flat


def _entry_prefix(params: dict) -> str:
    return "SendMessageBatchRequestEntry" if "MessageBody" in params["Entries"][0] else "DeleteMessageBatchRequestEntry"


def run(client: Client, n: int) -> dict:
    client.call("CreateQueue", {"QueueName": f"bench-{client.wire}"})
    url = f"http://{HOST}/000000000000/bench-{client.wire}"
    figures = {}
    cpu = time.process_time
    started = cpu()
    for _ in range(n):
        client.call("SendMessage", {"QueueUrl": url, "MessageBody": BODY})
    figures["send"] = (cpu() - started) / n * 1e6
    batches = n // 10
    entries = [{"Id": str(i), "MessageBody": BODY} for i in range(10)]
    started = cpu()
    for _ in range(batches):
        client.call("SendMessageBatch", {"QueueUrl": url, "Entries": entries})
    figures["batch/msg"] = (cpu() - started) / (batches * 10) * 1e6
    got = 0
    started = cpu()
    while got < n + batches * 10:
        out = client.call("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10})
        handles = client.handles(out)
        if not handles:
            break
        got += len(handles)
        client.call(
            "DeleteMessageBatch",
            {"QueueUrl": url, "Entries": [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]},
        )
    figures["recv+del/msg"] = (cpu() - started) / max(got, 1) * 1e6
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--profile", choices=("tottime", "cumtime"), help="cProfile one round; print the top entries by this"
    )
    parser.add_argument("--wire", choices=("json", "query"), default="json", help="the protocol --profile runs")
    args = parser.parse_args()
    emulator = build(Options(port=0, clock="manual"), listen=False)
    app = emulator.app
    clients = [Client(app, "json"), Client(app, "query")]
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(clients[0] if args.wire == "json" else clients[1], args.n)
        profiler.disable()
        pstats.Stats(profiler).sort_stats(args.profile).print_stats(40)
        return
    for round_ in range(args.rounds):
        for client in clients:
            figures = run(client, args.n)
            shown = "  ".join(f"{k} {v:6.1f}" for k, v in figures.items())
            print(f"round {round_ + 1} {client.wire:5} {shown}", flush=True)
    emulator.close()


if __name__ == "__main__":
    main()
