"""One phase of the store_app figure in one mode: the WSGI app called in process (no HTTP; issue
32 item 6) on a fresh emulator (and a fresh data dir unless in memory), timed from the first call
until close() has written everything; messages per second and process CPU per message, the
store's writer thread included. bench/figures/store.py runs every phase in every mode, rounds
alternated; alone, for a profiler:

    python -m bench.figures.store_app interval send1 [-n 20000] [--threads 32]   # JSON on stdout
    python -m bench.figures.store_app interval send1 --profile tottime           # cProfile of the caller
    py-spy record -r 250 -f raw -o out -- python -m bench.figures.store_app interval batch1

MODE is memory, interval or always; PHASE one of bench/figures/store.py's APP_PHASES.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable

from bench.figures.store import APP_MODES, APP_PHASES
from bench.in_process import BODY, HOST, Client
from emulator.server.build import Emulator, Options, build


def phase(mode: str, name: str, n: int, threads: int, profile: str | None = None) -> dict:
    """`n` messages sent by APP_PHASES[name]'s callers through the app of a fresh emulator."""
    operation, per_call, callers = APP_PHASES[name]
    in_flight = threads if callers == 0 else 0  # an event loop's entry: one thread, `threads` requests
    callers = threads if callers is None else max(callers, 1)
    if profile and callers > 1:
        raise SystemExit("--profile takes a phase of one caller")
    data_dir = None if mode == "memory" else tempfile.mkdtemp(prefix=f"sqs-bench-app-{mode}-")
    emulator = build(Options(data_dir=data_dir, sync="interval" if mode == "memory" else mode), listen=False)
    client = Client(emulator.app, "json")
    client.call("CreateQueue", {"QueueName": "app"})
    url = f"http://{HOST}/000000000000/app"
    params: dict = {"QueueUrl": url, "MessageBody": BODY}
    if per_call > 1:
        params = {"QueueUrl": url, "Entries": [{"Id": str(i), "MessageBody": BODY} for i in range(per_call)]}
    calls = n // per_call // callers
    start = threading.Barrier(callers + 1)
    request_cpu: list[float] = []  # each caller's own CPU: the rest of the process's is the writer's
    profiler = cProfile.Profile(time.thread_time) if profile else None  # the request's path, its thread's CPU

    failed: list[Exception] = []  # a caller's error fails the phase (a checkout without Store.when_durable)

    def caller() -> None:
        start.wait()
        started = time.thread_time()
        if profiler is not None:
            profiler.enable()
        try:
            if in_flight:
                event_loop(emulator, client, operation, params, calls, in_flight)
            else:
                for _ in range(calls):
                    client.call(operation, params)
        except Exception as e:
            failed.append(e)
        if profiler is not None:
            profiler.disable()
        request_cpu.append(time.thread_time() - started)

    workers = [threading.Thread(target=caller) for _ in range(callers)]
    for worker in workers:
        worker.start()
    cpu, wall = time.process_time(), time.perf_counter()
    start.wait()
    for worker in workers:
        worker.join()
    answered = time.perf_counter()
    emulator.close()  # the writer has caught up: everything sent is written
    if failed:
        raise failed[0]
    cpu, wall, answered = time.process_time() - cpu, time.perf_counter() - wall, answered - wall
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(profile or "tottime").print_stats(30)
    if data_dir is not None:
        shutil.rmtree(data_dir, ignore_errors=True)
    sent = calls * callers * per_call
    return {
        "msgs_per_s": sent / wall,
        "cpu_us": cpu / sent * 1e6,
        "request_us": sum(request_cpu) / sent * 1e6,  # the callers' threads
        "other_us": (cpu - sum(request_cpu)) / sent * 1e6,  # the writer's (and the scheduler's)
        "answered_s": answered,
        "wall_s": wall,
        "messages": sent,
    }


def event_loop(emulator: Emulator, client: Client, operation: str, params: dict, calls: int, in_flight: int) -> None:
    """What an event loop does with `in_flight` connections: the next request of a connection
    once its reply may go, which a commit tells from the writer's thread."""
    store = emulator.store
    ready: queue.SimpleQueue = queue.SimpleQueue()

    def reply(connection: int) -> Callable[[Exception | None], None]:
        return lambda error: ready.put(connection)

    for connection in range(in_flight):
        ready.put(connection)
    for _ in range(calls):
        connection = ready.get()
        outcome = client.answer(operation, params)  # an Answer, or (--sync always) a Pending commit
        waits = store.when_durable(reply(connection))
        if hasattr(outcome, "resume"):
            outcome.resume(None)  # the answer, as the server's driver builds it once told
        if not waits:
            ready.put(connection)
    for _ in range(in_flight):  # every reply told
        ready.get()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=APP_MODES)
    parser.add_argument("phase", choices=APP_PHASES)
    parser.add_argument("-n", type=int, default=20_000, help="messages")
    parser.add_argument(
        "--threads", type=int, default=32, help="callers of sendN, batchN; requests in flight of sendA, batchA"
    )
    parser.add_argument("--profile", choices=("tottime", "cumtime"), help="cProfile a one-caller phase's thread")
    args = parser.parse_args()
    print(json.dumps(phase(args.mode, args.phase, args.n, args.threads, args.profile)))


if __name__ == "__main__":
    main()
