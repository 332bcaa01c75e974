"""ElasticMQ's configuration file (HOCON), read as it is by --config: its `queues { ... }`
become the same queue entries a TOML file gives (emulator/server/config.py).

    queues {
      queue1 {
        defaultVisibilityTimeout = 10 seconds      -> VisibilityTimeout
        delay = 5 seconds                          -> DelaySeconds
        receiveMessageWait = 0 seconds             -> ReceiveMessageWaitTimeSeconds
        deadLettersQueue { name = "queue1-dead-letters", maxReceiveCount = 3 }   -> RedrivePolicy
        fifo = false                               -> FifoQueue (true adds ".fifo" to the name, as ElasticMQ does)
        contentBasedDeduplication = false          -> ContentBasedDeduplication
        tags { tag1 = "tagged1" }                  -> tags
      }
    }
    aws { region = us-west-2, accountId = "000000000000" }   -> the queues' region and account

The keys and their meaning are ElasticMQ's README's ("Automatically creating
queues on startup"). Durations follow HOCON: "10 seconds", "500ms", and a bare
number is milliseconds, as ElasticMQ reads it. Not supported, with a warning:
copyTo and moveTo (messages are not copied or redirected), and the server's own
sections (node-address, rest-sqs, auto-create-queues, storage), whose
counterparts are this emulator's flags.
"""

import logging
import re
from datetime import datetime
from pathlib import Path

from pyhocon import ConfigFactory
from pyhocon.exceptions import ConfigException
from pyparsing import ParseBaseException

log = logging.getLogger(__name__)

SUFFIXES = (".conf", ".hocon")
DURATIONS = {
    "defaultVisibilityTimeout": "VisibilityTimeout",
    "delay": "DelaySeconds",
    "receiveMessageWait": "ReceiveMessageWaitTimeSeconds",
}
FLAGS = {"fifo": "FifoQueue", "contentBasedDeduplication": "ContentBasedDeduplication"}
UNSUPPORTED = {
    "copyTo": "messages are not copied to another queue",
    "moveTo": "messages are not redirected to another queue",
}
KEPT_BY_ELASTICMQ = {"created", "lastModified"}  # what its queues-storage file records; nothing to apply
# The server's sections and the flag that does their job here.
SERVER_SECTIONS = {
    "node-address": "--hostname (the host queue URLs carry)",
    "rest-sqs": "--host and --port",
    "generate-node-address": "--hostname",
    "auto-create-queues": "--auto-create",
    "messages-storage": "--data-dir",
    "queues-storage": "--data-dir",
}
SECOND = 10**9
UNITS = {  # HOCON's duration units, in nanoseconds (whole numbers: no rounding on the way to seconds)
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1),
    **dict.fromkeys(("us", "micro", "micros", "microsecond", "microseconds"), 10**3),
    **dict.fromkeys(("", "ms", "milli", "millis", "millisecond", "milliseconds"), 10**6),
    **dict.fromkeys(("s", "second", "seconds"), SECOND),
    **dict.fromkeys(("m", "minute", "minutes"), 60 * SECOND),
    **dict.fromkeys(("h", "hour", "hours"), 3600 * SECOND),
    **dict.fromkeys(("d", "day", "days"), 86400 * SECOND),
}
_DURATION = re.compile(r"\s*(\d+)\s*([a-z]*)\s*")
# ElasticMQ's own defaults, which only its jar has; this emulator's defaults are AWS's.
_CLASSPATH_INCLUDE = re.compile(r"include\s+classpath\(\s*\"[^\"\n]*\"\s*\)")
_HOCON_START = re.compile(rb"^\s*(include\s+classpath|queues\s*[{=:])", re.MULTILINE)
_EPOCH = datetime(2000, 1, 1)


def is_hocon(path: str, data: bytes) -> bool:
    """By the file's extension, else by a start no TOML file has (`queues {`, an include)."""
    suffix = Path(path).suffix.lower()
    return suffix in SUFFIXES or (suffix != ".toml" and _HOCON_START.search(data) is not None)


def queues(path: str, data: bytes, error) -> list[dict]:
    """The file's queues as TOML-shaped entries ({name, account?, region?, attributes, tags});
    `error(message)` builds the exception for a file that cannot be applied."""
    try:
        text = _CLASSPATH_INCLUDE.sub("", data.decode("utf-8"))
        document = ConfigFactory.parse_string(text, basedir=str(Path(path).parent)).as_plain_ordered_dict()
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    except ParseBaseException as problem:
        raise error(
            f"{path}: not valid HOCON at line {problem.lineno}, column {problem.col}: {_why(problem)}"
        ) from None
    except ConfigException as problem:
        raise error(f"{path}: not valid HOCON: {problem}") from None
    for section, flag in SERVER_SECTIONS.items():
        if section in document:
            log.warning("%s: %s is ElasticMQ's server setting and is ignored here; use %s", path, section, flag)
    account, region = _aws(path, document.get("aws"), error)
    found = document.get("queues", {})
    if not isinstance(found, dict):
        raise error(f"{path}: queues must be an object of queues by name, written queues {{ name {{ ... }} }}")
    return [_entry(path, name, raw, account, region, error) for name, raw in found.items()]


def _why(problem: ParseBaseException) -> str:
    """The parser's reason when it is short (else it spells out its grammar), and the line."""
    reason = problem.msg if len(problem.msg) <= 60 else "unexpected text"
    line = problem.line.strip()
    return f"{reason} in {line!r}" if line else f"{reason} (the file ended)"


def _aws(path: str, aws, error) -> tuple[str | None, str | None]:
    if aws is None:
        return None, None
    if not isinstance(aws, dict):
        raise error(f"{path}: aws must be an object: aws {{ region = ..., accountId = ... }}")
    account, region = aws.get("accountId"), aws.get("region")
    return (None if account is None else _text(account)), (None if region is None else str(region))


def _entry(path: str, name: str, raw, account: str | None, region: str | None, error) -> dict:
    where = f"{path}: queue {name!r}"
    if not isinstance(raw, dict):
        raise error(f"{where}: a queue is an object: {name} {{ ... }}")
    attributes: dict = {}
    for key, value in raw.items():
        if isinstance(value, dict) and key not in ("deadLettersQueue", "tags"):
            # HOCON reads `orders.fifo { ... }` as a path: queue orders, holding an object fifo.
            raise error(
                f'{where}: {key} {{ ... }} is an object inside it; a queue name with a dot is quoted in HOCON: "{name}.{key}" {{ ... }}'
            )
        if key in DURATIONS:
            attributes[DURATIONS[key]] = _seconds(value, f"{where}: {key}", error)
        elif key in FLAGS:
            if not isinstance(value, bool):
                raise error(f"{where}: {key} must be true or false")
            if value:  # false is the default; SQS refuses these names on a standard queue
                attributes[FLAGS[key]] = value
        elif key == "deadLettersQueue":
            attributes["RedrivePolicy"] = _dead_letters(value, f"{where}: {key}", error)
        elif key in UNSUPPORTED:
            log.warning("%s: %s = %r is not supported and is ignored: %s", where, key, value, UNSUPPORTED[key])
        elif key not in KEPT_BY_ELASTICMQ and key != "tags":
            known = ", ".join([*DURATIONS, *FLAGS, "deadLettersQueue", "tags"])
            log.warning("%s: unknown key %r is ignored, as ElasticMQ ignores it (known: %s)", where, key, known)
    if attributes.get("FifoQueue") and not name.endswith(".fifo"):
        name += ".fifo"  # as ElasticMQ names it
    tags = raw.get("tags", {})
    if not isinstance(tags, dict):
        raise error(f"{where}: tags must be an object: tags {{ name = value }}")
    entry = {"name": name, "attributes": attributes, "tags": {key: _text(value) for key, value in tags.items()}}
    if account is not None:
        entry["account"] = account
    if region is not None:
        entry["region"] = region
    return entry


def _dead_letters(value, where: str, error) -> dict:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or "maxReceiveCount" not in value:
        raise error(
            f'{where}: needs name and maxReceiveCount: deadLettersQueue {{ name = "...", maxReceiveCount = 3 }}'
        )
    count = value["maxReceiveCount"]
    if isinstance(count, bool) or not isinstance(count, int):
        raise error(f"{where}: maxReceiveCount must be a whole number")
    return {"deadLetterTargetArn": value["name"], "maxReceiveCount": count}


def _seconds(value, where: str, error) -> int:
    """Whole seconds of a HOCON duration (truncated, as ElasticMQ reads them)."""
    if isinstance(value, bool):
        raise error(f"{where}: {value!r} is not a duration; write e.g. 10 seconds")
    if isinstance(value, (int, float)):
        if value % 1000:
            log.warning(
                "%s: %r without a unit is milliseconds, as in ElasticMQ; write e.g. %r", where, value, "10 seconds"
            )
        return int(value // 1000)
    if isinstance(value, str):
        match = _DURATION.fullmatch(value)
        if match is None or match[2] not in UNITS:
            raise error(f"{where}: {value!r} is not a duration; write e.g. 10 seconds")
        return int(match[1]) * UNITS[match[2]] // SECOND
    if getattr(value, "months", 0) or getattr(value, "years", 0):
        raise error(f"{where}: months and years are not durations; write e.g. 10 seconds")
    try:
        return int((_EPOCH + value - _EPOCH).total_seconds())  # timedelta, or dateutil's relativedelta
    except TypeError:
        raise error(f"{where}: {value!r} is not a duration; write e.g. 10 seconds") from None


def _text(value) -> str:
    """A value as ElasticMQ's getString gives it: true, 5, text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
