"""Looking into a running emulator from outside, over its admin API: an HTTP
client of it (client.py) and the inspector commands `sqs-emulator
queues|peek|advance|reset` (cli.py).

A leaf: it talks HTTP only, so nothing of the server is imported here, and only
the command line's entry (and `serve()`, for the client) imports it.
"""
