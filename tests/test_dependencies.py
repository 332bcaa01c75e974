"""The package uses its dependencies through their documented doors only: no name of a
dependency that starts with an underscore (imported, or reached as an attribute), every
name imported from a dependency on the list below with the documentation that offers it,
and no class of the package built on a dependency's class. A dependency's own security
release may rewrite its internals (waitress 3.0.1 rewrote the methods this package once
overrode); its documented API is what its changelog keeps.

Read from the source with ast, as tests/test_layout.py does; stdlib modules are not checked.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "emulator"

# module -> the names the package imports from it, each module with where it is documented.
DOCUMENTED = {
    # https://werkzeug.palletsprojects.com/en/stable/ (wrappers, datastructures, http, utils, routing)
    "werkzeug.wrappers": {"Request", "Response"},
    "werkzeug.datastructures": {"MultiDict", "MIMEAccept"},
    "werkzeug.http": {"parse_accept_header", "parse_options_header"},
    "werkzeug.utils": {"redirect"},
    "werkzeug.routing": {"Map", "Rule"},
    "werkzeug.exceptions": {"HTTPException", "MethodNotAllowed", "NotFound"},
    # botocore: its service model and its signer (the project's stated uses);
    # https://botocore.amazonaws.com/v1/documentation/api/latest/reference/
    "botocore": {"xform_name"},
    "botocore.model": {"Shape", "ServiceModel", "OperationModel", "StructureShape", "ListShape", "MapShape"},
    "botocore.session": set(),
    "botocore.auth": {"SIGV4_TIMESTAMP", "SigV4Auth", "SigV4QueryAuth"},
    "botocore.awsrequest": {"AWSRequest"},
    "botocore.credentials": {"Credentials"},
    # the whole module: https://github.com/MagicStack/httptools#apis (HttpRequestParser and its
    # protocol's callbacks, parse_url, the HttpParserError family)
    "httptools": set(),
    # https://prometheus.github.io/client_python/ (exporting, custom collectors)
    "prometheus_client": {"CONTENT_TYPE_LATEST", "CollectorRegistry", "disable_created_metrics", "generate_latest"},
    "prometheus_client.core": {"CounterMetricFamily", "GaugeMetricFamily", "HistogramMetricFamily"},
    # https://github.com/chimpler/pyhocon#usage; the parse errors it raises are pyparsing's
    # (https://pyparsing-docs.readthedocs.io/, ParseBaseException)
    "pyhocon": {"ConfigFactory"},
    "pyhocon.exceptions": {"ConfigException"},
    "pyparsing": {"ParseBaseException"},
    # https://uvloop.readthedocs.io/ (uvloop.new_event_loop)
    "uvloop": set(),
    # whole modules: https://github.com/ijl/orjson#readme, https://github.com/martinblech/xmltodict#readme
    "orjson": set(),
    "xmltodict": set(),
    # the pytest plugin (emulator/testing/): https://docs.pytest.org/en/stable/reference/reference.html
    "pytest": set(),
    # serve().client(): https://boto3.amazonaws.com/v1/documentation/api/latest/reference/core/session.html
    "boto3": set(),
}


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return top != "emulator" and top not in sys.stdlib_module_names


def _imports(tree: ast.AST):
    """(module, name or None, node) for every import of a dependency; name None: `import module`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name):
                    yield alias.name, None, node
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and _third_party(node.module):
            for alias in node.names:
                yield node.module, alias.name, node


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def findings(sources: dict[str, str]) -> dict[str, list[str]]:
    """What breaks each rule in `sources` (file name -> Python source)."""
    found: dict[str, list[str]] = {"private": [], "undocumented": [], "subclassed": []}
    for where, text in sources.items():
        tree = ast.parse(text)
        bound = {}  # local name -> a dependency's module or name
        for module, name, node in _imports(tree):
            if any(_private(part) for part in module.split(".")) or (name and _private(name)):
                found["private"].append(f"{where}:{node.lineno} imports {module} {name or ''}")
            if module not in DOCUMENTED or (name is not None and name not in DOCUMENTED[module]):
                found["undocumented"].append(f"{where}:{node.lineno} {module} {name or '(module)'}")
            bound[name or module.split(".")[0]] = module
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and _root(node) in bound:
                found["private"].append(f"{where}:{node.lineno} reaches {_root(node)}...{node.attr}")
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    if _root(base) in bound:
                        found["subclassed"].append(f"{where}:{node.lineno} class {node.name}({ast.unparse(base)})")
    return found


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _package() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_private_name_of_a_dependency_is_imported_or_reached():
    wrong = findings(_package())["private"]
    assert not wrong, "\n".join(wrong)


def test_every_name_imported_from_a_dependency_is_documented():
    wrong = findings(_package())["undocumented"]
    assert not wrong, "add each with where it is documented, or use another door:\n" + "\n".join(wrong)


def test_no_class_is_built_on_a_dependencys_class():
    wrong = findings(_package())["subclassed"]
    assert not wrong, "\n".join(wrong)


def test_each_rule_catches_what_it_is_for():
    found = findings(
        {
            "bad.py": "import granian._granian\n"
            "from werkzeug.wrappers import Request\n"
            "from werkzeug.serving import run_simple\n"
            "import orjson\n"
            "orjson._hidden()\n"
            "class Mine(Request): pass\n"
        }
    )
    assert [line.split(" ", 1)[1] for line in found["private"]] == [
        "imports granian._granian ",
        "reaches orjson..._hidden",
    ]
    assert [line.split(" ", 1)[1] for line in found["undocumented"]] == [
        "granian._granian (module)",
        "werkzeug.serving run_simple",
    ]
    assert found["subclassed"] == ["bad.py:6 class Mine(Request)"]
