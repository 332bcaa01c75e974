"""The queue operations: create, find, list, delete, attributes, purge, tags, permissions."""

import base64
import binascii
import json
import re

from emulator import limits
from emulator.api import validation
from emulator.api.context import Context
from emulator.engine import attributes as queue_attributes
from emulator.engine.queue import Queue
from emulator.errors import SqsError, invalid_parameter

LABEL = re.compile(r"[A-Za-z0-9_-]{1,80}")
ACCOUNT_ID = re.compile(r"[0-9]{12}")
# What AddPermission may grant another account; every other action is the owner's alone (issue 18, AWS-recorded).
SHAREABLE_ACTIONS = frozenset(
    (
        "*",
        "ChangeMessageVisibility",
        "DeleteMessage",
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListDeadLetterSourceQueues",
        "PurgeQueue",
        "ReceiveMessage",
        "SendMessage",
    )
)


def create_queue(ctx: Context, params: dict) -> dict:
    name = params["QueueName"]
    attributes = params.get("Attributes") or {}
    # A FIFO queue needs both the suffix and FifoQueue=true; with only one of them,
    # FifoQueue is an unknown attribute of a standard queue, or the name is invalid.
    wants_fifo = str(attributes.get("FifoQueue", "")).lower() == "true"
    fifo = name.endswith(".fifo") and wants_fifo
    if wants_fifo and not fifo:
        # AWS checks the name of a queue asked to be FIFO before any attribute name.
        validation.queue_name(name, fifo=True)
    queue_attributes.validate(attributes, fifo)
    validation.queue_name(name, fifo)
    tags = params.get("tags") or {}
    _tag_count(name, tags.keys())  # first: counting is cheap, 200,000 tags are not
    validation.tags(tags)
    queue, _ = ctx.broker.create_queue(ctx.account, ctx.region, name, attributes, tags)
    return {"QueueUrl": ctx.queue_url(queue)}


def get_queue_url(ctx: Context, params: dict) -> dict:
    account = params.get("QueueOwnerAWSAccountId") or ctx.account
    return {"QueueUrl": ctx.queue_url(ctx.named_queue(account, ctx.region, params["QueueName"]))}


def list_queues(ctx: Context, params: dict) -> dict:
    max_results = validation.int_in_range(params, "MaxResults", 1, limits.MAX_LIST_RESULTS)
    prefix = params.get("QueueNamePrefix") or ""
    queues = {q.name: q for q in ctx.broker.queues(ctx.account, ctx.region) if q.name.startswith(prefix)}
    page, token = _page(sorted(queues), params.get("NextToken"), max_results)
    result: dict = {}
    if page:
        result["QueueUrls"] = [ctx.queue_url(queues[name]) for name in page]
    if token:
        result["NextToken"] = token
    return result


def delete_queue(ctx: Context, params: dict) -> dict:
    ctx.broker.delete_queue(ctx.queue(params["QueueUrl"]))
    return {}


def get_queue_attributes(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    names = params.get("AttributeNames") or ()
    for name in names:
        if name != "All" and not queue_attributes.readable(name, queue.fifo):
            raise queue_attributes.unknown_attribute(name)
    everything = _attributes(queue)
    selected = everything if "All" in names else {n: everything[n] for n in names if n in everything}
    return {"Attributes": selected} if selected else {}


def set_queue_attributes(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    queue_attributes.validate(params["Attributes"], queue.fifo, queue.attributes)
    ctx.broker.set_attributes(queue, params["Attributes"])
    return {}


def purge_queue(ctx: Context, params: dict) -> dict:
    ctx.queue(params["QueueUrl"]).purge(ctx.broker.purge_cooldown)
    return {}


def list_dead_letter_source_queues(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    max_results = validation.int_in_range(params, "MaxResults", 1, limits.MAX_LIST_RESULTS)
    sources = {source.name: source for source in ctx.broker.dead_letter_sources(queue)}
    page, token = _page(sorted(sources), params.get("NextToken"), max_results)
    result: dict = {"queueUrls": [ctx.queue_url(sources[name]) for name in page]}
    if token:
        result["NextToken"] = token
    return result


def tag_queue(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    tags = params["Tags"]
    if not tags:  # as the query protocol sees an empty map: not there
        raise SqsError("MissingParameter", "The request must contain the parameter Tags.")
    validation.tags(tags)
    _tag_count(queue.name, queue.tags.keys() | tags.keys())
    queue.tag(tags)
    return {}


def _tag_count(name: str, keys) -> None:
    """At most 50 tags a queue, whether they come with CreateQueue or TagQueue (the wording
    is TagQueue's, docs/research/aws_facts.md; none is recorded for CreateQueue)."""
    if len(keys) > limits.MAX_TAGS:
        raise invalid_parameter(f"Too many tags added for queue {name}.")


def untag_queue(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    validation.tag_keys(params["TagKeys"])
    queue.untag(params["TagKeys"])
    return {}


def list_queue_tags(ctx: Context, params: dict) -> dict:
    # An untagged queue's answer has no Tags member at all: AWS was recorded so after
    # UntagQueue removed the last tag (docs/sqs-reference.md section 3).
    tags = dict(ctx.queue(params["QueueUrl"]).tags)
    return {"Tags": tags} if tags else {}


def add_permission(ctx: Context, params: dict) -> dict:
    """Kept as a statement of the queue's Policy attribute, as AWS does."""
    queue = ctx.queue(params["QueueUrl"])
    label = params["Label"]
    if not LABEL.fullmatch(label):
        raise invalid_parameter(
            f"Value {label} for parameter Label is invalid. "
            "Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length."
        )
    accounts, actions = params["AWSAccountIds"], params["Actions"]
    if not actions:
        raise SqsError("MissingParameter", "The request must contain the parameter Actions.")
    if not accounts:  # an empty list (JSON sends one; the query protocol cannot: MissingParameter there)
        raise _unverified("[]", "Unable to verify.")
    # AWS counts the actions before it looks at any of them (issue 18).
    if len(actions) > limits.MAX_PERMISSION_ACTIONS:
        raise SqsError(
            "OverLimit", f"{len(actions)} Actions were found, maximum allowed is {limits.MAX_PERMISSION_ACTIONS}."
        )
    for action in actions:
        if action not in SHAREABLE_ACTIONS:
            raise invalid_parameter(
                f"Value SQS:{action} for parameter ActionName is invalid. "
                "Reason: Only the queue owner is allowed to invoke this action."
            )
    for account in accounts:
        # AWS grants accounts only: "*" (aws/aws-sdk-js#565) and an IAM user's ARN or id
        # (aws/aws-cli#7416) are refused, each in its own wording.
        if not ACCOUNT_ID.fullmatch(account):
            raise _unverified(f"[{account}]", "Unable to verify." if account == "*" else "Unable to verify principal.")
    policy = _policy(queue)
    if any(statement.get("Sid") == label for statement in policy["Statement"]):
        raise invalid_parameter(f"Value {label} for parameter Label is invalid. Reason: Already exists.")
    principals = [f"arn:aws:iam::{account}:root" for account in accounts]
    policy["Statement"].append(
        {
            "Sid": label,
            "Effect": "Allow",
            "Principal": {"AWS": principals[0] if len(principals) == 1 else principals},
            "Action": f"SQS:{actions[0]}" if len(actions) == 1 else [f"SQS:{a}" for a in actions],
            "Resource": queue.arn,
        }
    )
    queue.set_attributes({"Policy": json.dumps(policy, separators=(",", ":"))})
    return {}


def _unverified(shown: str, reason: str) -> SqsError:
    return invalid_parameter(f"Value {shown} for parameter PrincipalId is invalid. Reason: {reason}")


def remove_permission(ctx: Context, params: dict) -> dict:
    queue = ctx.queue(params["QueueUrl"])
    label = params["Label"]
    policy = _policy(queue)
    kept = [statement for statement in policy["Statement"] if statement.get("Sid") != label]
    if len(kept) == len(policy["Statement"]):
        raise invalid_parameter(f"Value {label} for parameter Label is invalid. Reason: can't find label.")
    policy["Statement"] = kept
    queue.set_attributes({"Policy": json.dumps(policy, separators=(",", ":")) if kept else ""})
    return {}


# -- helpers ----------------------------------------------------------------


def _attributes(queue: Queue) -> dict[str, str]:
    everything = queue_attributes.shown(queue.attributes)
    everything["QueueArn"] = queue.arn
    everything["CreatedTimestamp"] = str(queue.created_at)
    everything["LastModifiedTimestamp"] = str(queue.modified_at)
    everything.update({name: str(count) for name, count in queue.counts().items()})
    return everything


def _policy(queue: Queue) -> dict:
    if "Policy" in queue.attributes:
        policy = json.loads(queue.attributes["Policy"])
        policy.setdefault("Statement", [])
        if isinstance(policy["Statement"], dict):
            policy["Statement"] = [policy["Statement"]]
        return policy
    return {"Version": "2008-10-17", "Id": f"{queue.arn}/SQSDefaultPolicy", "Statement": []}


def _page(names: list[str], token: str | None, max_results: int | None) -> tuple[list[str], str | None]:
    """One page of sorted queue names, and the token for the next (only when MaxResults was given)."""
    if token:
        after = _decode_token(token)
        names = [name for name in names if name > after]
    page = names[: max_results or limits.MAX_LIST_RESULTS]
    more = max_results is not None and len(names) > len(page)
    return page, base64.urlsafe_b64encode(page[-1].encode()).decode() if more else None


def _decode_token(token: str) -> str:
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid_parameter("Invalid NextToken value.") from None
