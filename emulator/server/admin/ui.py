"""The dashboard: static files served from the package (no build step, no CDN), and the
redirects that lead a browser to it from `/` and `/_emulator/`."""

import logging
import mimetypes
from importlib import resources

from werkzeug.routing import Rule
from werkzeug.wrappers import Request, Response

from emulator.protocol import HttpRequest
from emulator.server.admin.headers import secured
from emulator.server.admin.routes import AdminError

log = logging.getLogger(__name__)
STATIC = resources.files("emulator.server.admin") / "static"
HOME = "/_emulator/ui/"
# The files are read when asked for, so a reinstall of the package under the running server
# (pip install . then pip install -e ., say) takes them away while the code it loaded runs on.
GONE = (
    f"the dashboard's files are gone from {STATIC}: the package was reinstalled or removed under "
    "the running server; restart sqs-emulator"
)


def wanted_by_browser(request: Request | HttpRequest) -> bool:
    """A browser opening `/`: a GET with no SQS action that names text/html in Accept.

    SDKs and curl send */* or no Accept (a wildcard is not asking for HTML), and
    every SQS request names its action (query string, form body, or X-Amz-Target),
    so they keep the query protocol's MissingParameter answer."""
    return (
        request.path == "/"
        and request.method in ("GET", "HEAD")
        and "Action" not in request.args
        and "x-amz-target" not in request.headers
        and any(value == "text/html" and quality > 0 for value, quality in request.accept_mimetypes)
    )


def redirect() -> Response:
    # 302, not 301: a browser must not remember it, since / is the SQS endpoint too.
    return secured(Response(status=302, headers={"Location": HOME, "Cache-Control": "no-store"}))


def home(request: Request, app) -> Response:
    """Redirect to the dashboard, /_emulator/ui/ (so does a browser's GET of the SQS endpoint, /)."""
    return redirect()


def serve(request: Request, app, name: str = "") -> Response:
    """The dashboard, /_emulator/ui/, and its files: see docs/dashboard.md.

    Open without the admin token under --require-auth (the files hold no data): the page
    asks for the token and sends it with each request it makes.
    """
    if not name:
        if not request.path.endswith("/"):  # relative links in the page resolve under ui/
            return Response(status=308, headers={"Location": request.path + "/"})
        name = "index.html"
    if "/" in name or name.startswith("."):
        raise AdminError(404, f"no dashboard file {name}")
    file = STATIC / name
    if not file.is_file():
        if not (STATIC / "index.html").is_file():
            log.error(GONE)
            raise AdminError(503, GONE)
        raise AdminError(404, f"no dashboard file {name}")
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    response = Response(file.read_bytes(), content_type=f"{content_type}; charset=utf-8")
    response.headers["Cache-Control"] = "no-cache"
    return response


RULES = [
    Rule("/_emulator/", methods=["GET"], endpoint=home),
    Rule("/_emulator/ui", methods=["GET"], endpoint=serve),
    Rule("/_emulator/ui/<path:name>", methods=["GET"], endpoint=serve),
]
