"""The house rules of docs/ARCHITECTURE.md: small modules, small folders, imports in one direction.

- no module over 400 lines;
- no folder with more than 15 modules;
- no import cycle between modules. Every import is an edge: one inside a function (deferring an import hides a
  cycle, it does not remove it) and one under `if TYPE_CHECKING:` (a type named is a module known). Importing a
  package runs its __init__, but `from pkg import module` is an edge to the module only, so a package's __init__
  re-exporting its modules is not a cycle;
- the composition root (engine.py, the Emulator) is the only module that knows every component: no module below
  it imports it (COMPONENTS_STILL_REACHING_BACK names those not yet built with their collaborators passed in; the
  list may only shrink);
- moto's internals are reached only from emulator/moto_seam/, the one seam: any other module may import only
  moto's documented public names (MOTO_PUBLIC), wherever the import is (in a function, under TYPE_CHECKING, or
  by importlib), so a moto upgrade fails in the seam and its tests.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

#: one xdist worker runs them all, so that each file is parsed once a run (parsed() below): every file was parsed by
#: each of five tests, on whichever worker got it
pytestmark = pytest.mark.xdist_group("layout")

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["eddy", "emulator", "spark_batch", "infra", "tools", "handlers"]
MAX_LINES = 400
MAX_MODULES_PER_FOLDER = 15
SEAM = ("emulator", "moto_seam")
#: moto's documented public names (docs.getmoto.org, "Getting Started": `from moto import mock_aws`); anything else
#: of moto, its server application included, is an internal
MOTO_PUBLIC = {("moto", "mock_aws")}
#: the composition root, and what stands above it (it drives an Emulator; it is not one of its components)
ROOT_MODULE = "eddy.emulator.engine"
ABOVE_THE_ROOT = ("eddy.emulator.api.", "eddy.emulator.dashboard.", "eddy.emulator.pytest_plugin", "eddy.emulator.cli")
#: components that still take the Emulator and reach through it for their collaborators (issue 35's kernel, not
#: done for these yet): the list may only shrink
COMPONENTS_STILL_REACHING_BACK: set[str] = set()  # none left: every component is built with what it uses
#: parts that still take their owner (for its collaborators) and name it in a type: the cycles they close are known,
#: each edge listed, and the list may only shrink (issue 35: pollers, runners and rule targets built with the
#: collaborators they use)
OWNER_BACK_REFERENCES: set[tuple[str, str]] = set()  # none left: every part is built with what it uses
#: storage/ keeps files (the write-ahead log, segments, snapshots) and knows no component: what it may import besides
#: itself is the kernel's clock, the process starter and the environment's reader (aws_environment.variable, for a
#: test's fault flag; each component declares its durable channel in its own package, storage/channels.py)
STORAGE = "eddy.emulator.storage"
STORAGE_MAY_IMPORT = {"eddy.emulator.clock", "eddy.emulator.processes.children", "eddy.emulator.aws_environment"}


def source_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if "__pycache__" not in path.parts and "node_modules" not in path.parts)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once in this process (the tests only read it)."""
    return ast.parse(path.read_text())


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[0] == "tools":  # tools/ is on sys.path when its scripts run: tools/peer/x.py is `peer.x`
        parts = parts[1:]
    elif parts[0] != "eddy":  # the package's folders install as eddy.<folder> (setup.py)
        parts = ("eddy", *parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.Module, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of `known` that this module imports, wherever the import is (under TYPE_CHECKING too)."""
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                anchor = package[:len(package) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.add(submodule if submodule in known else base)
    return {target for target in targets if target in known and target != name}


def moto_internals(tree: ast.Module) -> list[str]:
    """What of moto's (but its public names) this module imports, anywhere in it."""
    found: list[str] = []

    def is_moto(name: str) -> bool:
        return name == "moto" or name.startswith("moto.")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if is_moto(alias.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and is_moto(node.module or ""):
            found += [f"{node.module}.{alias.name}" for alias in node.names
                      if (node.module, alias.name) not in MOTO_PUBLIC]
        elif (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module") and node.args
              and isinstance(node.args[0], ast.Constant) and is_moto(str(node.args[0].value))):
            found.append(str(node.args[0].value))
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module's imports of the others: a copy of its own for each test, which may change it."""
    return {name: set(targets) for name, targets in _import_graph().items()}


@functools.cache
def _import_graph() -> dict[str, frozenset[str]]:
    files = {module_name(path): path for path in source_files()}
    known = set(files)
    return {name: frozenset(imported_modules(parsed(path), name, path.name == "__init__.py", known))
            for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_is_over_400_lines():
    long = {str(path.relative_to(ROOT)): lines for path in source_files()
            if (lines := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_no_folder_has_more_than_15_modules():
    counts: dict[str, int] = {}
    for path in source_files():
        folder = str(path.parent.relative_to(ROOT))
        counts[folder] = counts.get(folder, 0) + 1
    assert {folder: count for folder, count in counts.items() if count > MAX_MODULES_PER_FOLDER} == {}


def test_no_import_cycles():
    graph = import_graph()
    for name in COMPONENTS_STILL_REACHING_BACK:  # their debt is counted by the test below, not twice
        graph[name].discard(ROOT_MODULE)
    for name, owner in OWNER_BACK_REFERENCES:
        graph[name].discard(owner)
    assert cycles(graph) == []


def test_the_known_back_references_are_still_there():
    """A back reference undone comes off OWNER_BACK_REFERENCES, so that it cannot come back unseen."""
    graph = import_graph()
    assert {(name, owner) for name, owner in OWNER_BACK_REFERENCES if owner not in graph[name]} == set()


def test_no_component_imports_the_emulator():
    """The Emulator (engine.py) builds every component and hands each the collaborators it uses (the kernel,
    emulator/kernel.py, and the other components); a component that imported it back would be using it as a
    service locator. Above the root: the front doors, the dashboard, the CLI and the pytest plugin, which drive an
    Emulator."""
    reaching = {name for name, targets in import_graph().items() if ROOT_MODULE in targets
                and name.startswith("eddy.emulator.") and not name.startswith(ABOVE_THE_ROOT)}
    assert reaching == COMPONENTS_STILL_REACHING_BACK


def test_storage_imports_no_component():
    """A new durable feature touches one package: its component declares its channel (its log entries, its part of
    snapshots, their replay) and the composition root registers it; storage/ never learns of it."""
    reaching = {name: sorted(target for target in targets
                             if not target.startswith(STORAGE) and target not in STORAGE_MAY_IMPORT)
                for name, targets in import_graph().items() if name.startswith(STORAGE + ".")}
    assert {name: targets for name, targets in reaching.items() if targets} == {}


def test_only_the_moto_seam_reaches_into_moto():
    outside = {str(path.relative_to(ROOT)): found for path in source_files()
               if path.relative_to(ROOT).parts[:2] != SEAM and (found := moto_internals(parsed(path)))}
    assert outside == {}


def test_moto_internals_are_found_wherever_they_are_imported():
    tree = ast.parse(
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "from moto import mock_aws\n"
        "from moto.events.models import EventPattern\n"
        "import moto.core\n"
        "from motorway import road\n"
        "def later():\n    from moto import settings\n    importlib.import_module('moto.s3.models')\n"
        "if TYPE_CHECKING:\n    from moto.dynamodb.models.table import Table\n")
    assert sorted(moto_internals(tree)) == ["moto.core", "moto.dynamodb.models.table.Table",
                                            "moto.events.models.EventPattern", "moto.s3.models", "moto.settings"]


def test_the_graph_sees_relative_deferred_and_type_checking_imports(tmp_path):
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "from .other import thing\n"
        "def later():\n    import pkg.deferred\n"
        "if TYPE_CHECKING:\n    from pkg.hint import Hint\n")
    known = {"pkg", "pkg.sibling", "pkg.other", "pkg.deferred", "pkg.hint"}
    assert imported_modules(tree, "pkg.me", False, known) == {"pkg.sibling", "pkg.other", "pkg.deferred", "pkg.hint"}


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"]]),
])
def test_cycles_finds_exactly_the_cycles(graph, expected):
    assert cycles(graph) == expected


def test_every_import_uses_the_installed_names():
    """Installed, the folders are eddy.emulator, eddy.handlers, ...: `from emulator ...` works only in a checkout."""
    folders = {"emulator", "handlers", "spark_batch", "infra"}
    old = {}
    for path in [*source_files(), *sorted((ROOT / "tests").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py"))]:
        for node in ast.walk(parsed(path)):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            if any(name.split(".")[0] in folders for name in names):
                old.setdefault(str(path.relative_to(ROOT)), []).append(node.lineno)
    assert old == {}
