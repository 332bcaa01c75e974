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
    for folder in ("emulator", "tests", "compat_tests", "scripts", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".js", ".html") or "node_modules" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for cited in CITATION.findall(line):
                    if not (ROOT / cited).exists():
                        missing.append(f"{path.relative_to(ROOT)}:{number} cites {cited}")
    assert not missing, "\n".join(missing)
