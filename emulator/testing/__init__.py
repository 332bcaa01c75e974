"""The emulator inside the user's own process: `serve()` (embedded.py) and the
pytest plugin on it (pytest_plugin.py). Built on emulator/server/; nothing in
the emulator depends on it.

Empty on purpose: the plugin loads in every pytest session once the package is
installed, and the server is imported only when a test asks for one.
"""
