"""Every process the benchmark starts, and what it reads of them.

The servers under test (this checkout's emulator or another's, the floor,
fauxqs, moto), the programs that measure in-process figures in a fresh
interpreter, wrk and the long-poll helper are started, read and stopped here
and nowhere else. CPU time and RSS come from psutil: the server process and
its children (a server may run its work in them).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import select
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from compat_tests.servers import stop

ROOT = Path(__file__).resolve().parent.parent  # this checkout: its bench package measures every tree
FLOOR_APP = ROOT / "scripts" / "floor_app.py"
FAUXQS_LAUNCHER = Path(__file__).resolve().parent / "fauxqs.mjs"
WRK_SCRIPTS = Path(__file__).resolve().parent / "wrk"
READY_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 5.0

EMULATOR_CMD = "{python} -m emulator --host 127.0.0.1 --port {port} --log-level warning"
MOTO_CMD = "{python} -m moto.server -H 127.0.0.1 -p {port}"
FAUXQS_CMD = "node " + str(FAUXQS_LAUNCHER) + " /tmp/fauxqs/node_modules/fauxqs/dist/app.js {port}"
FLOOR_CMD = "{python} " + str(FLOOR_APP) + " --port {port}"


@dataclass(frozen=True)
class Checkout:
    """A tree whose emulator is measured: this one, or --baseline's. Its servers and
    in-process programs import `emulator` from it and `bench` from this checkout."""

    root: Path

    def env(self) -> dict[str, str]:
        # `bench` from this checkout first: another's root may hold a `bench` of its own. Its
        # `emulator` comes first anyway, from the working directory (`python -m` puts it first).
        return dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys([str(ROOT), str(self.root)])))

    def program_dir(self) -> Path:
        """A working directory for `python -m bench...` (which puts it first on the path) in which
        `emulator` is this checkout's: its root for ours, a directory holding only a link to its
        package for another (its root might hold a `bench` of its own)."""
        if self.root == ROOT:
            return ROOT
        links = Path(tempfile.gettempdir()) / f"sqs-bench-tree-{hashlib.sha1(str(self.root).encode()).hexdigest()[:12]}"
        links.mkdir(exist_ok=True)
        link = links / "emulator"
        if not link.exists():
            link.symlink_to(self.root / "emulator", target_is_directory=True)
        return links


THIS = Checkout(ROOT)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def allow_descriptors(wanted: int) -> None:
    """Raise this process's soft limit on open files toward `wanted` (its children inherit it):
    2,000 waiting long polls are 2,000 sockets in the helper and in the server."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


class Server:
    """A server subprocess: start, wait for its port, read CPU and RSS, stop."""

    def __init__(self, label: str, command: str, log_dir: str, checkout: Checkout = THIS):
        self.label = label
        self.command = command  # {python} and {port} are filled in at each start
        self.checkout = checkout
        self.log_path = os.path.join(log_dir, f"{label.replace('#', '_').replace(' ', '_')}.log")
        self.proc: subprocess.Popen | None = None
        self.ps: psutil.Process | None = None
        self.port = 0
        self.down_reason: str | None = None  # set when the server stops answering

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        argv = shlex.split(self.command.format(python=sys.executable, port=self.port))
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.checkout.env(),
                cwd=self.checkout.root,  # `python -m emulator` imports from its working directory first
            )
        self.ps = psutil.Process(self.proc.pid)
        self._wait_ready()

    def _wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label} exited with code {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.label} did not open port {self.port} in {READY_TIMEOUT_S:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def _processes(self) -> list[psutil.Process]:
        if self.ps is None:
            return []
        try:
            return [self.ps, *self.ps.children(recursive=True)]
        except psutil.Error:
            return [self.ps]

    def cpu_seconds(self) -> float:
        """User + system CPU of the server process and its live children."""
        total = 0.0
        for p in self._processes():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def threads(self) -> int:
        """Threads of the server process and its live children."""
        total = 0
        for p in self._processes():
            try:
                total += p.num_threads()
            except psutil.Error:
                pass
        return total

    def rss_bytes(self) -> int:
        total = 0
        for p in self._processes():
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def stop(self) -> None:
        if self.proc is None:
            return
        stop(self.proc, STOP_TIMEOUT_S)
        self.proc = None
        self.ps = None

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer ends it: no chance to write anything more."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait(timeout=STOP_TIMEOUT_S)
        self.proc = None
        self.ps = None

    def restart(self) -> None:
        self.stop()
        self.start()


def on_fresh(server: Server, measure: Callable[[Server], dict]) -> dict:
    """`measure(server)` on the server started for it, stopped after: a run that inherits no
    other's queues, heap or connections. Its error is its result (one target's failure is
    its cell, not the run's end)."""
    try:
        server.start()
        return measure(server) | {"pid": server.pid}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        server.stop()  # one that exited at start is reaped too


class Meter:
    """Wall time and a server's CPU time over a `with` block, and the CPU everything else on
    the machine used meanwhile (`others`: neither the server nor this process and the children
    it has waited for, such as wrk; the hypervisor's steal included): a figure measured beside
    other work is not the figure of a quiet machine, and not every server suffers alike."""

    def __init__(self, server: Server):
        self.server = server
        self.wall = self.cpu = self.others = 0.0

    def __enter__(self) -> Meter:
        self.cpu0, self.machine0, self.own0 = self.server.cpu_seconds(), _machine_busy(), _own_cpu()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.t0
        self.cpu = self.server.cpu_seconds() - self.cpu0
        self.others = max(0.0, _machine_busy() - self.machine0 - self.cpu - (_own_cpu() - self.own0))

    @property
    def other_cores(self) -> float:
        # Every count here is in 10 ms ticks: over a short block the sum may pass the machine's cores.
        return min(self.others / self.wall, float(os.cpu_count() or 1)) if self.wall > 0 else 0.0


def _machine_busy() -> float:
    """CPU seconds every core spent on anything but idling, since boot (guest time is in user)."""
    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0) - getattr(t, "guest", 0.0) - getattr(t, "guest_nice", 0.0)


def _own_cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def settle(servers: list[Server], timeout_s: float = 10.0, window_s: float = 0.25, busy: float = 0.05) -> float:
    """Wait until no server uses more than `busy` of a core over `window_s` (a store writing
    out a deleted queue, a collection), at most `timeout_s`; returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        before = sum(s.cpu_seconds() for s in servers)
        time.sleep(window_s)
        if sum(s.cpu_seconds() for s in servers) - before <= busy * window_s:
            break
    return time.monotonic() - started


def run_program(module: str, args: list[str], checkout: Checkout = THIS) -> dict:
    """`python -m module args` in a fresh interpreter importing `checkout`'s emulator; its
    progress goes to our stderr, its last line of output is the JSON it measured."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        env=checkout.env(),
        cwd=checkout.program_dir(),
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"python -m {module} exited with code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_pyperf(module: str, args: list[str], output: Path, checkout: Checkout = THIS) -> None:
    """A pyperf program (its Runner spawns the worker processes) writing its benchmarks to `output`."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--quiet", "--output", str(output), *args],
        env=checkout.env(),
        cwd=checkout.program_dir(),
        stdout=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"python -m {module} (pyperf) exited with code {done.returncode}")


def run_wrk(script: str, url: str, seconds: int, connections: int, script_args: list[str]) -> dict:
    """Debian's wrk, one thread, `connections` keep-alive connections, for `seconds`, driven by
    bench/wrk/`script`; returns what the script's done() reported (bench/wrk/report.lua)."""
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s"]
    argv += ["-s", str(WRK_SCRIPTS / script), url, "--", *script_args]
    env = dict(os.environ, LUA_PATH=f"{WRK_SCRIPTS}/?.lua;;")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=seconds + 60)
    for line in done.stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[len("BENCH ") :])
    raise RuntimeError(
        f"wrk {script} gave no report (exit {done.returncode}): {done.stdout[-500:]} {done.stderr[-500:]}"
    )


class Helper:
    """A helper program (`python -m module args`) that prints one line when it is ready and
    then runs until stopped: the long-poll holder."""

    def __init__(self, module: str, args: list[str], ready_timeout_s: float = 60.0):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            env=THIS.env(),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        ready = _line_within(self.proc, ready_timeout_s)
        if ready is None:
            self.stop()
            raise RuntimeError(f"python -m {module} was not ready in {ready_timeout_s:.0f} s")
        self.ready: dict = json.loads(ready)

    def stop(self) -> None:
        stop(self.proc, STOP_TIMEOUT_S)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _line_within(proc: subprocess.Popen, timeout_s: float) -> str | None:
    """The next line `proc` prints, or None if it prints none within `timeout_s` or exits."""
    assert proc.stdout is not None
    readable, _, _ = select.select([proc.stdout], [], [], timeout_s)
    return (proc.stdout.readline() or None) if readable else None
