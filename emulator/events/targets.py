"""What a mapping invokes, and how each kind answers.

    a Python callable       handler(event, context), in-process, or "package.module:function"
    an http(s) URL          the event POSTed as JSON; the answer's body is the result (a 3xx
                            is a failure: redirects are not followed). The
                            invoke URL of AWS's Lambda runtime interface emulator,
                            http://host:port/2015-03-31/functions/function/invocations,
                            makes any Lambda container image a target
    a command (a list)      the event on stdin, the result on stdout

A command and a module's function run code of this machine: they are the operator's,
given in the config file or in Python. A command whose program does not exist is
refused when the mapping is made. A target that comes over the admin API (`remote`;
only with --allow-code-targets, emulator/server/admin/event_sources.py) imports
nothing: its module must be one the server has imported already, and its function
is looked up without running any of the module's code.

An invocation either returns the handler's result (a JSON value) or raises
InvocationFailed: an exception in the handler, a result that is not JSON, a
non-2xx answer or one flagged as a function error, a command's non-zero exit, a
timeout. The runtime interface emulator answers a function's error with status
200 and Lambda's error object ({"errorType", "errorMessage"}) and a timeout with
status 200 and plain text (aws-lambda-runtime-interface-emulator issues 20 and
21), so those count as failures too.
"""

import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Hashable
from typing import Any, Protocol

FUNCTION_REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
# A synchronous invocation's payload, the event and the answer each ("For synchronous
# invocations, the maximum payload size is 6 MB", Lambda API reference, Invoke).
MAX_PAYLOAD_BYTES = 6 * 1024 * 1024
READ_SIZE = 64 * 1024


class InvocationFailed(Exception):
    """The invocation failed as a whole; the message says how."""


class Target(Protocol):
    name: str  # the function's name in the context and the ARN

    @property
    def identity(self) -> Hashable:
        """What makes two targets the same function (one mapping per queue and function, as
        on AWS): the same callable object or "package.module:function", URL, or command line."""

    def describe(self) -> Any:
        """The target as the admin API shows it."""

    def invoke(self, event: dict, context: "LambdaContext") -> Any:
        """The handler's result, or InvocationFailed."""


class LambdaContext:
    """The parts of Lambda's context object that handlers and their libraries read."""

    memory_limit_in_mb = 128
    function_version = "$LATEST"

    def __init__(self, function_name: str, function_arn: str, timeout_seconds: float):
        self.function_name = function_name
        self.invoked_function_arn = function_arn
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "sqs-emulator"
        self._deadline = time.monotonic() + timeout_seconds
        self.timeout_seconds = timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def runs_code(value) -> bool:
    """Whether a `target` field names code of this machine: a command or a module's function."""
    return isinstance(value, list) or (isinstance(value, str) and FUNCTION_REFERENCE.fullmatch(value) is not None)


def parse(value, remote: bool = False) -> Target:
    """A target from a mapping's `target` field; ValueError says what is wrong. `remote`: the
    field came over HTTP, so a module's function is found without importing anything."""
    if callable(value):
        # a function's name, or a callable object's class name
        return CallableTarget(value, getattr(value, "__qualname__", None) or type(value).__qualname__)
    if isinstance(value, list):
        if not value or not all(isinstance(part, str) and part for part in value):
            raise ValueError("a command is a non-empty list of strings")
        _check_program(value[0])
        return CommandTarget(value)
    if not isinstance(value, str) or not value:
        raise ValueError("a URL, 'package.module:function' or a command list")
    if value.startswith(("http://", "https://")):
        return HttpTarget(value)
    if FUNCTION_REFERENCE.fullmatch(value):
        return CallableTarget(_imported(value) if remote else _import(value), value, reference=value)
    raise ValueError(f"{value!r} is neither an http(s) URL nor 'package.module:function'")


def _check_program(program: str) -> None:
    """A command's program exists: a path to an executable file, or a name found on PATH."""
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise ValueError(f"{program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise ValueError(f"no program {program!r} on PATH")


def _import(reference: str) -> Callable:
    module_name, _, attribute = reference.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except Exception as error:  # an import runs the module's code: anything may go wrong
        raise ValueError(f"cannot import {reference}: {type(error).__name__}: {error}") from None
    return _callable(found, reference)


def _imported(reference: str) -> Callable:
    """The function of a module this process imported already, found without running any code
    (no import, no module __getattr__, no descriptor)."""
    module_name, _, attribute = reference.partition(":")
    found: Any = sys.modules.get(module_name)
    if found is None:
        raise ValueError(
            f"module {module_name!r} is not imported by this server; over the admin API a module "
            "target names a module the server has imported (from the config file or in Python)"
        )
    for part in attribute.split("."):
        try:
            found = inspect.getattr_static(found, part)
        except AttributeError:
            raise ValueError(f"{reference}: no {part!r} in {module_name}") from None
    return _callable(found, reference)


def _callable(found: Any, reference: str) -> Callable:
    if not callable(found):
        raise ValueError(f"{reference} is not callable")
    return found


def _json_result(text: str | bytes, source: str) -> Any:
    """The answer as JSON, or InvocationFailed naming its size and not its contents: a
    target's answer may be anything (a page of a service it redirected to, a secret), and
    last_error goes to the admin API, the dashboard and the log."""
    try:
        return json.loads(text)
    except ValueError:
        size = len(text.encode(errors="replace") if isinstance(text, str) else text)
        raise InvocationFailed(f"{source} is not JSON ({size} bytes)") from None


def _error_object(result: Any) -> bool:
    """Lambda's shape of a function error, as a runtime answers it."""
    return isinstance(result, dict) and {"errorType", "errorMessage"} <= result.keys()


class CallableTarget:
    def __init__(self, function: Callable, name: str, reference: str | None = None):
        self._function = function
        self.name = name
        self._reference = reference
        self.identity = ("callable", reference or function)

    def describe(self) -> Any:
        return self._reference or f"<in-process {self.name}>"

    def invoke(self, event: dict, context: LambdaContext) -> Any:
        try:
            result = self._function(event, context)
        except Exception as error:
            raise InvocationFailed(f"{type(error).__name__}: {error}") from error
        try:  # Lambda serializes the result: one that is not JSON fails the invocation
            return json.loads(json.dumps(result))
        except (TypeError, ValueError) as error:
            raise InvocationFailed(f"the result is not JSON-serializable: {error}") from None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A 3xx is the target's answer, not a place to go: following it would send the event,
    or a GET, to wherever the target points, a service the operator never named."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirects)


class HttpTarget:
    def __init__(self, url: str):
        self.url = url
        self.name = url
        self.identity = ("url", url)

    def describe(self) -> Any:
        return self.url

    def invoke(self, event: dict, context: LambdaContext) -> Any:
        deadline = time.monotonic() + context.timeout_seconds
        request = urllib.request.Request(
            self.url,
            data=json.dumps(event).encode(),
            headers={"Content-Type": "application/json", "X-Amz-Request-Id": context.aws_request_id},
            method="POST",
        )
        try:
            with _OPENER.open(request, timeout=context.timeout_seconds) as answer:
                body = self._read(answer, deadline, context.timeout_seconds)
                status = answer.status
                function_error = answer.headers.get("X-Amz-Function-Error")
        except urllib.error.HTTPError as error:
            redirect = " (a redirect, which event sources do not follow)" if 300 <= error.code < 400 else ""
            raise InvocationFailed(f"HTTP {error.code} from {self.url}{redirect}") from None
        except (OSError, urllib.error.URLError) as error:  # refused, reset, timed out
            raise InvocationFailed(f"{self.url}: {error}") from None
        result = _json_result(body, f"the answer of {self.url} (HTTP {status})")
        if function_error or _error_object(result):
            raise InvocationFailed(f"function error: {json.dumps(result)[:300]}")
        return result

    def _read(self, answer, deadline: float, timeout: float) -> bytes:
        """The answer's body, read by the invocation's deadline (a target that sends a byte
        now and then must not outlive it) and at most Lambda's 6 MB."""
        chunks, size = [], 0
        while chunk := answer.read1(READ_SIZE):
            size += len(chunk)
            if size > MAX_PAYLOAD_BYTES:
                raise InvocationFailed(f"the answer of {self.url} is larger than Lambda's 6 MB payload limit")
            if time.monotonic() > deadline:
                raise InvocationFailed(f"Task timed out after {timeout} seconds")
            chunks.append(chunk)
        return b"".join(chunks)


class CommandTarget:
    def __init__(self, argv: list[str]):
        self.argv = list(argv)
        self.name = argv[0].rsplit("/", 1)[-1]
        self.identity = ("command", tuple(argv))

    def describe(self) -> Any:
        return list(self.argv)

    def invoke(self, event: dict, context: LambdaContext) -> Any:
        try:
            done = subprocess.run(
                self.argv,
                input=json.dumps(event),
                capture_output=True,
                text=True,
                timeout=context.timeout_seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise InvocationFailed(f"Task timed out after {context.timeout_seconds} seconds") from None
        except OSError as error:
            raise InvocationFailed(f"cannot run {self.argv[0]}: {error}") from None
        if done.returncode != 0:
            raise InvocationFailed(f"exit status {done.returncode}: {done.stderr.strip()[-300:]}")
        if not done.stdout.strip():
            return None  # printed nothing: the handler returned nothing
        return _json_result(done.stdout, "the command's output")
