"""The engine alone: CPU seconds per send+receive+delete triple on the engine's `Queue`, one
thread, in batches of 10 (as SendMessageBatch, ReceiveMessage and DeleteMessageBatch call it,
message objects built in the loop) and one at a time, beside `queue.Queue` put+get. A pyperf
program (`python -m bench.figures.engine --fast`); `python -m bench` shows triples per second.
"""

from __future__ import annotations

import queue as stdlib_queue
import time

import pyperf

from bench.in_process import engine_message
from emulator.api.ids import new_uuid_bytes
from emulator.engine.broker import Broker
from emulator.engine.queue import Queue


def batches_of_ten(loops: int, queue: Queue) -> float:
    """One loop: ten sent, received and deleted (inner_loops=10: the value is per triple)."""
    ids = [new_uuid_bytes() for _ in range(loops * 10)]
    started = time.process_time()
    for i in range(0, loops * 10, 10):
        queue.send([(engine_message(ids[j]), 0) for j in range(i, i + 10)])
        queue.delete_batch([delivery.receipt_handle for delivery in queue.receive(10, 30, 0)])
    return time.process_time() - started


def one_at_a_time(loops: int, queue: Queue) -> float:
    ids = [new_uuid_bytes() for _ in range(loops)]
    started = time.process_time()
    for i in range(loops):
        queue.send([(engine_message(ids[i]), 0)])
        (delivery,) = queue.receive(1, 30, 0)
        queue.delete(delivery.receipt_handle)
    return time.process_time() - started


def stdlib_put_get(loops: int, queue: stdlib_queue.Queue) -> float:
    started = time.process_time()
    for i in range(loops):
        queue.put(i)
        queue.get()
    return time.process_time() - started


def main() -> None:
    runner = pyperf.Runner(program_args=("-m", "bench.figures.engine"))
    runner.metadata["description"] = "CPU seconds per send+receive+delete triple on the engine's Queue"
    queue, _ = Broker().create_queue("000000000000", "us-east-1", "triples", {})
    runner.bench_time_func("triple_batch10", batches_of_ten, queue, inner_loops=10)
    runner.bench_time_func("triple_single", one_at_a_time, queue)
    runner.bench_time_func("queue_Queue_put_get", stdlib_put_get, stdlib_queue.Queue())


if __name__ == "__main__":
    main()
