"""A local Amazon SQS emulator.

`from emulator import serve` runs it in-process (emulator/testing/embedded.py); the
import is lazy so that `import emulator` stays light and cycle-free.
"""

__all__ = ["serve"]


def __getattr__(name):
    if name == "serve":
        from emulator.testing.embedded import serve

        return serve
    raise AttributeError(f"module 'emulator' has no attribute {name!r}")
