"""The WSGI app: a thin router from HTTP to the protocol and API layers."""

import logging
import time
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from emulator import api, protocol
from emulator.errors import SqsError
from emulator.events.registry import EventSources
from emulator.protocol import Answer
from emulator.server import admin, compat
from emulator.server.admin import token, ui
from emulator.server.admin.metrics import Metrics
from emulator.server.auth import Verifier
from emulator.server.failures import log_internal_error
from emulator.server.guard import Guard, Refusal
from emulator.server.identity import identify
from emulator.server.sqs_request import SqsRequest
from emulator.store import MEMORY, Store

log = logging.getLogger("emulator.requests")

# Methods an SQS request comes with (the query protocol runs actions from a GET too); any
# other (HEAD, OPTIONS for CORS, ...) takes werkzeug's whole way, as the admin API does,
# and outside the admin API and other emulators' paths runs no action (_no_operation).
SQS_METHODS = frozenset({"GET", "POST"})
# Operations that never wait (a ReceiveMessage may, for its long poll): the HTTP server may
# run them on its event loop's thread. No slow ones (queue deletes, purges, moves) either.
AT_ONCE = frozenset(
    f"AmazonSQS.{name}"
    for name in (
        "SendMessage",
        "SendMessageBatch",
        "DeleteMessage",
        "DeleteMessageBatch",
        "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch",
        "GetQueueUrl",
        "GetQueueAttributes",
    )
)


class EmulatorApp:
    def __init__(
        self,
        broker,
        account_id: str,
        region: str,
        hostname: str | None = None,
        store: Store = MEMORY,
        auto_create: bool = False,
        event_sources: EventSources | None = None,
        queue_urls: str = "aws",
        guard: Guard | None = None,
        verifier: Verifier | None = None,
        admin_token: str | None = None,
    ):
        self.guard = guard or Guard(hostname)
        self.verifier = verifier  # --require-auth: every SQS request is signed by a configured key
        self.admin_token = admin_token  # with it, the admin API and dashboard need this token
        self.broker = broker
        self.store = store
        self.auto_create = auto_create
        self.queue_urls = queue_urls
        self.event_sources = event_sources if event_sources is not None else EventSources(broker.clock)
        self.metrics = Metrics(broker, self.event_sources)
        self.account_id = account_id
        self.region = region
        self.hostname = hostname
        self._hostname_has_port = hostname is not None and _port(hostname) is not None

    def __call__(self, environ, start_response):
        request = SqsRequest(environ)
        path = request.path
        if request.method not in SQS_METHODS or admin.claims(path) or compat.claims(path):
            return self._call_werkzeug(environ, start_response)
        # An SQS request: its answer is a status, headers and one body, all set, sent as they
        # are (werkzeug's Request, Response and WSGI step cost ~20 us of a SendMessage).
        result = self.handle_fast(request)
        if isinstance(result, Response):  # the dashboard's redirect
            self.guard.add_cors(request, result)
            return _send(result, start_response)
        start_response(result.status_line, result.headers + self.guard.cors_headers(request))
        return [result.body]

    def answers_at_once(self, path: str, headers: dict[str, str]) -> bool:
        """Whether a request (its path and its headers, as waitress keeps them) is sure to be
        answered without waiting: a JSON-protocol operation of AT_ONCE to `/`, in memory
        (a store may make a reply wait for its commit)."""
        return path == "/" and headers.get("X_AMZ_TARGET") in AT_ONCE and self.store is MEMORY

    def handle_fast(self, request: SqsRequest) -> Answer | Response:
        """What handle() does for a GET or POST outside the admin and other emulators' paths."""
        refusal = self.guard.refusal(request, False)
        if refusal is not None:
            return self._refuse(request, False, refusal)
        if request.method == "GET" and ui.wanted_by_browser(request):  # a person who typed the endpoint into a browser
            return ui.redirect()
        return self.handle_sqs(request)

    def _call_werkzeug(self, environ, start_response):
        request = Request(environ)
        try:
            response = self.handle(request)
            if request.method == "HEAD" or admin.claims(request.path):  # files, HEAD: werkzeug's whole WSGI step
                return response(environ, start_response)
            return _send(response, start_response)
        finally:
            # werkzeug leaves the request in its environ, a cycle that would keep the body until a full collection.
            environ.pop("werkzeug.request", None)

    def handle(self, request: Request) -> Response:
        for_admin = admin.claims(request.path)
        refusal = self.guard.refusal(request, for_admin)
        if refusal is not None:
            refused = self._refuse(request, for_admin, refusal)
            return refused if isinstance(refused, Response) else refused.response()
        response = self.guard.preflight(request)
        if response is None:
            # Other emulators' paths are guarded as SQS requests are (an SDK may call them)
            # and, with --require-auth, need the admin token as the admin API does.
            if for_admin or compat.claims(request.path):
                if self.admin_token is not None and not token.admits(request, self.admin_token):
                    response = token.challenge(request, self.admin_token)
                else:
                    response = admin.handle(request, self) if for_admin else compat.handle(request, self)
            elif ui.wanted_by_browser(request):  # a person who typed the endpoint into a browser
                response = ui.redirect()
            elif request.method not in SQS_METHODS:
                response = _no_operation(request).response()
            else:
                response = self.handle_sqs(request).response()
        self.guard.add_cors(request, response)
        return response

    def _refuse(self, request: Request, for_admin: bool, refusal: Refusal) -> Response | Answer:
        if for_admin:
            return admin.error(refusal.status, refusal.message)
        error = SqsError("AccessDenied", refusal.message)
        return protocol.serialize_error(protocol.detect(request), error, api.new_uuid())

    def _caller(self, request: Request) -> str | None:
        """With --require-auth, the account of the key that signed the request (SqsError if none
        did); the dashboard, unsigned but with the admin token, acts as the default account."""
        if self.verifier is None:
            return None
        if self.admin_token is not None and token.admits(request, self.admin_token):
            return self.account_id
        return self.verifier.verify(request).account

    def handle_sqs(self, request: Request) -> Answer:
        started = time.perf_counter()
        request_id = api.new_uuid()
        wire = protocol.detect(request)
        operation = "?"
        try:
            caller = self._caller(request)
            operation, params = protocol.parse(wire, request)
            identity = identify(request, self.account_id, self.region)
            ctx = api.Context(
                broker=self.broker,
                account=caller or identity.account,
                region=identity.region,
                base_url=self.base_url(request),
                default_region=self.region,
                sender_id=caller or identity.account,  # what AWS shows for root credentials
                trace_header=request.environ.get("HTTP_X_AMZN_TRACE_ID"),
                auto_create=self.auto_create,
                url_form=self.queue_urls,
                action=operation if caller else None,
            )
            result = api.dispatch(ctx, operation, params)
            self.store.durable()  # --sync always: the reply waits for its change's commit
            response = protocol.serialize_result(wire, operation, result, request_id)
            outcome = "ok"
        except SqsError as error:
            response = protocol.serialize_error(wire, error, request_id)
            outcome = error.name
        except Exception as exc:
            # A bug of ours: answer as AWS does for an internal failure, keep serving.
            log_internal_error(log, f"in {operation}", exc)
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
                response.status,
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


def _no_operation(request: Request) -> Answer:
    """AWS's answer to a method that carries no SQS action (HEAD, PUT, DELETE, ...): SQS takes
    query requests "with the HTTP verb GET or POST" (SQS Developer Guide, sqs-making-api-requests),
    and AWS answers a request in which it finds no operation 404 UnknownOperationException (recorded
    for a queue URL without an action, docs/sqs-reference.md section 3). Nothing runs."""
    return protocol.serialize_error(protocol.detect(request), SqsError("UnknownOperationException", ""), api.new_uuid())


def _send(response: Response, start_response):
    # Its status, headers and body, all set: werkzeug's full WSGI step (header copies,
    # Location fixing) is for files and HEAD.
    start_response(response.status, response.headers.to_wsgi_list())
    return [response.get_data()]


def _client(agent: str) -> str:
    """The client's product token for the request log (e.g. Boto3/1.43.11, aws-cli/1.45.11).
    Browser-style agents all start with Mozilla/5.0: kombu's pycurl client, or a real
    browser (the dashboard), told apart by what follows. Symfony HttpClient (under
    AsyncAws, Symfony Messenger's SQS client) sends "Symfony HttpClient/Native"."""
    token = agent.split(" ", 1)[0] or "-"
    if token.startswith("Mozilla/"):
        return "pycurl/-" if "pycurl" in agent else "browser/-"
    if token == "Symfony":
        return "symfony/-"
    return token


def _port(host: str) -> int | None:
    """The port of a host[:port] (None when absent or not a number)."""
    try:
        return urlsplit(f"//{host}").port
    except ValueError:
        return None
