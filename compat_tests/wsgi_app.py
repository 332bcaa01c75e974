"""The emulator's WSGI app (EmulatorApp, built without its own server) for a WSGI server
the docs name to serve: `app`, built at import from SQS_WSGI_TEST_OPTIONS (JSON of
emulator.server.build.Options' fields). `python -m compat_tests.wsgi_app PORT` serves
it with werkzeug's development server (werkzeug.serving.run_simple, threaded)."""

import json
import os
import sys

from werkzeug.serving import run_simple

from emulator.server.build import Options, build

app = build(Options(**json.loads(os.environ.get("SQS_WSGI_TEST_OPTIONS", "{}"))), listen=False).app

if __name__ == "__main__":
    run_simple("127.0.0.1", int(sys.argv[1]), app, threaded=True)
