"""GET /_emulator/ui: the dashboard, static files served from the package (no build step, no CDN)."""

import mimetypes
from importlib import resources

from werkzeug.wrappers import Request, Response

from emulator.server.admin.routes import AdminError

STATIC = resources.files("emulator.server.admin") / "static"


def serve(request: Request, name: str) -> Response:
    if request.method != "GET":
        raise AdminError(405, f"{request.method} is not allowed on {request.path}")
    if not name:
        if not request.path.endswith("/"):  # relative links in the page resolve under ui/
            return Response(status=308, headers={"Location": request.path + "/"})
        name = "index.html"
    if "/" in name or name.startswith("."):
        raise AdminError(404, f"no dashboard file {name}")
    file = STATIC / name
    if not file.is_file():
        raise AdminError(404, f"no dashboard file {name}")
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    response = Response(file.read_bytes(), content_type=f"{content_type}; charset=utf-8")
    response.headers["Cache-Control"] = "no-cache"
    return response
