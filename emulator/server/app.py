"""The WSGI app: a thin router from HTTP to the protocol and API layers."""

import logging
import time
import uuid
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from emulator import api, protocol
from emulator.errors import SqsError
from emulator.server import admin
from emulator.server.admin.metrics import Metrics
from emulator.server.identity import identify
from emulator.store import MEMORY, Store

log = logging.getLogger("emulator.requests")


class EmulatorApp:
    def __init__(
        self,
        broker,
        account_id: str,
        region: str,
        hostname: str | None = None,
        store: Store = MEMORY,
        auto_create: bool = False,
    ):
        self.broker = broker
        self.store = store
        self.auto_create = auto_create
        self.metrics = Metrics(broker)
        self.account_id = account_id
        self.region = region
        self.hostname = hostname
        self._hostname_has_port = hostname is not None and _port(hostname) is not None

    def __call__(self, environ, start_response):
        request = Request(environ)
        try:
            if admin.claims(request.path):
                return admin.handle(request, self)(environ, start_response)
            # An SQS answer is a status, headers and one body, all set: werkzeug's full
            # WSGI step (header copies, Location fixing) would cost ~10% of a SendMessage.
            response = self.handle(request)
            start_response(response.status, response.headers.to_wsgi_list())
            return [response.get_data()]
        finally:
            # werkzeug leaves the request in its environ, a cycle that would keep the body until a full collection.
            environ.pop("werkzeug.request", None)

    def handle(self, request: Request) -> Response:
        if admin.claims(request.path):
            return admin.handle(request, self)
        started = time.perf_counter()
        request_id = str(uuid.uuid4())
        wire = protocol.detect(request)
        operation = "?"
        try:
            operation, params = protocol.parse(wire, request)
            identity = identify(request, self.account_id, self.region)
            ctx = api.Context(
                broker=self.broker,
                account=identity.account,
                region=identity.region,
                base_url=self.base_url(request),
                default_region=self.region,
                sender_id=identity.account,  # what AWS shows for root credentials
                trace_header=request.headers.get("X-Amzn-Trace-Id"),
                auto_create=self.auto_create,
            )
            result = api.dispatch(ctx, operation, params)
            self.store.durable()  # --sync always: the reply waits for its change's commit
            response = protocol.serialize_result(wire, operation, result, request_id)
            outcome = "ok"
        except SqsError as error:
            response = protocol.serialize_error(wire, error, request_id)
            outcome = error.name
        except Exception:
            # A bug of ours: answer as AWS does for an internal failure, keep serving.
            log.exception("internal error in %s", operation)
            failure = SqsError("InternalFailure", "The request processing has failed because of an unknown error.")
            response = protocol.serialize_error(wire, failure, request_id)
            outcome = failure.name
        elapsed = time.perf_counter() - started
        self.metrics.observe(operation, outcome, elapsed)
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s %s %s %s %d %.1fms client=%s",
                request.method,
                request.path,
                wire,
                operation,
                response.status_code,
                elapsed * 1000,
                _client(request.user_agent.string),
            )
        return response

    def base_url(self, request: Request) -> str:
        """scheme://host[:port] for queue URLs: the request's Host header, or --hostname.

        A --hostname without a port keeps the port the client addressed, so
        URLs survive port mappings either way.
        """
        host = request.host  # not host_url, whose IRI decoding costs ~50 us
        if self.hostname:
            port = _port(host)
            host = self.hostname if self._hostname_has_port or port is None else f"{self.hostname}:{port}"
        return f"{request.scheme}://{host}"


def _client(agent: str) -> str:
    """The client's product token for the request log (e.g. Boto3/1.43.11, aws-cli/1.45.11).
    Browser-style agents all start with Mozilla/5.0: kombu's pycurl client, or a real
    browser (the dashboard), told apart by what follows."""
    token = agent.split(" ", 1)[0] or "-"
    if token.startswith("Mozilla/"):
        return "pycurl/-" if "pycurl" in agent else "browser/-"
    return token


def _port(host: str) -> int | None:
    """The port of a host[:port] (None when absent or not a number)."""
    try:
        return urlsplit(f"//{host}").port
    except ValueError:
        return None
