"""The emulator inside the user's own process: `serve()` (embedded.py). Built on
emulator/server/; nothing in the emulator depends on it. The pytest plugin on it is the
top-level module pytest_sqs_emulator (a name no project's own package takes).
"""
