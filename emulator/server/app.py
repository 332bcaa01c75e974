"""The app: a thin router from HTTP to the protocol and API layers.

One SQS answer: `answer(request)`, sans-IO, answers an SQS request at once, or hands
back a Pending (pending.py) when it has to wait (a long poll, a commit under --sync
always) or is slow (a purge, a queue's deletion). Two drivers run it (drivers.py):
the HTTP server's on its event loop, and the calling thread's for the WSGI app
(`EmulatorApp.__call__`: any WSGI server, werkzeug's test client, the in-process
benchmark). The admin API, other emulators' paths and methods other than GET and
POST take werkzeug's whole way (`handle`); `takes_werkzeug` decides, on the path
every later check sees (werkzeug's and the HttpRequest's: leading slashes as one).
"""

import logging
import time
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from emulator import api, protocol
from emulator.errors import SqsError
from emulator.events.registry import EventSources
from emulator.protocol import Answer, HttpRequest
from emulator.server import admin, auth, compat
from emulator.server.admin import token, ui
from emulator.server.admin.metrics import Metrics
from emulator.server.auth import Verifier
from emulator.server.drivers import on_thread
from emulator.server.failures import log_internal_error
from emulator.server.guard import Guard, Refusal
from emulator.server.identity import Identity, identify
from emulator.server.pending import Pending
from emulator.store import MEMORY, Store

log = logging.getLogger("emulator.requests")

# Methods an SQS request comes with (the query protocol runs actions from a GET too); any
# other (HEAD, OPTIONS for CORS, ...) takes werkzeug's whole way, as the admin API does,
# and outside the admin API and other emulators' paths runs no action (_no_operation).
SQS_METHODS = frozenset({"GET", "POST"})
# Operations whose work grows with a queue's messages: off the event loop, on a worker thread.
SLOW = frozenset({"DeleteQueue", "PurgeQueue"})
INTERNAL_FAILURE = "The request processing has failed because of an unknown error."


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

    # -- the WSGI door ------------------------------------------------------------

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD", "GET").upper()
        if self.takes_werkzeug(method, environ.get("PATH_INFO") or "/"):
            return self._call_werkzeug(environ, start_response)
        answer = on_thread(self.answer(HttpRequest.from_environ(environ, _body(environ))))
        start_response(answer.status_line, answer.headers)
        return [answer.body]

    def _call_werkzeug(self, environ, start_response):
        request = Request(environ)
        try:
            response = self.handle(request)
            if request.method == "HEAD" or admin.claims(request.path):  # files, HEAD: werkzeug's whole WSGI step
                return response(environ, start_response)
            return send(response, start_response)
        finally:
            # werkzeug leaves the request in its environ, a cycle that would keep the body until a full collection.
            environ.pop("werkzeug.request", None)

    def handle(self, request: Request) -> Response:
        """werkzeug's way: the admin API, other emulators' paths, CORS preflights, other methods."""
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
            else:  # a method other than GET and POST (takes_werkzeug sends those two to answer())
                response = _no_operation(request).response()
        self.guard.add_cors(request, response)
        return response

    # -- the SQS answer -----------------------------------------------------------

    def takes_werkzeug(self, method: str, path: str) -> bool:
        """Whether a request takes werkzeug's whole way (the WSGI app) rather than answer().
        Routed on the path as werkzeug's Request and HttpRequest.from_environ read it (a
        WSGI server such as gunicorn keeps "//" in PATH_INFO), so a request routed as SQS
        is SQS to every later check, and one routed to werkzeug is admin to every one."""
        path = "/" + path.lstrip("/")
        return method not in SQS_METHODS or admin.claims(path) or compat.claims(path)

    @property
    def refuses_unsigned(self) -> bool:
        """Whether refused_early() refuses anything: with --require-auth."""
        return self.verifier is not None

    def refused_early(self, request: HttpRequest) -> Answer | None:
        """Under --require-auth, the answer to an SQS request that carries no signature at all,
        from its head alone: its body is never read (nor held)."""
        if self.verifier is None or self.takes_werkzeug(request.method, request.path):
            return None
        if auth.claimed_by_head(request):  # a signature, or the admin token: checked with the body
            return None
        outcome = self.answer(request)
        assert isinstance(outcome, Answer)  # refused by the caller check, before anything waits
        return outcome

    def answer(self, request: HttpRequest) -> Answer | Pending:
        """An SQS request's answer, CORS headers included (a GET or POST outside the admin
        and other emulators' paths), or a Pending that a driver waits for (drivers.py)."""
        refusal = self.guard.refusal(request, False)
        if refusal is not None:
            answer = self._refuse(request, False, refusal)
        elif request.method == "GET" and ui.wanted_by_browser(request):  # a person who typed the endpoint
            redirect = ui.redirect()
            answer = Answer(redirect.status_code, redirect.headers.to_wsgi_list(), redirect.get_data())
        else:
            return self.handle_sqs(request)
        return with_cors(answer, self.guard.cors_headers(request))  # type: ignore[arg-type]

    def _refuse(self, request, for_admin: bool, refusal: Refusal) -> Response | Answer:
        if for_admin:
            return admin.error(refusal.status, refusal.message)
        error = SqsError("AccessDenied", refusal.message)
        sqs = request if isinstance(request, HttpRequest) else HttpRequest.from_environ(request.environ, b"")
        return protocol.serialize_error(protocol.detect(sqs), error, api.new_request_id())

    def _caller(self, request: HttpRequest, named: Identity) -> str | None:
        """The caller's account where it is known, whose requests to other accounts' queues
        their Policy decides (api/access.py): with --require-auth, the account of the key that
        signed the request (SqsError if none did), the dashboard's (unsigned, with the admin
        token itself) the default account; without it, the account a 12-digit access key names."""
        if self.verifier is None:
            return named.account if named.named else None
        if self.admin_token is not None and token.carried(request, self.admin_token):
            return self.account_id
        return self.verifier.verify(request).account

    def handle_sqs(self, request: HttpRequest) -> Answer | Pending:
        call = _Call(self, request)
        try:
            identity = identify(request, self.account_id, self.region)
            caller = self._caller(request, identity)
            call.operation, params = protocol.parse(call.wire, request)
            ctx = api.Context(
                broker=self.broker,
                account=caller or identity.account,
                region=identity.region,
                base_url=self.base_url(request),
                default_region=self.region,
                sender_id=caller or identity.account,  # what AWS shows for root credentials
                trace_header=request.headers.get("x-amzn-trace-id"),
                auto_create=self.auto_create,
                url_form=self.queue_urls,
                action=call.operation if caller else None,
                access_key=identity.access_key,
                protocol=call.wire,
            )
            if call.operation in SLOW:
                return call.on_a_thread(ctx, params)
            result = api.dispatch(ctx, call.operation, params)
        except Exception as exc:
            return call.failed(exc)
        if isinstance(result, api.Wait):
            return Pending(call.waited, wait=result)
        return call.finish(result)

    def base_url(self, request) -> str:
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
    sqs = HttpRequest.from_environ(request.environ, b"")
    return protocol.serialize_error(
        protocol.detect(sqs), SqsError("UnknownOperationException", ""), api.new_request_id()
    )


class _Call:
    """One SQS request on its way: what its answer, its metrics and its log line need."""

    __slots__ = ("app", "operation", "request", "request_id", "started", "wire")

    def __init__(self, app: EmulatorApp, request: HttpRequest):
        self.app = app
        self.request = request
        self.started = time.perf_counter()
        self.request_id = api.new_request_id()
        self.wire = protocol.detect(request)
        self.operation = "?"

    def finish(self, output: dict) -> Answer | Pending:
        """The answer to `output`, once the store has made its change durable (--sync always)."""
        store = self.app.store
        if store.replies_wait:
            return Pending(lambda error: self.committed(output, error), commit=store)
        return self.answer(output)

    def waited(self, outcome: dict | BaseException) -> Answer | Pending:
        """After a long poll's wait: its output, or what its last attempt raised."""
        return self.failed(outcome) if isinstance(outcome, BaseException) else self.finish(outcome)

    def committed(self, output: dict, error: BaseException | None) -> Answer:
        return self.failed(error) if error is not None else self.answer(output)

    def answer(self, output: dict) -> Answer:
        try:
            answer = protocol.serialize_result(self.wire, self.operation, output, self.request_id)
        except Exception as exc:
            return self.failed(exc)
        return self.done(answer, "ok")

    def on_a_thread(self, ctx: api.Context, params: dict) -> Pending:
        """The operation run later, off the event loop (its work grows with a queue's messages)."""

        def run(_) -> Answer | Pending:
            try:
                result = api.dispatch(ctx, self.operation, params)
            except Exception as exc:
                return self.failed(exc)
            return self.finish(result)  # type: ignore[arg-type]  # neither slow operation waits

        return Pending(run)

    def failed(self, exc: BaseException) -> Answer:
        if isinstance(exc, SqsError):
            return self.done(protocol.serialize_error(self.wire, exc, self.request_id), exc.name)
        # A bug of ours: answer as AWS does for an internal failure, keep serving.
        log_internal_error(log, f"in {self.operation}", exc)
        failure = SqsError("InternalFailure", INTERNAL_FAILURE)
        return self.done(protocol.serialize_error(self.wire, failure, self.request_id), failure.name)

    def done(self, answer: Answer, outcome: str) -> Answer:
        answer = with_cors(answer, self.app.guard.cors_headers(self.request))
        elapsed = time.perf_counter() - self.started
        self.app.metrics.observe(self.operation, outcome, elapsed)
        if log.isEnabledFor(logging.DEBUG):
            request = self.request
            log.debug(
                "%s %s %s %s %d %.1fms client=%s",
                request.method,
                request.path,
                self.wire,
                self.operation,
                answer.status,
                elapsed * 1000,
                _client(request.headers.get("user-agent", "")),
            )
        return answer


def with_cors(answer: Answer, cors: list[tuple[str, str]]) -> Answer:
    return answer._replace(headers=answer.headers + cors) if cors else answer


def send(response: Response, start_response):
    """A werkzeug Response whose status, headers and body are all set, sent as they are:
    werkzeug's full WSGI step (header copies, Location fixing) is for files and HEAD."""
    start_response(response.status, response.headers.to_wsgi_list())
    return [response.get_data()]


def _body(environ: dict) -> bytes:
    """A WSGI request's body, whole (the server framed it: Content-Length, or its end)."""
    stream = environ["wsgi.input"]
    length = environ.get("CONTENT_LENGTH")
    if length:
        return stream.read(int(length)) if length.isdigit() else b""
    return stream.read() if environ.get("wsgi.input_terminated") else b""


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
