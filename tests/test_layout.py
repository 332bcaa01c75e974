"""The package keeps the shape docs/architecture.md draws: imports point down the
layers, none forms a cycle, and every document a comment cites is in the repository.

Read from the source with ast, so the check costs no import and sees lazy
(function-level) imports too.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "emulator"

# What each part of the package may import (besides itself). The engine is the
# bottom; the store sits beside api/, above the engine; server/ wires them all;
# inspect/ is a leaf that only the CLI and testing/ reach; nothing imports testing/.
# events/ (event source mappings) sits beside api/: it drives the engine's queues
# as a consumer in the process does, and server/ wires it.
MAY_IMPORT = {
    "errors": set(),
    "limits": set(),
    "engine": {"errors", "limits"},
    "protocol": {"errors", "limits"},
    "api": {"engine", "errors", "limits"},
    "store": {"engine", "errors", "limits"},
    "events": {"engine", "errors", "limits"},
    "server": {"protocol", "api", "store", "events", "engine", "errors", "limits", "inspect"},
    "inspect": set(),
    "testing": {"server", "inspect", "engine", "errors", "limits"},
    "__init__": {"testing"},  # `from emulator import serve`, lazily
    "__main__": {"server"},
}
# inspect/ is reached only from these modules: the CLI entry and the testing aids.
INSPECT_USERS = ("emulator.server.cli", "emulator.testing")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, top_level_only: bool) -> set[str]:
    """The emulator modules a file imports (`from emulator.x import y` counts y when it is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("emulator"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("emulator") and not node.level:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                # `from package import module` needs the module, not the package's own names
                found.add(candidate if _is_module(candidate) else node.module)
    return found


def _is_module(name: str) -> bool:
    path = PACKAGE.parent / name.replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _sources() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def test_every_part_of_the_package_has_a_rule():
    parts = {_part(module) for module in _sources() if module != "emulator"} | {"__init__"}
    assert parts <= MAY_IMPORT.keys(), f"add a rule for {parts - MAY_IMPORT.keys()}"


def test_imports_point_down_the_layers():
    wrong = []
    for module, path in _sources().items():
        part = _part(module) if module != "emulator" else "__init__"
        for imported in _imports(path, top_level_only=False):
            target = _part(imported) if imported != "emulator" else "__init__"
            if target != part and target not in MAY_IMPORT[part]:
                wrong.append(f"{module} imports {imported}")
            if target == "inspect" and part != "inspect" and not module.startswith(INSPECT_USERS):
                wrong.append(f"{module} imports the leaf package {imported}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    sources = _sources()
    graph = {module: _imports(path, top_level_only=True) & sources.keys() for module, path in sources.items()}
    # A package's __init__ runs before its submodules: importing emulator.a.b imports emulator.a first.
    for module in list(graph):
        graph[module] = {m for m in graph[module] if m != module}
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                cycles.append(" -> ".join([*path[path.index(imported) :], imported]))
            elif imported not in state:
                visit(imported, [*path, imported])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_no_module_imports_names_from_its_own_package():
    """A package's __init__ may import its modules; a module importing a name back
    from its package's __init__ runs back up (and breaks when __init__ imports it)."""
    wrong = []
    for module, path in _sources().items():
        for imported in _imports(path, top_level_only=False):
            if module.startswith(imported + ".") and imported != "emulator":
                wrong.append(f"{module} imports a name from {imported}")
    assert not wrong, "\n".join(wrong)


CITATION = re.compile(r"\bdocs/[\w./-]+\.md")


def test_every_document_the_code_cites_is_in_the_repository():
    missing = []
    for folder in ("emulator", "tests", "compat_tests", "scripts"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".js", ".html") or "node_modules" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for cited in CITATION.findall(line):
                    if not (ROOT / cited).exists():
                        missing.append(f"{path.relative_to(ROOT)}:{number} cites {cited}")
    assert not missing, "\n".join(missing)


# -- the engine touches no process-wide state ---------------------------------------
# The engine runs inside other people's processes (serve(), the pytest plugin, a user's
# script), so what belongs to the whole process is the program's, never the engine's
# (design.md, "The front door"): the garbage collector (emulator/server/collector.py is
# the server's policy), signals, exit hooks, the recursion limit and the interpreter's
# hooks, the environment and working directory, logging's configuration, warnings
# filters, the global random generator's seed, sockets' default timeout.

# Modules that exist to change the process: importing one at all is refused.
PROCESS_MODULES = {"gc", "signal", "atexit", "faulthandler", "tracemalloc", "resource", "locale", "logging.config"}
# Names that change the process for everyone, by module: calling or importing one is refused.
PROCESS_SETTERS = {
    "sys": {
        "setrecursionlimit",
        "setswitchinterval",
        "settrace",
        "setprofile",
        "set_int_max_str_digits",
        "setdlopenflags",
        "addaudithook",
        "exit",
    },
    "threading": {"settrace", "setprofile", "settrace_all_threads", "setprofile_all_threads", "stack_size"},
    "os": {"putenv", "unsetenv", "chdir", "fchdir", "umask", "nice", "setsid", "setpgrp", "register_at_fork"},
    "logging": {"basicConfig", "disable", "captureWarnings", "setLoggerClass", "setLogRecordFactory", "root"},
    "warnings": {"filterwarnings", "simplefilter", "resetwarnings"},
    "random": {"seed", "setstate"},
    "socket": {"setdefaulttimeout"},
}
# Writes to these count too: assigning a module's attribute (sys.excepthook = ...,
# threading.excepthook = ...) and changing os.environ.
ENVIRON_WRITES = {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__"}


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> module, for every `import x` / `import x as y` in the file."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]  # `import logging.config` binds `logging`
                aliases[alias.asname or top] = alias.name if alias.asname else top
    return aliases


def process_state_uses(source: str) -> list[str]:
    """What a module's source does to process-wide state (the rules above), line by line."""
    tree = ast.parse(source)
    modules = _module_aliases(tree)
    found = []

    def module_of(node: ast.AST) -> str | None:
        return modules.get(node.id) if isinstance(node, ast.Name) else None

    def is_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" and module_of(node.value) == "os"

    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in PROCESS_MODULES or alias.name.split(".")[0] in PROCESS_MODULES:
                    found.append(f"{where}: imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module in PROCESS_MODULES or node.module.split(".")[0] in PROCESS_MODULES:
                found.append(f"{where}: imports from {node.module}")
            for alias in node.names:
                if alias.name in PROCESS_SETTERS.get(node.module, ()) or (node.module, alias.name) == ("os", "environ"):
                    found.append(f"{where}: imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Attribute):
            module = module_of(node.value)
            if module is not None and node.attr in PROCESS_SETTERS.get(module, ()):
                found.append(f"{where}: uses {module}.{node.attr}")
            elif module is not None and isinstance(node.ctx, ast.Store | ast.Del):
                found.append(f"{where}: sets {module}.{node.attr}")
            elif is_environ(node.value) and node.attr in ENVIRON_WRITES:
                found.append(f"{where}: changes os.environ ({node.attr})")
            elif is_environ(node) and isinstance(node.ctx, ast.Store | ast.Del):
                found.append(f"{where}: replaces os.environ")
        elif isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Store | ast.Del):
            found.append(f"{where}: changes os.environ")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "getLogger"
            and module_of(node.func.value) == "logging"
            and not node.args
        ):
            found.append(f"{where}: takes the root logger (the program's to configure)")
    return found


def test_the_engine_touches_no_process_wide_state():
    wrong = []
    for module, path in _sources().items():
        if _part(module) == "engine":
            wrong += [f"{module}, {use}" for use in process_state_uses(path.read_text(encoding="utf-8"))]
    assert not wrong, "\n".join(wrong)


def test_the_process_state_rule_sees_each_kind_of_use():
    uses = {
        "import gc": "imports gc",
        "from gc import freeze": "imports from gc",
        "import signal as s": "imports signal",
        "import sys\nsys.setrecursionlimit(10_000)": "uses sys.setrecursionlimit",
        "import threading\nthreading.excepthook = print": "sets threading.excepthook",
        "from sys import settrace": "imports sys.settrace",
        "import os\nos.environ['TZ'] = 'UTC'": "changes os.environ",
        "import os\nos.environ.setdefault('TZ', 'UTC')": "changes os.environ (setdefault)",
        "from os import environ": "imports os.environ",
        "import logging\nlogging.basicConfig(level='DEBUG')": "uses logging.basicConfig",
        "import logging\nlogging.getLogger().setLevel('DEBUG')": "takes the root logger",
        "import logging.config": "imports logging.config",
        "import random\nrandom.seed(1)": "uses random.seed",
    }
    for source, expected in uses.items():
        assert any(expected in use for use in process_state_uses(source)), source
    harmless = "import logging, os, random, sys, threading\nlog = logging.getLogger(__name__)\n"
    harmless += "rng = random.Random(1)\nlock = threading.Lock()\nhome = os.environ.get('HOME')\nn = sys.maxsize\n"
    assert process_state_uses(harmless) == []
