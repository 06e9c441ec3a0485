"""The package's shape: no import cycles, one-way layers, small files and functions.

Scope: the modules of the `vdplace` distribution, i.e. every ``.py`` file under
the folders pyproject's ``[tool.setuptools.package-dir]`` maps (``vdplace/``,
``ir/``, ``placement/``, ``runtime/``), named as installed (``vdplace.ir.expr``).
The files are read with ``ast``; nothing is imported.

Import cycles, two graphs.  Between modules, an edge ``a -> b`` is an import
that runs when ``a`` is imported: an ``import`` / ``from`` statement at module
level (also inside a module-level ``if``, ``try``, ``with`` or class body), but
not under ``if TYPE_CHECKING:`` and not inside a function.  Between *stages*
(`stage_of`: each sub-package and top-level module of ``vdplace.placement`` and
``vdplace.runtime``, ``vdplace.ir`` as a whole, every other module itself),
every import counts, wherever it is: in a function, under ``TYPE_CHECKING``.
A circle hidden in a function body is still a circle.  Relative imports and
the ``vdplace.`` names resolve to files: ``from pkg import name`` is an edge to
the sub-module ``pkg.name`` when that is a module, else to ``pkg``'s
``__init__.py``.  Both graphs must be acyclic; a failure prints every cycle
found.

The driver.  No stage imports ``vdplace.placement.api`` (the driver runs the
stages; a stage that needs to place, as specialization does, is handed the
driver).  Only the package's ``__init__`` re-exports it.

The library.  Nothing under ``vdplace.ir``, ``vdplace.placement`` or
``vdplace.runtime`` imports ``vdplace.cli``, ``vdplace.progress`` (the
terminal display) or ``vdplace.bench``: the library reports progress to a
listener (`vdplace.ir.progress`), and the command line draws it.

Layers.  Data flows one way: ``vdplace.ir`` imports neither
``vdplace.placement`` nor ``vdplace.runtime``, and ``vdplace.placement`` does
not import ``vdplace.runtime`` -- anywhere in the file, function bodies and
``TYPE_CHECKING`` blocks included.  Project code names itself ``vdplace.*`` or
relatively, never as a bare ``ir`` / ``placement`` / ``runtime``.

Size.  No file is over 500 lines and no function (or method) over 80 lines,
counted from its ``def`` line to its last line, unless its docstring says why:
a docstring line that starts with ``Long because:`` followed by the reason in
at least three words, e.g. ``Long because: one table of the 40 ops, read
top to bottom.``  For a file the module docstring carries that line.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
REASON = re.compile(r"^\s*Long because:\s*\S+\s+\S+\s+\S+", re.M)
LAYERS = {"vdplace.ir": ("vdplace.placement", "vdplace.runtime"), "vdplace.placement": ("vdplace.runtime",)}
BARE_NAMES = ("ir", "placement", "runtime")
LIBRARY = ("vdplace.ir", "vdplace.placement", "vdplace.runtime")
FRONT_ENDS = ("vdplace.cli", "vdplace.progress", "vdplace.bench")
DRIVER = "vdplace.placement.api"


@dataclass(frozen=True)
class Module:
    """One source file of the distribution under its installed dotted name."""

    name: str
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        """The package relative imports in this file start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @property
    def rel(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    def tree(self) -> ast.Module:
        return parse(self.path)


@cache
def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


@cache
def modules() -> dict[str, Module]:
    """Every module of the distribution by dotted name."""
    found: dict[str, Module] = {}
    for package, folder in PACKAGE_DIR.items():
        root = ROOT / folder
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            is_package = parts[-1] == "__init__"
            name = ".".join((package, *(parts[:-1] if is_package else parts)))
            found[name] = Module(name, path, is_package)
    return found


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def load_time_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Import statements that run when the module is imported (see the module docstring)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not is_type_checking(node.test):
                yield from load_time_imports(node.body)
            yield from load_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from load_time_imports(block)
        elif isinstance(node, ast.With | ast.ClassDef):
            yield from load_time_imports(node.body)


def all_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of the file, wherever it is."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def imported_names(module: Module, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The absolute dotted names one import statement reaches (modules or packages, project or not)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        anchor = module.package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    known = modules()
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def import_graph() -> nx.DiGraph:
    """Module-level imports between the distribution's modules (self-imports dropped)."""
    known = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for module in known.values():
        for node in load_time_imports(module.tree().body):
            for target in imported_names(module, node):
                if target in known and target != module.name:
                    graph.add_edge(module.name, target, line=node.lineno)
    return graph


def stage_of(name: str) -> str:
    """The stage a module belongs to (module docstring)."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] in ("placement", "runtime"):
        return ".".join(parts[:3])
    if len(parts) >= 2 and parts[1] == "ir":
        return "vdplace.ir"
    return name


def stage_graph(sources: Iterable[tuple[Module, ast.Module]]) -> nx.DiGraph:
    """Every import between stages (function bodies and ``TYPE_CHECKING`` blocks included)."""
    known = modules()
    graph = nx.DiGraph()
    for module, tree in sources:
        for node in all_imports(tree):
            for target in imported_names(module, node):
                a, b = stage_of(module.name), stage_of(target)
                if target in known and a != b:
                    graph.add_edge(a, b, line=f"{module.rel}:{node.lineno}")
    return graph


def project_sources() -> list[tuple[Module, ast.Module]]:
    return [(module, module.tree()) for module in modules().values()]


def within(name: str, packages: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def describe_cycles(graph: nx.DiGraph) -> list[str]:
    """One cycle per strongly connected component that has one, as `a:line -> b:line -> ... -> a`."""
    found = []
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        cycle = nx.find_cycle(graph.subgraph(component))
        steps = [f"{a} ({_where(graph.edges[a, b]['line'])})" for a, b in cycle]
        found.append(" -> ".join([*steps, cycle[0][0]]))
    return sorted(found)


def _where(line: int | str) -> str:
    return f"line {line}" if isinstance(line, int) else line


def long_reason(node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(REASON.search(ast.get_docstring(node) or ""))


def test_module_inventory_is_not_empty():
    names = set(modules())
    assert {"vdplace", "vdplace.cli", "vdplace.ir", "vdplace.placement", "vdplace.runtime"} <= names
    graph = import_graph()
    assert graph.has_edge("vdplace.api", "vdplace.ir") and graph.number_of_edges() > 50


def test_no_import_cycles():
    cycles = describe_cycles(import_graph())
    assert not cycles, "import cycles:\n  " + "\n  ".join(cycles)


def test_no_import_cycles_between_stages_counting_every_import():
    cycles = describe_cycles(stage_graph(project_sources()))
    assert not cycles, "import cycles between stages:\n  " + "\n  ".join(cycles)


def test_no_stage_imports_the_driver():
    offenders = []
    for module in modules().values():
        if not within(module.name, ("vdplace.placement",)) or module.name in ("vdplace.placement", DRIVER):
            continue
        for node in all_imports(module.tree()):
            if DRIVER in imported_names(module, node):
                offenders.append(f"{module.rel}:{node.lineno} imports {DRIVER}")
    assert not offenders, "\n".join(offenders)


def test_the_library_never_imports_the_command_line():
    offenders = []
    for module in modules().values():
        if not within(module.name, LIBRARY):
            continue
        for node in all_imports(module.tree()):
            for target in imported_names(module, node):
                if within(target, FRONT_ENDS):
                    offenders.append(f"{module.rel}:{node.lineno} imports {target}")
    assert not offenders, "\n".join(offenders)


def test_a_cycle_through_a_function_local_import_is_found():
    """A test of the tests: a diagnosis module that imports the driver inside a function closes a circle
    (the driver imports the diagnosis); the load-time graph does not see it, the stage graph does."""
    planted = Module("vdplace.placement.diagnose.planted", ROOT / "placement" / "diagnose" / "planted.py", False)
    tree = ast.parse("def advise():\n    from vdplace.placement.api import place\n\n    return place\n")
    assert list(load_time_imports(tree.body)) == []
    cycles = describe_cycles(stage_graph([*project_sources(), (planted, tree)]))
    assert len(cycles) == 1 and "placement/diagnose/planted.py:2" in cycles[0], cycles
    assert {"vdplace.placement.api", "vdplace.placement.diagnose"} <= set(cycles[0].replace(" -> ", " ").split())
    hidden = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vdplace.placement import api\n")
    assert describe_cycles(stage_graph([*project_sources(), (planted, hidden)]))


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layers_import_one_way(layer):
    forbidden = LAYERS[layer]
    offenders = []
    for module in modules().values():
        if module.name != layer and not module.name.startswith(layer + "."):
            continue
        for node in all_imports(module.tree()):
            for target in imported_names(module, node):
                if any(target == f or target.startswith(f + ".") for f in forbidden):
                    offenders.append(f"{module.rel}:{node.lineno} imports {target}")
    assert not offenders, "\n".join(offenders)


def test_project_code_never_imports_bare_subpackage_names():
    offenders = []
    for module in modules().values():
        for node in all_imports(module.tree()):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            for target in imported_names(module, node):
                if target.split(".")[0] in BARE_NAMES:
                    offenders.append(f"{module.rel}:{node.lineno} imports {target}")
    assert not offenders, "\n".join(offenders)


def test_files_are_short_or_say_why():
    offenders = []
    for module in modules().values():
        lines = len(module.path.read_text().splitlines())
        if lines > MAX_FILE_LINES and not long_reason(module.tree()):
            offenders.append(f"{module.rel}: {lines} lines")
    assert not offenders, f"files over {MAX_FILE_LINES} lines without 'Long because:':\n" + "\n".join(offenders)


def test_functions_are_short_or_say_why():
    offenders = []
    for module in modules().values():
        for node in ast.walk(module.tree()):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and not long_reason(node):
                offenders.append(f"{module.rel}:{node.lineno} {node.name}: {lines} lines")
    assert not offenders, f"functions over {MAX_FUNCTION_LINES} lines without 'Long because:':\n" + "\n".join(offenders)


def test_the_checks_see_what_they_claim_to():
    source = (
        "from typing import TYPE_CHECKING\n"
        "import vdplace.runtime\n"
        "if TYPE_CHECKING:\n    import vdplace.placement\n"
        "def f():\n    import vdplace.cli\n"
    )
    module = Module("vdplace.ir.probe", ROOT / "ir" / "probe.py", is_package=False)
    tree = ast.parse(source)
    loaded = [t for node in load_time_imports(tree.body) for t in imported_names(module, node)]
    everywhere = [t for node in all_imports(tree) for t in imported_names(module, node)]
    assert loaded == ["typing", "vdplace.runtime"]
    assert everywhere == ["typing", "vdplace.runtime", "vdplace.placement", "vdplace.cli"]
    relative = ast.parse("from ..placement import api\nfrom . import expr\n").body
    assert [t for node in relative for t in imported_names(module, node)] == [
        "vdplace.placement.api",
        "vdplace.ir.expr",
    ]
    planted = nx.DiGraph()
    planted.add_edge("a", "b", line=1)
    planted.add_edge("b", "a", line=2)
    assert describe_cycles(planted) == ["a (line 1) -> b (line 2) -> a"]
    assert long_reason(
        ast.parse('def g():\n    """Do it.\n\n    Long because: one flat table of ops.\n    """\n').body[0]
    )
    assert not long_reason(ast.parse('def g():\n    """Long because: yes."""\n').body[0])
