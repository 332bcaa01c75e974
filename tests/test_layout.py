"""The package keeps the shape docs/architecture.md draws: imports point down the
layers, none forms a cycle, and every document a comment cites is in the repository.

Read from the source with ast, so the check costs no import and sees lazy
(function-level) imports too.
"""

import ast
import importlib
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
    "logtext": set(),
    "engine": {"errors", "limits"},
    "protocol": {"errors", "limits"},
    "api": {"engine", "errors", "limits"},
    "store": {"engine", "errors", "limits"},
    "events": {"engine", "errors", "limits", "logtext"},
    "server": {"protocol", "api", "store", "events", "engine", "errors", "limits", "inspect", "logtext"},
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


def test_the_transport_imports_neither_the_api_nor_the_store():
    """The HTTP server (emulator/server/http/) knows requests, not queues: what an answer
    waits for is the drivers' (emulator/server/drivers.py), reached through the app."""
    wrong = [
        f"{module} imports {imported}"
        for module, path in _sources().items()
        if module.startswith("emulator.server.http")
        for imported in _imports(path, top_level_only=False)
        if imported.startswith(("emulator.api", "emulator.store", "emulator.engine"))
    ]
    assert not wrong, "\n".join(wrong)


CITATION = re.compile(r"\bdocs/[\w./-]+\.md")


def test_every_document_the_code_cites_is_in_the_repository():
    missing = []
    for folder in ("emulator", "tests", "compat_tests", "scripts", "bench"):
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


# -- no class reads what only a subclass defines -----------------------------------
# A class says what it holds: every `self.X` it reads is assigned by it or a base, or is
# a method, property or class attribute of it or a base. A bare annotation (`x: T` in
# the class body) declares nothing that exists: it is how a base promises what only a
# subclass provides (Queue's old bases did; queue.py composes its parts instead). In a
# dataclass or a NamedTuple an annotation is a field, so it counts there. A class with
# a base from outside the package that sets attributes of its own (waitress's,
# werkzeug's, argparse's) is not judged: what those bases set is not in their source here.

# Outside bases whose attributes are all on the class itself (dir() shows them).
PLAIN_BASES = {"typing.Protocol", "typing.Generic", "typing.NamedTuple", "enum.Enum", "builtins"}
FIELD_DECORATORS = {"dataclass", "dataclasses.dataclass"}


def _is_attribute_of(node: ast.AST, name: str) -> bool:
    """Whether node is `name.something`."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name


class _Class:
    def __init__(self, module: str, node: ast.ClassDef, imports: dict[str, str], local: set[str]):
        self.module = module
        self.node = node
        self.name = f"{module}.{node.name}"
        self.imports = imports
        self.local = local  # the module's own top-level class names

    def base_names(self) -> list[str | None]:
        """Each base as a dotted name (None: not a name, e.g. a call)."""
        return [self._resolve(base) for base in self.node.bases]

    def _resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.local:
                return f"{self.module}.{node.id}"
            return self.imports.get(node.id, f"builtins.{node.id}")
        if isinstance(node, ast.Attribute):
            head = self._resolve(node.value)
            return None if head is None else f"{head}.{node.attr}"
        return None

    def has_fields(self) -> bool:
        """A dataclass or a NamedTuple: its annotations are fields."""
        decorators = [d.func if isinstance(d, ast.Call) else d for d in self.node.decorator_list]
        named = {ast.unparse(d) for d in decorators}
        return bool(named & FIELD_DECORATORS) or "typing.NamedTuple" in self.base_names()

    def methods(self) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
        """(method, the name its instance or class goes by), static methods left out."""
        found = []
        for item in self.node.body:
            static = any(ast.unparse(d) == "staticmethod" for d in getattr(item, "decorator_list", ()))
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.args.args and not static:
                found.append((item, item.args.args[0].arg))
        return found

    def defines(self) -> set[str]:
        names = set()
        fields = self.has_fields()  # then a bare annotation is a field
        for item in self.node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(item.name)
            elif isinstance(item, ast.Assign):
                names.update(target.id for target in item.targets if isinstance(target, ast.Name))
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.update([item.target.id] if item.value is not None or fields else [])
        for method, me in self.methods():
            for node in ast.walk(method):
                if _is_attribute_of(node, me) and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
                elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("setattr", "object.__setattr__"):
                    target, name = node.args[:2]
                    if isinstance(target, ast.Name) and target.id == me and isinstance(name, ast.Constant):
                        names.add(name.value)
        return names

    def reads(self) -> list[tuple[int, str]]:
        found = []
        for method, me in self.methods():
            for node in ast.walk(method):
                if _is_attribute_of(node, me) and isinstance(node.ctx, ast.Load):
                    found.append((node.lineno, node.attr))
        return found


def _classes(sources: dict[str, str]) -> dict[str, _Class]:
    """Every top-level class of the given modules' sources, by dotted name."""
    classes = {}
    for module, source in sources.items():
        tree = ast.parse(source)
        imports = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                # `from .shapes import Codec` in emulator.protocol.awsquery: emulator.protocol.shapes
                package = ".".join(module.split(".")[: -node.level]) if node.level else ""
                origin = ".".join(part for part in (package, node.module or "") if part)
                imports.update({alias.asname or alias.name: f"{origin}.{alias.name}" for alias in node.names})
            elif isinstance(node, ast.Import):
                imports.update({alias.asname or alias.name: alias.name for alias in node.names})
        local = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found = _Class(module, node, imports, local)
                classes[found.name] = found
    return classes


def _outside_names(dotted: str) -> set[str] | None:
    """The attributes of a base from outside the package, or None if it is not a plain one."""
    module, _, name = dotted.rpartition(".")
    if not (dotted in PLAIN_BASES or module in PLAIN_BASES):
        return None
    return set(dir(getattr(importlib.import_module(module), name)))


def subclass_only_reads(sources: dict[str, str]) -> list[str]:
    """`module.Class line N reads self.X` for each read no class of its lineage defines."""
    classes = _classes(sources)
    known: dict[str, set[str] | None] = {}

    def defined(name: str) -> set[str] | None:  # None: not judged
        if name not in known:
            known[name] = None  # a cycle is not judged either
            own = classes[name]
            names = own.defines() | set(dir(object))
            for base in own.base_names():
                more = None if base is None else defined(base) if base in classes else _outside_names(base)
                if more is None:
                    return None
                names |= more
            known[name] = names
        return known[name]

    wrong = []
    for name, found in classes.items():
        names = defined(name)
        if names is not None:
            wrong += [f"{name} line {line} reads self.{attr}" for line, attr in found.reads() if attr not in names]
    return wrong


def test_no_class_reads_what_only_a_subclass_defines():
    sources = {module: path.read_text(encoding="utf-8") for module, path in _sources().items()}
    wrong = subclass_only_reads(sources)
    assert not wrong, "\n".join(wrong)


# The shape of the old QueueConfig -> QueueTransfers -> Queue chain: a base that declares
# what its subclass assigns, and reads it.
STACKED = """
class QueueConfig:
    def __init__(self, name):
        self.name = name

class QueueTransfers(QueueConfig):
    _states: dict
    deleted: bool

    def _enqueue(self, message):
        raise NotImplementedError

    def accept_move(self, message):
        if self.deleted:
            return False
        self._states[message] = self.name
        self._enqueue(message)

class Queue(QueueTransfers):
    def __init__(self, name):
        super().__init__(name)
        self._states = {}
        self.deleted = False

    def _enqueue(self, message):
        pass
"""


def test_the_subclass_rule_catches_a_base_reading_its_subclass():
    assert subclass_only_reads({"old.queue": STACKED}) == [
        "old.queue.QueueTransfers line 14 reads self.deleted",
        "old.queue.QueueTransfers line 16 reads self._states",
    ]
    fields = (
        "import dataclasses\n@dataclasses.dataclass\nclass A:\n    x: int\n    def f(self):\n        return self.x\n"
    )
    assert subclass_only_reads({"m": fields}) == []
