"""A small client of the admin API (emulator/server/admin/__init__.py lists the routes),
on the standard library only. The pytest plugin, `emulator.serve` and the
inspector command line (`sqs-emulator queues|peek|advance|reset`) use it.

    client = AdminClient("http://127.0.0.1:9324")
    client.advance(31)
    for message in client.peek("orders", state="inflight"):
        print(message["id"], message["receive_count"])

A 4xx or 5xx answer raises AdminApiError (its .status and the server's "error"
text); a server that cannot be reached raises EmulatorUnreachable.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import overload

DEFAULT_TIMEOUT = 10.0  # seconds; no admin route waits on anything
PAGE = 1000  # the most messages the server returns per peek request
TOKEN_VARIABLE = "SQS_EMULATOR_ADMIN_TOKEN"


class AdminApiError(Exception):
    """The admin API answered with an error status."""

    def __init__(self, status: int, error: str):
        super().__init__(f"{error} (HTTP {status})")
        self.status = status
        self.error = error


class EmulatorUnreachable(ConnectionError):
    """Nothing answered at the endpoint (not listening, wrong host, timed out)."""

    def __init__(self, endpoint: str, reason: str):
        super().__init__(f"cannot reach the emulator at {endpoint}: {reason}")
        self.endpoint = endpoint
        self.reason = reason


class AdminClient:
    def __init__(self, endpoint: str, timeout: float = DEFAULT_TIMEOUT, token: str | None = None):
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        # The admin token of a server run with --require-auth.
        self.token = token if token is not None else os.environ.get(TOKEN_VARIABLE)

    def __repr__(self) -> str:
        return f"AdminClient({self.endpoint!r})"

    # -- routes -----------------------------------------------------------------

    def health(self) -> dict:
        """{"status", "version", "clock", "now", "account", "region", "queues", "persistence"}."""
        return self._call("GET", "health")

    def queues(self) -> list[dict]:
        """Every queue of every account and region, with counts, totals, attributes, tags, faults."""
        return self._call("GET", "queues")["queues"]

    def peek(
        self,
        queue: str,
        state: str = "all",
        limit: int | None = 100,
        account: str | None = None,
        region: str | None = None,
    ) -> list[dict]:
        """Up to `limit` messages of a queue (URL or name; None: all of them), in
        arrival order, following the server's pages. Changes nothing: no
        visibility, no receive count. `state`: visible, inflight, delayed or all."""
        found: list[dict] = []
        page = PAGE if limit is None else min(limit, PAGE)
        for message in self.iter_messages(queue, state, account, region, page):
            if limit is not None and len(found) >= limit:
                break
            found.append(message)
        return found

    def iter_messages(
        self, queue: str, state: str = "all", account: str | None = None, region: str | None = None, page: int = PAGE
    ) -> Iterator[dict]:
        """Every message of a queue in the given state, one page request at a time."""
        after = None
        while True:
            params = {
                "queue": queue,
                "state": state,
                "limit": max(1, min(page, PAGE)),
                "account": account,
                "region": region,
                "after": after,
            }
            answer = self._call("GET", "messages", params)
            yield from answer["messages"]
            after = answer.get("next")
            if after is None:
                return

    def advance(self, seconds: float) -> float:
        """Move the server's manual clock; returns its new reading (epoch seconds)."""
        return float(self._call("POST", "clock/advance", body={"seconds": seconds})["now"])

    def reset(self) -> None:
        """Delete every queue, message, task and cooldown (the clock keeps its time)."""
        self._call("POST", "reset")

    def set_faults(self, queue: str, **fields) -> dict | None:
        """Give a queue a fault policy (duplicate_delivery, lost_delete,
        delayed_visibility_seconds, seed; account/region to name another
        account's queue by name); returns the policy now in force."""
        return self._call("PUT", "faults", body={"queue": queue, **fields})["faults"]

    @overload
    def faults(self, queue: str) -> dict | None: ...
    @overload
    def faults(self, queue: None = None) -> list[dict]: ...
    def faults(self, queue: str | None = None) -> dict | list[dict] | None:
        """One queue's policy (None: it has none), or without a queue every
        policy in force as [{"queue": url, "faults": {...}}]."""
        if queue is None:
            return self._call("GET", "faults")["faults"]
        return self._call("GET", "faults", {"queue": queue})["faults"]

    def clear_faults(self, queue: str | None = None) -> None:
        """Remove one queue's fault policy, or every queue's."""
        self._call("DELETE", "faults", {"queue": queue})

    def add_error_rule(self, error: str, **fields) -> dict:
        """Answer matching SQS calls with AWS's `error` instead of running them (queue,
        operation, probability, after, count, entries, seed, message); returns the rule."""
        return self._call("POST", "error-rules", body={"error": error, **fields})["rule"]

    def error_rules(self) -> dict:
        """{"rules": [...], "kms_keys": {...}}: the rules in force, with their counts, and the keys' states."""
        return self._call("GET", "error-rules")

    def clear_error_rules(self, rule_id: int | None = None) -> None:
        """Remove one error rule, or every one."""
        self._call("DELETE", "error-rules", {"id": rule_id})

    def set_kms_key(self, key: str, state: str) -> dict:
        """Set a KMS key's state (disabled, pending_deletion, not_found, access_denied,
        invalid_usage, throttled, opt_in_required, enabled); returns every key's state."""
        return self._call("PUT", "kms-keys", body={"key": key, "state": state})["kms_keys"]

    def history(self, message_id: str) -> list[dict]:
        """A message's story, oldest event first, from every queue that kept it (each event
        names its `queue`); AdminApiError 404 when none did."""
        return self._call("GET", f"histories/{urllib.parse.quote(message_id, safe='')}")["events"]

    def histories(self, queue: str, limit: int = 100) -> dict:
        """A queue's newest stories and what its histories hold (kept, dropped, empty short polls)."""
        return self._call("GET", "histories", {"queue": queue, "limit": limit})

    def history_summary(self) -> dict:
        """The hazards consumers met, from every queue's stories (what the plugin's summary prints)."""
        return self._call("GET", "histories/summary")

    # -- HTTP -------------------------------------------------------------------

    def _call(self, method: str, route: str, params: dict | None = None, body: dict | None = None) -> dict:
        url = f"{self.endpoint}/_emulator/{route}"
        query = {name: value for name, value in (params or {}).items() if value is not None}
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else (b"" if method in ("POST", "PUT") else None)
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:  # else urllib says form-urlencoded, which the server refuses
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return _parse(response.status, response.read())
        except urllib.error.HTTPError as error:
            try:
                raw = error.read()
            except (OSError, AttributeError):
                raw = b""
            finally:
                error.close()
            raise AdminApiError(error.code, _error_text(raw)) from None
        except urllib.error.URLError as error:
            raise EmulatorUnreachable(self.endpoint, str(getattr(error, "reason", error))) from None
        except (OSError, ValueError) as error:  # a reset connection, a timeout, a malformed URL
            raise EmulatorUnreachable(self.endpoint, str(error) or type(error).__name__) from None


NOT_ADMIN = "the answer is not the admin API's JSON; is this an SQS emulator's endpoint?"


def _parse(status: int, raw: bytes) -> dict:
    try:
        answer = json.loads(raw)
    except ValueError:
        raise AdminApiError(status, NOT_ADMIN) from None
    if not isinstance(answer, dict):
        raise AdminApiError(status, NOT_ADMIN)
    return answer


def _error_text(raw: bytes) -> str:
    try:
        answer = json.loads(raw)
    except ValueError:
        return NOT_ADMIN
    if isinstance(answer, dict) and isinstance(answer.get("error"), str):
        return answer["error"]
    return NOT_ADMIN
