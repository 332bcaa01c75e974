"""Other emulators' own paths, so that suites written for them meet this one sensibly.

    GET  /_aws/sqs/messages?QueueUrl=<queue URL>[&ShowInvisible=true][&ShowDelayed=true]
    GET  /_aws/sqs/messages/<region>/<account>/<queue>[?ShowInvisible=true][&ShowDelayed=true]
    POST /_aws/sqs/messages      an SDK's ReceiveMessage with this path as its endpoint URL
        LocalStack's SQS developer endpoint: a peek that changes nothing
        (emulator/api/peek.py), answered as ReceiveMessage is: XML, or with
        Accept: application/json the XML's tree as JSON, as LocalStack's SQS page shows.
        LocalStack documents no DELETE here, so there is none.
    POST /_localstack/state/reset, /_localstack/state/sqs/reset    what POST /_emulator/reset does
        (moto's POST /moto-api/reset is the admin API's own: emulator/server/admin/__init__.py)

The resets are served because suites call them between tests and often ignore
the answer: a 404 there would carry one test's queues into the next. Any other
path under /_aws/, /_localstack/ or /moto-api/ is a JSON 404 that names the
nearest endpoint under /_emulator/: a look-alike answer (LocalStack's health,
moto's state dumps) would pass checks that test for something else.
"""

import json
import uuid

import xmltodict
from werkzeug.wrappers import Request, Response

from emulator import api, protocol
from emulator.api.peek import peek_messages
from emulator.errors import SqsError
from emulator.server.admin import routes
from emulator.server.identity import identify

PREFIXES = ("/_aws", "/_localstack", "/moto-api")  # no SQS path starts so: queue paths start with an account or region
MESSAGES = "/_aws/sqs/messages"
RESETS = ("/_localstack/state/reset", "/_localstack/state/sqs/reset")
ADMIN = "/_emulator/"
# The nearest endpoint of this emulator for a path of another's, by prefix (the first that matches).
NEAREST = (
    ("/_localstack/health", "GET /_emulator/health"),
    ("/_localstack/info", "GET /_emulator/health"),
    ("/_localstack/state", "POST /_emulator/reset"),
    ("/_aws/sqs", "GET /_aws/sqs/messages?QueueUrl=<queue URL>, or GET /_emulator/messages?queue=<queue URL or name>"),
    ("/moto-api/data.json", "GET /_emulator/queues"),
    ("/moto-api", "GET /_emulator/ui (the dashboard)"),
    ("/", "GET /_emulator/health"),
)
# The XML elements that repeat in a ReceiveMessage answer, by parent: lists in its JSON form even when one.
REPEATED = {"ReceiveMessageResult": ("Message",), "Message": ("Attribute", "MessageAttribute")}


def claims(path: str) -> bool:
    return path.startswith(PREFIXES)


def handle(request: Request, app) -> Response:
    path = request.path.rstrip("/")
    if path == MESSAGES or path.startswith(MESSAGES + "/"):
        rest = path[len(MESSAGES) :].strip("/")
        if request.method == "POST" and not rest:
            return _receive(request, app)
        if request.method != "GET":
            return _not_allowed(request, "GET, POST" if not rest else "GET")
        if rest and len(rest.split("/")) != 3:
            return _not_found(request)
        return _peek(request, app, rest)
    if path in RESETS:
        if request.method != "POST":
            return _not_allowed(request, "POST")
        return _json(routes.reset(request, app))
    return _not_found(request)


def _peek(request: Request, app, rest: str) -> Response:
    """GET: the queue by QueueUrl, or by region/account/name in the path."""
    request_id = str(uuid.uuid4())
    try:
        ctx = _context(request, app)
        if rest:
            region, account, name = rest.split("/")
            queue = ctx.named_queue(account, region, name)
        else:
            url = request.args.get("QueueUrl")
            if not url:
                raise SqsError("MissingParameter", "The request must contain the parameter QueueUrl.")
            queue = ctx.queue(url)
        output = peek_messages(queue, _true(request, "ShowInvisible"), _true(request, "ShowDelayed"))
        answer = protocol.serialize_result("query", "ReceiveMessage", output, request_id)
    except SqsError as error:
        answer = protocol.serialize_error("query", error, request_id)
    return _as_json(answer) if _wants_json(request) else answer.response()


def _receive(request: Request, app) -> Response:
    """POST: an SDK whose endpoint URL is /_aws/sqs/messages calls ReceiveMessage; it gets
    the peek in its own protocol. Its other parameters are ignored, as on LocalStack."""
    request_id = str(uuid.uuid4())
    sqs = protocol.HttpRequest.from_environ(request.environ, request.get_data(cache=True))
    wire = protocol.detect(sqs)
    try:
        operation, params = protocol.parse(wire, sqs)
        if operation != "ReceiveMessage":
            raise SqsError(
                "InvalidAction", f"{MESSAGES} answers only ReceiveMessage (a peek); send {operation} to the endpoint."
            )
        output = peek_messages(_context(request, app).queue(params["QueueUrl"]))
        return protocol.serialize_result(wire, operation, output, request_id).response()
    except SqsError as error:
        return protocol.serialize_error(wire, error, request_id).response()


def _context(request: Request, app) -> api.Context:
    identity = identify(protocol.HttpRequest.from_environ(request.environ, b""), app.account_id, app.region)
    return api.Context(
        broker=app.broker,
        account=identity.account,
        region=identity.region,
        base_url=app.base_url(request),
        default_region=app.region,
        sender_id=identity.account,
    )


def _true(request: Request, name: str) -> bool:
    return request.args.get(name, "").lower() in ("true", "1")


def _wants_json(request: Request) -> bool:
    accept = request.accept_mimetypes
    return accept["application/json"] > accept["text/xml"]


def _as_json(answer: protocol.Answer) -> Response:
    """LocalStack's JSON form of a query-protocol answer: the XML's tree, repeated elements as lists."""
    tree = xmltodict.parse(answer.body, xml_attribs=False, force_list=_repeated)
    converted = Response(json.dumps(tree), status=answer.status, mimetype="application/json")
    converted.headers["x-amzn-RequestId"] = answer.header("x-amzn-RequestId") or ""
    return converted


def _repeated(path: list, key: str, value) -> bool:
    return bool(path) and key in REPEATED.get(path[-1][0], ())


def _not_found(request: Request) -> Response:
    path = request.path
    owner = "moto" if path.startswith("/moto-api") else "LocalStack"
    nearest = next(endpoint for prefix, endpoint in NEAREST if path.startswith(prefix))
    message = (
        f"{path} is an endpoint of {owner}, and this is sqs-emulator: its own endpoints are under {ADMIN} "
        f"(the nearest: {nearest})"
    )
    return _json({"error": message, "endpoints": ADMIN, "nearest": nearest}, 404)


def _not_allowed(request: Request, allowed: str) -> Response:
    response = _json({"error": f"{request.method} is not allowed on {request.path} (allowed: {allowed})"}, 405)
    response.headers["Allow"] = allowed
    return response


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
