"""The package's imports form no cycle, and no module imports another module's private name.

The graph is read from the source with ``ast``, never by importing anything, over every module of
``shared/stalwart_agents``.  What counts:

* Every ``import`` and ``from ... import`` statement, wherever it stands: at the top of a module, inside a
  function (a lazy import), inside ``try``/``except``.  A cycle that goes through a lazy import is still a
  cycle: it only moves the failure from import time to the first call, and the two modules still cannot be
  understood, tested or moved one without the other.
* Relative imports are resolved against the importing module's package.  ``from .pkg import name`` is an edge
  to ``pkg.name`` when that is a module, and to ``pkg`` (its ``__init__``) when ``name`` is something it
  defines or re-exports.
* Imports under ``if TYPE_CHECKING:`` do NOT count for cycles.  They never run, so they cannot make an import
  fail or depend on import order, and they are the ordinary way for an annotation to name a type owned by a
  module that depends on this one (the package's ``__init__`` names every public type that way).  They DO
  count for private names: a private name is private whether it is imported to run or to annotate.
* Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``; those implicit edges to parent packages
  are not counted (every package whose ``__init__`` imports its own submodules would be a "cycle").  Only a
  module an import statement names is an edge.
* ``importlib.import_module`` with a computed name is not an import statement and is not seen.

A private name is one with a single leading underscore (``_name``; dunders such as ``__version__`` are
public).  ``from module import _name`` is an offence whoever imports it.  A private MODULE is the exception
in the style of httpx's ``_models``: ``storage/_records.py`` is a part of ``storage/`` and may be imported by
any module inside ``storage/`` (its ``__init__`` included), and by nothing outside it.  What the package imports
from other distributions is not judged here: only the package's own modules and names.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "stalwart_agents"
ROOT = Path(__file__).resolve().parents[1] / "shared"


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    where: str  # path:line of the statement
    type_checking: bool


@dataclass(frozen=True)
class PrivateImport:
    importer: str
    where: str
    name: str  # the private name or module, dotted as it was imported


@dataclass
class Imports:
    modules: dict[str, Path] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    private: list[PrivateImport] = field(default_factory=list)

    def graph(self) -> dict[str, set[str]]:
        """The runtime graph: one node per module, an arc for every import that can run."""
        arcs: dict[str, set[str]] = {module: set() for module in self.modules}
        for edge in self.edges:
            if not edge.type_checking and edge.imported != edge.importer:
                arcs[edge.importer].add(edge.imported)
        return arcs


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _private_module_offence(importer: str, imported: str) -> str | None:
    """The private module in ``imported`` that ``importer`` may not reach, if any.

    ``a.b._c`` (and anything under it) belongs to package ``a.b``: ``a.b`` and the modules under it may import it.
    """
    parts = imported.split(".")
    for index, part in enumerate(parts):
        if _is_private(part):
            owner = ".".join(parts[:index])
            if importer != owner and not importer.startswith(owner + "."):
                return ".".join(parts[: index + 1])
    return None


class _Reader(ast.NodeVisitor):
    def __init__(self, found: Imports, module: str, is_package: bool, where: str) -> None:
        self.found = found
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.where = where
        self.type_checking = False

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self.visit(node.test)
        outer, self.type_checking = self.type_checking, True
        for statement in node.body:
            self.visit(statement)
        self.type_checking = outer
        for statement in node.orelse:
            self.visit(statement)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                self._edge(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base_parts = self.package.split(".")
            if node.level > 1:
                base_parts = base_parts[: -(node.level - 1)]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        if not (base == PACKAGE or base.startswith(PACKAGE + ".")):
            return
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in self.found.modules:
                self._edge(node, submodule)
            else:
                self._edge(node, base)
                if _is_private(alias.name):
                    self.found.private.append(PrivateImport(self.module, self._at(node), f"{base}.{alias.name}"))

    def _at(self, node: ast.stmt) -> str:
        return f"{self.where}:{node.lineno}"

    def _edge(self, node: ast.stmt, imported: str) -> None:
        if imported not in self.found.modules:
            raise AssertionError(f"{self._at(node)}: {imported} is not a module of {PACKAGE}")
        self.found.edges.append(Edge(self.module, imported, self._at(node), self.type_checking))
        offence = _private_module_offence(self.module, imported)
        if offence is not None:
            self.found.private.append(PrivateImport(self.module, self._at(node), offence))


def read_imports(root: Path, shown_from: Path | None = None) -> Imports:
    """Every module under ``root/stalwart_agents`` and the imports between them, paths shown from ``shown_from``."""
    found = Imports()
    shown_from = root.parent if shown_from is None else shown_from
    paths = sorted((root / PACKAGE).rglob("*.py"))
    for path in paths:
        found.modules[_module_name(root, path)] = path
    for path in paths:
        where = str(path.relative_to(shown_from))
        reader = _Reader(found, _module_name(root, path), path.name == "__init__.py", where)
        reader.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, each sorted, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(components)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle, in import order, for every strongly connected component of more than one module.

    The cycle is the shortest one back to the component's first module: ``[a, b, c]`` means a imports b,
    b imports c and c imports a.
    """
    found: list[list[str]] = []
    for component in strongly_connected(graph):
        if len(component) < 2:
            continue
        members = set(component)
        start = component[0]
        came_from: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if start in graph[node]:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                found.append([*reversed(path)])
                break
            for successor in sorted(graph[node] & members):
                if successor not in came_from and successor != start:
                    came_from[successor] = node
                    queue.append(successor)
    return found


def describe_cycles(found: Imports) -> list[str]:
    graph = found.graph()
    components = {tuple(component) for component in strongly_connected(graph) if len(component) > 1}
    lines: list[str] = []
    for cycle in cycles(graph):
        lines.append("import cycle: " + " -> ".join([*cycle, cycle[0]]))
        for importer, imported in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
            where = sorted(
                {
                    edge.where
                    for edge in found.edges
                    if edge.importer == importer and edge.imported == imported and not edge.type_checking
                }
            )
            lines.append(f"    {importer} -> {imported}: {', '.join(where)}")
        component = next(members for members in components if cycle[0] in members)
        if len(component) > len(cycle):
            lines.append(f"    (and the rest of its strongly connected component: {', '.join(component)})")
    return lines


def describe_private(found: Imports) -> list[str]:
    return [f"private import: {offence.where}: {offence.name}" for offence in found.private]


def test_the_package_has_no_import_cycle_and_imports_no_private_name() -> None:
    found = read_imports(ROOT)
    # Not vacuous: the package is where this test thinks it is, and its imports were read.
    assert len(found.modules) > 50
    assert len(found.graph()[f"{PACKAGE}.engine.engine"]) > 5
    problems = describe_cycles(found) + describe_private(found)
    assert not problems, "\n" + "\n".join(problems)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = tmp_path / PACKAGE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return tmp_path


def test_the_detector_finds_a_cycle_between_two_modules_even_behind_a_lazy_import(tmp_path: Path) -> None:
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "one.py": "from .two import Two\n",
            "two.py": "class Two:\n    def make(self):\n        from . import one\n        return one\n",
        },
    )
    found = read_imports(root, shown_from=root)
    assert cycles(found.graph()) == [[f"{PACKAGE}.one", f"{PACKAGE}.two"]]
    assert describe_cycles(found) == [
        f"import cycle: {PACKAGE}.one -> {PACKAGE}.two -> {PACKAGE}.one",
        f"    {PACKAGE}.one -> {PACKAGE}.two: {PACKAGE}/one.py:1",
        f"    {PACKAGE}.two -> {PACKAGE}.one: {PACKAGE}/two.py:3",
    ]


def test_a_type_checking_import_makes_no_cycle_but_a_private_name_is_caught_anyway(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "one.py": "from .two import Two\n",
            "two.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .one import _Hidden\n",
        },
    )
    found = read_imports(root, shown_from=root)
    assert cycles(found.graph()) == []
    assert describe_private(found) == [f"private import: {PACKAGE}/two.py:3: {PACKAGE}.one._Hidden"]


def test_a_private_module_is_open_to_its_own_package_only(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "store/__init__.py": "from ._records import Record\n",
            "store/_records.py": "class Record: ...\n",
            "store/sql.py": "from . import _records\nfrom ._records import Record\n",
            "other.py": "from .store._records import Record\nfrom .store.sql import _helper\n",
        },
    )
    assert describe_private(read_imports(root, shown_from=root)) == [
        f"private import: {PACKAGE}/other.py:1: {PACKAGE}.store._records",
        f"private import: {PACKAGE}/other.py:2: {PACKAGE}.store.sql._helper",
    ]
