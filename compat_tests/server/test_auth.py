"""--require-auth: SigV4 checked against the config file's keys, each key one account.

Errors and statuses: AWS's Common Errors page (docs.aws.amazon.com/AWSSimpleQueueService/
latest/APIReference/CommonErrors.html) for MissingAuthenticationToken, InvalidClientTokenId
(403), IncompleteSignature and RequestExpired; SignatureDoesNotMatch (403) and its "Signature
expired: ... - 15 min.)" wording as SQS answered in aws/aws-sdk-go#487 and aws/aws-sdk-js#401;
AccessDenied (403) "Access to the resource <url> is denied." as SDKs report it for SQS.
"""

import datetime
import hashlib
import json
import urllib.parse

import boto3
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from compat_tests.helpers import JSON_BODY, RawClient, unique_name
from compat_tests.servers import start_emulator

ALICE = ("AKIDALICE", "alice-secret", "111111111111")
BOB = ("AKIDBOB", "bob-secret", "222222222222")
ADMIN_TOKEN = "admin-token-for-tests"
CONFIG = f"""
[[credentials]]
access_key = "{ALICE[0]}"
secret_key = "{ALICE[1]}"
account = "{ALICE[2]}"

[[credentials]]
access_key = "{BOB[0]}"
secret_key = "{BOB[1]}"
account = "{BOB[2]}"

[admin]
token = "{ADMIN_TOKEN}"
"""
LIST_QUEUES = "/?Action=ListQueues&Version=2012-11-05"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = tmp_path_factory.mktemp("auth") / "auth.toml"
    path.write_text(CONFIG)
    server = start_emulator("manual", "auth", "--require-auth", "--config", str(path))
    yield server
    server.stop()


def client(server, access_key: str, secret_key: str):
    return boto3.session.Session().client(
        "sqs",
        endpoint_url=server.url,
        region_name="us-east-1",
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=Config(retries={"max_attempts": 1}),
    )


@pytest.fixture(scope="module")
def alice(server):
    return client(server, *ALICE[:2])


@pytest.fixture(scope="module")
def bob(server):
    return client(server, *BOB[:2])


def _error(call, **kwargs) -> tuple[str, int, str]:
    with pytest.raises(ClientError) as raised:
        call(**kwargs)
    error = raised.value.response
    return error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Message"]


def test_the_right_secret_acts_as_its_account(alice):
    url = alice.create_queue(QueueName=unique_name("mine"))["QueueUrl"]
    assert f"/{ALICE[2]}/" in url
    alice.send_message(QueueUrl=url, MessageBody="hello")
    assert alice.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "hello"


def test_a_wrong_secret_is_signature_does_not_match(server):
    code, status, message = _error(client(server, ALICE[0], "not-the-secret").list_queues)
    assert (code, status) == ("SignatureDoesNotMatch", 403)
    assert message.startswith("The request signature we calculated does not match the signature you provided.")


def test_an_unknown_key_is_invalid_client_token_id(server):
    code, status, message = _error(client(server, "AKIDNOBODY", "whatever").list_queues)
    assert (code, status, message) == (
        "InvalidClientTokenId",
        403,
        "The security token included in the request is invalid.",
    )


def test_an_unsigned_request_is_missing_authentication_token(server):
    response = RawClient(server.url).request("GET", LIST_QUEUES, sign=False)
    assert response.status == 403
    assert response.xml().find("Error/Code").text == "MissingAuthenticationToken"


def _signed_at(server, when: datetime.datetime, signer) -> AWSRequest:
    """Signed by botocore's signer as add_auth does, with the clock read as `when`
    (add_auth's own clock call differs between botocore versions)."""
    request = AWSRequest(method="GET", url=server.url + LIST_QUEUES)
    request.context["timestamp"] = when.strftime("%Y%m%dT%H%M%SZ")
    signer._modify_request_before_signing(request)
    canonical = signer.canonical_request(request)
    signer._inject_signature_to_request(request, signer.signature(signer.string_to_sign(request, canonical), request))
    return request


def _send(server, request: AWSRequest):
    prepared = request.prepare()
    path = prepared.url[len(server.url) :]
    return RawClient(server.url).request("GET", path, headers=dict(prepared.headers.items()), sign=False)


def test_an_old_signature_is_expired(server):
    """Signed 20 minutes ago by botocore's signer: more than AWS's 15 minutes of skew."""
    when = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=20)
    signer = SigV4Auth(Credentials(*ALICE[:2]), "sqs", "us-east-1")
    response = _send(server, _signed_at(server, when, signer))
    assert response.status == 403
    assert response.xml().find("Error/Code").text == "SignatureDoesNotMatch"
    message = response.xml().find("Error/Message").text
    assert message.startswith(f"Signature expired: {when:%Y%m%dT%H%M%SZ} is now earlier than ")
    assert message.endswith(" - 15 min.)")


def test_a_signature_within_the_skew_is_accepted(server):
    when = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=10)
    signer = SigV4Auth(Credentials(*ALICE[:2]), "sqs", "us-east-1")
    assert _send(server, _signed_at(server, when, signer)).status == 200


def test_presigned_urls(server):
    now = datetime.datetime.now(datetime.UTC)
    good = SigV4QueryAuth(Credentials(*ALICE[:2]), "sqs", "us-east-1", expires=300)
    assert _send(server, _signed_at(server, now, good)).status == 200
    wrong = SigV4QueryAuth(Credentials(ALICE[0], "wrong"), "sqs", "us-east-1", expires=300)
    response = _send(server, _signed_at(server, now, wrong))
    assert response.status == 403 and response.xml().find("Error/Code").text == "SignatureDoesNotMatch"
    expired = _send(server, _signed_at(server, now - datetime.timedelta(minutes=10), good))
    assert expired.status == 400 and expired.xml().find("Error/Code").text == "RequestExpired"


def test_another_accounts_queue_by_url_is_access_denied(alice, bob):
    url = alice.create_queue(QueueName=unique_name("private"))["QueueUrl"]
    alice.send_message(QueueUrl=url, MessageBody="secret")
    for call, kwargs in [
        (bob.send_message, {"MessageBody": "x"}),
        (bob.receive_message, {}),
        (bob.purge_queue, {}),
        (bob.delete_queue, {}),
        (bob.get_queue_attributes, {"AttributeNames": ["All"]}),
    ]:
        code, status, message = _error(call, QueueUrl=url, **kwargs)
        assert (code, status) == ("AccessDenied", 403)
        assert message == f"Access to the resource {url} is denied."
    name = url.rsplit("/", 1)[1]
    assert _error(bob.get_queue_url, QueueName=name, QueueOwnerAWSAccountId=ALICE[2])[:2] == ("AccessDenied", 403)
    assert url not in bob.list_queues().get("QueueUrls", [])
    attributes = alice.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
    assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "1"  # nothing changed


def test_add_permission_grants_that_account_that_action(alice, bob):
    url = alice.create_queue(QueueName=unique_name("shared"))["QueueUrl"]
    alice.add_permission(QueueUrl=url, Label="bob-sends", AWSAccountIds=[BOB[2]], Actions=["SendMessage"])
    bob.send_message(QueueUrl=url, MessageBody="from bob")
    bob.send_message_batch(QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "batch"}])  # SendMessage covers it
    assert _error(bob.receive_message, QueueUrl=url)[:2] == ("AccessDenied", 403)
    assert alice.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    alice.remove_permission(QueueUrl=url, Label="bob-sends")
    assert _error(bob.send_message, QueueUrl=url, MessageBody="again")[:2] == ("AccessDenied", 403)


def test_a_policy_set_by_attribute_grants_too(alice, bob):
    url = alice.create_queue(QueueName=unique_name("open"))["QueueUrl"]
    arn = alice.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{BOB[2]}:root"}, "Action": "sqs:*", "Resource": arn}
        ],
    }
    alice.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    bob.send_message(QueueUrl=url, MessageBody="x")
    assert bob.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "x"


def test_the_admin_api_asks_for_the_token(server):
    raw = RawClient(server.url)
    refused = raw.request("GET", "/_emulator/queues", sign=False)
    assert refused.status == 401 and "token" in refused.json()["error"]
    assert raw.request("GET", "/_emulator/health", sign=False).status == 200  # readiness probes
    bearer = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    assert raw.request("GET", "/_emulator/queues", headers=bearer, sign=False).status == 200
    wrong = {"Authorization": "Bearer nope", **JSON_BODY}
    assert raw.request("POST", "/_emulator/reset", "{}", wrong, sign=False).status == 401


def test_the_dashboard_sends_the_token_as_a_bearer_header_never_a_cookie(server):
    raw = RawClient(server.url)
    # The dashboard's own SQS calls, unsigned, act as the default account with the token.
    own = {
        "Authorization": f"Bearer {ADMIN_TOKEN}",
        "Origin": server.url,
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "AmazonSQS.ListQueues",
    }
    assert raw.request("POST", "/", "{}", own, sign=False).status == 200
    assert raw.request("POST", "/", "{}", {**own, "Authorization": "Bearer nope"}, sign=False).status != 200
    # A cookie opens nothing (a browser sends one to every port of the host), and none is set.
    jar = {"Cookie": f"sqs_emulator_token={ADMIN_TOKEN}"}
    assert raw.request("GET", "/_emulator/queues", headers=jar, sign=False).status == 401
    visit = raw.request("GET", f"/_emulator/ui/?token={urllib.parse.quote(ADMIN_TOKEN)}", sign=False)
    assert visit.status == 200 and visit.header("Set-Cookie") is None


def test_the_banner_shows_the_token_and_no_exposure_warning(server):
    log = server.log_path.read_text()
    assert f"admin token: {ADMIN_TOKEN}" in log and "WARNING" not in log


# -- what a signature binds (issue 31, item 4) ---------------------------------------


def _signed_request(server, body: str, headers: dict, service: str = "sqs") -> AWSRequest:
    """A JSON SendMessage signed by botocore's signer as an SDK signs it, `headers` included."""
    request = AWSRequest(method="POST", url=server.url + "/", data=body.encode(), headers=headers)
    SigV4Auth(Credentials(*ALICE[:2]), service, "us-east-1").add_auth(request)
    return request


def _post(server, request: AWSRequest, body: bytes | None = None, **changed_headers):
    headers = {**dict(request.headers.items()), **changed_headers}
    return RawClient(server.url).request("POST", "/", body if body is not None else request.body, headers, sign=False)


def _depth(alice, url) -> str:
    return alice.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"][
        "ApproximateNumberOfMessages"
    ]


def _json_send(url: str, body: str) -> tuple[str, dict]:
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.SendMessage"}
    return json.dumps({"QueueUrl": url, "MessageBody": body}), headers


def test_a_signed_request_replayed_with_another_body_is_signature_does_not_match(server, alice):
    """A signed X-Amz-Content-SHA256 was taken as the body's hash without hashing the body, so a
    captured request replayed within the skew window with another body was accepted."""
    url = alice.create_queue(QueueName=unique_name("replayed"))["QueueUrl"]
    body, headers = _json_send(url, "the signed body")
    digest = hashlib.sha256(body.encode()).hexdigest()
    request = _signed_request(server, body, {**headers, "X-Amz-Content-SHA256": digest})
    assert "x-amz-content-sha256" in request.headers["Authorization"]  # the hash is signed
    swapped = json.dumps({"QueueUrl": url, "MessageBody": "another body"}).encode()
    answer = _post(server, request, swapped)
    assert (answer.status, answer.json()["__type"]) == (403, "com.amazonaws.sqs#SignatureDoesNotMatch")
    assert answer.json()["message"].startswith("The request signature we calculated does not match")
    assert _depth(alice, url) == "0"
    assert _post(server, request).status == 200  # the request as signed
    assert alice.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "the signed body"


def test_a_presigned_url_binds_its_empty_body(server, alice):
    """botocore presigns with the parameters in the query string and an empty body; a body added
    to the URL (whose form the query protocol reads over the query string's) is not signed."""
    url = alice.create_queue(QueueName=unique_name("presigned"))["QueueUrl"]
    alice.send_message(QueueUrl=url, MessageBody="keep me")
    request = AWSRequest(method="POST", url=url, data={"Action": "GetQueueAttributes", "Version": "2012-11-05"})
    SigV4QueryAuth(Credentials(*ALICE[:2]), "sqs", "us-east-1", expires=300).add_auth(request)
    prepared = request.prepare()
    path = prepared.url[len(server.url) :]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    raw = RawClient(server.url)
    added = raw.request("POST", path, f"Action=PurgeQueue&QueueUrl={url}", form, sign=False)
    assert (added.status, added.xml().findtext("Error/Code")) == (403, "SignatureDoesNotMatch")
    assert _depth(alice, url) == "1"
    assert raw.request("POST", path, b"", form, sign=False).status == 200


def test_a_signature_scoped_to_another_service_is_refused(server):
    body, headers = _json_send("q", "x")
    answer = _post(server, _signed_request(server, body, headers, service="s3"))
    assert (answer.status, answer.json()["__type"]) == (403, "com.amazonaws.sqs#SignatureDoesNotMatch")
    assert answer.json()["message"] == "Credential should be scoped to correct service: 'sqs'. "


def test_a_scope_dated_another_day_than_x_amz_date_is_refused(server):
    """The scope's date was not read (the signature was computed from X-Amz-Date's), so any date passed."""
    request = _signed_request(server, *_json_send("q", "x"))
    stamp = request.headers["X-Amz-Date"]
    other_day = "19990101" if not stamp.startswith("1999") else "20000101"
    authorization = request.headers["Authorization"].replace(f"/{stamp[:8]}/", f"/{other_day}/")
    answer = _post(server, request, Authorization=authorization)
    assert (answer.status, answer.json()["__type"]) == (403, "com.amazonaws.sqs#SignatureDoesNotMatch")
    assert answer.json()["message"] == (
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
        f"'{other_day}' != '{stamp[:8]}', from '{stamp}'."
    )


def test_an_authorization_header_with_a_second_credential_is_refused(server, alice):
    """The signature was checked against the last Credential while the account and region were
    read from the first: a captured request could be turned to another region's queues."""
    name = unique_name("two-credentials")
    url = alice.create_queue(QueueName=name)["QueueUrl"]
    body, headers = _json_send(name, "x")
    request = _signed_request(server, body, headers)
    stamp = request.headers["X-Amz-Date"][:8]
    first = f"Credential={ALICE[0]}/{stamp}/eu-west-1/sqs/aws4_request, "
    for authorization in (
        request.headers["Authorization"].replace("Credential=", first + "Credential=", 1),
        request.headers["Authorization"] + f", Extra=Credential={ALICE[0]}/{stamp}/eu-west-1/sqs/aws4_request",
    ):
        answer = _post(server, request, Authorization=authorization)
        assert (answer.status, answer.json()["__type"]) == (400, "com.amazonaws.sqs#IncompleteSignature")
    assert _depth(alice, url) == "0"


# -- Deny statements AWS evaluates (issue 31, item 5) ---------------------------------------


def _grant_and(alice, deny: dict, name: str | None = None) -> str:
    """A queue of Alice's whose Policy allows Bob everything, then `deny` (its Resource: the queue)."""
    url = alice.create_queue(QueueName=name or unique_name("denied"))["QueueUrl"]
    arn = alice.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    allow = {"Effect": "Allow", "Principal": {"AWS": BOB[2]}, "Action": "sqs:*", "Resource": arn}
    deny = {"Effect": "Deny", **({} if "NotResource" in deny else {"Resource": arn}), **deny}
    policy = {"Version": "2012-10-17", "Statement": [allow, deny]}
    alice.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    return url


@pytest.mark.parametrize(
    "deny",
    [
        {
            "Principal": "*",
            "Action": "sqs:SendMessage",
            "Condition": {"StringEquals": {"aws:PrincipalAccount": BOB[2]}},
        },
        {"NotPrincipal": {"AWS": f"arn:aws:iam::{ALICE[2]}:root"}, "Action": "sqs:SendMessage"},
        {"Principal": {"AWS": BOB[2]}, "NotAction": "sqs:ReceiveMessage"},
        {"Principal": "*", "Action": "sqs:SendMessage", "NotResource": "arn:aws:sqs:us-east-1:111111111111:elsewhere"},
        # A key the emulator cannot know (the caller's address) fails closed: the Deny holds.
        {
            "Principal": "*",
            "Action": "sqs:SendMessage",
            "Condition": {"NotIpAddress": {"aws:SourceIp": "192.0.2.0/24"}},
        },
    ],
    ids=["Condition", "NotPrincipal", "NotAction", "NotResource", "unknown-condition-key"],
)
def test_each_form_of_deny_refuses_what_the_allow_grants(alice, bob, deny):
    """A Deny with a Condition, NotPrincipal, NotAction or NotResource was skipped, so a
    cross-account send AWS denies was allowed (IAM: an explicit deny overrides any allow)."""
    url = _grant_and(alice, deny)
    assert _error(bob.send_message, QueueUrl=url, MessageBody="x")[:2] == ("AccessDenied", 403)
    assert _error(bob.send_message_batch, QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "x"}])[:2] == (
        "AccessDenied",
        403,
    )
    assert bob.receive_message(QueueUrl=url).get("Messages") is None  # receiving is still allowed
    assert _depth(alice, url) == "0"


@pytest.mark.parametrize("form", ["Condition", "NotResource"])
def test_a_deny_that_does_not_apply_leaves_the_allow(alice, bob, form):
    """aws:SourceArn is set when a service (SNS, S3) sends for a resource, never on a direct call,
    so a Deny on another source's ARN does not apply (IAM: a missing key fails the condition);
    a Deny of every resource but this queue does not apply to it."""
    topic = f"arn:aws:sns:us-east-1:{ALICE[2]}:topic"
    name = unique_name("allowed")
    deny = {"Principal": "*", "Action": "sqs:*"}
    if form == "Condition":
        deny["Condition"] = {"ArnEquals": {"aws:SourceArn": topic}}
    else:
        deny["NotResource"] = f"arn:aws:sqs:us-east-1:{ALICE[2]}:{name}"
    url = _grant_and(alice, deny, name)
    bob.send_message(QueueUrl=url, MessageBody="allowed")
    assert _depth(alice, url) == "1"


@pytest.fixture(scope="module")
def open_server():
    server = start_emulator("manual", "no-auth")
    yield server
    server.stop()


def test_without_require_auth_a_named_account_keeps_out_of_other_accounts_queues(open_server):
    """Issue 38 item 11: without --require-auth, a client whose 12-digit key named account B sent
    to account A's queue while the docs said accounts were isolated. AWS's rule for a known
    caller: another account's queue only as its Policy allows (the SQS Developer Guide's
    "sqs-queue-access-permissions": a different account needs an Allow in the queue's policy;
    without one, an implicit deny, AccessDenied "Access to the resource <url> is denied.")."""
    owner, other = (client(open_server, account, "any-secret") for account in ("111111111111", "222222222222"))
    url = owner.create_queue(QueueName=unique_name("mine"))["QueueUrl"]
    assert url.split("/")[-2] == "111111111111"
    for call, kwargs in [(other.send_message, {"MessageBody": "x"}), (other.receive_message, {})]:
        assert _error(call, QueueUrl=url, **kwargs) == ("AccessDenied", 403, f"Access to the resource {url} is denied.")
    owner.add_permission(QueueUrl=url, Label="other-sends", AWSAccountIds=["222222222222"], Actions=["SendMessage"])
    other.send_message(QueueUrl=url, MessageBody="granted")
    assert _error(other.receive_message, QueueUrl=url)[:2] == ("AccessDenied", 403)
    # A key that names no account (test, or none) takes the default account by assumption, not
    # by knowledge: it reaches every account's queue, as the dashboard and unsigned tools do.
    unnamed = client(open_server, "test", "test")
    unnamed.send_message(QueueUrl=url, MessageBody="from a key that names no account")
    bodies = {m["Body"] for m in owner.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]}
    assert bodies == {"granted", "from a key that names no account"}
