"""The import graph of a package, read from its source with ``ast`` (nothing is imported or run).

Every ``import`` statement counts wherever it stands: at module level, inside a function (the package
defers heavy imports into functions, and a circle through a deferred import is still a circle), under
``if TYPE_CHECKING:``. Relative imports are resolved against the importing module's package. An edge
goes to the module an import names: ``from a.b import c`` reaches ``a.b.c`` when that is a module, else
``a.b`` (``c`` is a name defined there). Python also initializes the packages ``a`` and ``a.b`` on the
way; those are not edges, because a package ``__init__`` that re-exports its submodules would otherwise
stand in a circle with each of them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

Graph = dict[str, set[str]]
"""Module name -> the modules of the same package it imports."""


def modules_of(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (a directory under ``root``) by dotted name; a package is its ``__init__``."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def import_graph(root: Path, package: str) -> Graph:
    """Which module of ``package`` imports which (only edges within the package)."""
    modules = modules_of(root, package)
    graph: Graph = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_bytes(), filename=str(path))
        targets = {target for node in ast.walk(tree) for target in _targets(node, name, is_package, modules)}
        graph[name] = {t for t in targets if t != name and (t == package or t.startswith(package + "."))}
    return graph


def _targets(node: ast.AST, module: str, is_package: bool, modules: Mapping[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [_nearest_module(alias.name, modules) for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = _absolute(node.module, node.level, module, is_package)
    found = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        found.append(submodule if submodule in modules else _nearest_module(base, modules))
    return found


def _absolute(name: str | None, level: int, module: str, is_package: bool) -> str:
    """The absolute module a ``from`` import names: ``level`` dots climb from the importer's package."""
    if level == 0:
        return name or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    anchor = package[: len(package) - (level - 1)]
    return ".".join([*anchor, name] if name else anchor)


def _nearest_module(name: str, modules: Mapping[str, Path]) -> str:
    """``name`` or, when it is not a module of ours, its longest prefix that is (else ``name`` itself)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return name


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One shortest circle through each strongly connected group of modules (``[a, b, a]``), sorted."""
    found = []
    for component in _strong_components(graph):
        if len(component) > 1:
            found.append(_shortest_cycle(graph, min(component), component))
    return sorted(found)


def _strong_components(graph: Mapping[str, Iterable[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (a deep package must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def _shortest_cycle(graph: Mapping[str, Iterable[str]], start: str, within: set[str]) -> list[str]:
    """Breadth first from ``start`` back to it, staying inside its component."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child in within and child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise ValueError(f"{start} is on no circle")
