"""Event source mappings: Lambda's way of consuming a queue, run against the engine.

A mapping polls one queue and invokes a target (a Python callable, an HTTP
endpoint such as a Lambda container's runtime interface emulator, or a command)
with batches in Lambda's SQS event shape, and deletes what the target handled,
as Lambda's event source mappings do.

    spec.py       a mapping's settings: names, defaults, AWS's ranges, validation
    filters.py    Lambda's event filtering patterns
    records.py    a received message as a Lambda SQS record
    targets.py    what a mapping invokes, and how it answers
    responses.py  what an answer means: all done, some items failed, or the batch failed
    poller.py     the thread that gathers batches on the queue's clock and the invocations
    registry.py   the server's mappings: create, change, delete, list, stop
"""
