"""The `tracemalloc` figure: N 256-byte messages sent in SendMessageBatch calls of 10 through
the app in-process; tracemalloc's growth per message, with the lines that allocated it.

    python -m bench.figures.traced_memory -n 20000     # prints the figure as JSON
"""

from __future__ import annotations

import argparse
import gc
import json
import tracemalloc

from bench.in_process import BODY, App


def per_message(n: int, top: int = 8) -> dict:
    app = App()
    url = app.call("CreateQueue", QueueName="memory")["QueueUrl"]
    app.call("SendMessage", QueueUrl=url, MessageBody="warm")  # first-use allocations out of the figure
    entries = [{"Id": str(j), "MessageBody": BODY} for j in range(10)]
    gc.collect()
    tracemalloc.start(1)
    base = tracemalloc.take_snapshot()
    for _ in range(0, n, 10):
        app.call("SendMessageBatch", QueueUrl=url, Entries=entries)
    gc.collect()
    diff = tracemalloc.take_snapshot().compare_to(base, "lineno")
    tracemalloc.stop()
    app.close()
    return {
        "bytes_per_msg": sum(stat.size_diff for stat in diff) / n,
        "messages": n,
        "by_line": [
            {"bytes_per_msg": s.size_diff / n, "objects_per_msg": s.count_diff / n, "where": str(s.traceback)}
            for s in diff[:top]
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20_000, help="messages (a multiple of 10)")
    print(json.dumps(per_message(parser.parse_args().n)))


if __name__ == "__main__":
    main()
