"""The admin routes of every message's story (emulator/engine/history.py): one message's
by id, a queue's newest, and what a test's summary names (the pytest plugin's
sqs_emulator_summary). Each event is as the engine recorded it, with `at` in epoch seconds.
"""

from werkzeug.routing import Rule

from emulator.server.admin.routes import AdminError, _context, _number, _queue

PATH = "/_emulator/histories"
DEFAULT_STORIES = 100
MAX_STORIES = 1000
OFF = "histories are off on this server (started with --histories 0)"


def message_story(request, app, message_id: str) -> dict:
    """One message's story, from every queue that kept it, oldest event first.

    A message dead-lettered keeps its id, so its story goes on in the dead-letter queue;
    a move task's copy has a new id, and the story follows it (`new_id`, `original_id`).
    Answers `id` and `events`, each with `queue` (its URL), `n` (its number, the order of
    events across queues), `at` (epoch seconds), `event`
    and what that event knows: `sent` (`account`, `access_key`, `protocol`), `received`
    (`receipt_handle`, `receive_count`, `visibility_timeout`, `visible_again_at`),
    `visibility_changed`, `visibility_change_ignored`, `visibility_timeout_ended`,
    `deleted`, `delete_refused` and `delete_of_gone_message` (`stale`: the handle's
    receive was over; `of_receive`: which receive minted it), `expired`, `purged`,
    `dead_lettered` and `arrived_as_dead_letter` (`reason`), `redriven` and
    `arrived_by_redrive`, and `fault` (`fault`: what was injected). 404 if no queue kept it.
    """
    if not app.broker.histories:
        raise AdminError(409, OFF)
    ctx = _context(request, app)
    events = [
        {**event, "queue": ctx.queue_url(queue)} for queue, story in app.broker.story(message_id) for event in story
    ]
    if not events:
        raise AdminError(404, f"no story of message {message_id} is kept (never sent, or dropped for the cap)")
    events.sort(key=lambda event: event["n"])
    return {"id": message_id, "events": events}


def queue_stories(request, app) -> dict:
    """A queue's newest stories, newest first, and what its histories hold.

    Query: `queue` (URL or name; `account` and `region` pick another account's queue),
    `limit` (1 to 1000, default 100). Answers `queue`, `kept`, `limit` (the cap),
    `dropped` (stories dropped for the cap), `forgotten` (ended stories dropped for newer
    ones), `empty_short_polls`, and `histories`: each `id`, `ended` and `events` (as in
    `/_emulator/histories/<id>`, without `queue`).
    """
    ctx, queue = _queue(request, app)
    if queue.history is None:
        raise AdminError(409, OFF)
    limit = int(_number(request.args.get("limit", DEFAULT_STORIES), "limit", 1, MAX_STORIES))
    return {"queue": ctx.queue_url(queue), **queue.history.counts(), "histories": queue.history.stories(limit)}


def summary(request, app) -> dict:
    """What a test's summary names, from every queue's stories: the hazards a consumer met.

    Answers `received_more_than_once`, `stale_deletes` (deletes with a receipt handle
    whose receive was over: processing took longer than the visibility timeout),
    `dead_lettered` (with the `reason`), each entry with `queue` and `id`, and
    `empty_short_polls` (`queue` and `count`: each a billed request on AWS).
    """
    ctx = _context(request, app)
    found: dict[str, list] = {"received_more_than_once": [], "stale_deletes": [], "dead_lettered": []}
    polls = []
    for queue in sorted(app.broker.all_queues(), key=lambda q: (q.account, q.region, q.name)):
        if queue.history is None:
            continue
        url = ctx.queue_url(queue)
        for name, entries in queue.history.notable().items():
            found[name] += [{"queue": url, **entry} for entry in entries]
        count = queue.history.counts()["empty_short_polls"]
        if count:
            polls.append({"queue": url, "count": count})
    return {**found, "empty_short_polls": polls}


RULES = [
    Rule(PATH, methods=["GET"], endpoint=queue_stories),
    Rule(f"{PATH}/summary", methods=["GET"], endpoint=summary),
    Rule(f"{PATH}/<message_id>", methods=["GET"], endpoint=message_story),
]
