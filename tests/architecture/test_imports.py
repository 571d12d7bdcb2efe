"""The package's import graph keeps its shape: no circles, build-time code apart, layers importing only downward.

The graph is read from the source (``tests/architecture/imports.py``), function-level imports included: a
deferred import keeps a start-up fast, it does not make a dependency go away. docs/architecture.md explains
the layers; this file is their definition.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.architecture.imports import Graph, cycles, import_graph
from tests.conftest import ROOT

PACKAGE = "kubectl_testbench"

LAYERS: list[tuple[str, set[str]]] = [
    ("foundation", {"", "rules", "safe_text", "words", "gofmt", "junit", "k8snames", "layout", "package_data",
                    "sniff", "load", "model", "emit", "config"}),
    ("checks", {"validate"}),
    ("shipped documents", {"crd", "install"}),
    ("render", {"render"}),
    ("pipeline", {"pipeline"}),
    ("command libraries", {"fix", "integrations", "cluster", "results", "local", "lsp", "phases", "starter",
                           "dataset"}),
    ("cli", {"cli", "__main__"}),
    ("build time", {"generate"}),
]
"""Lowest first. A package may import its own layer and the layers below, never one above.
``""`` is ``kubectl_testbench/__init__.py`` (the version)."""

BUILD_TIME = "generate"
FORWARDERS = {
    f"{PACKAGE}.crd.artifacts": "the committed _generated/cel-*.json name `python -m kubectl_testbench.crd.artifacts`",
    f"{PACKAGE}.install.artifacts": "the committed kustomize/base/kustomization.yaml names "
                                    "`python -m kubectl_testbench.install.artifacts`",
}
"""Former entry points kept only because committed, byte-pinned artefacts name them: build-time code that
lives in a runtime package. Nothing imports them."""

PENDING: dict[tuple[str, str], str] = {}
"""Upward imports that exist today and are being removed, with the work that removes them. The set only
shrinks: an edge that is gone must leave it (the test says so), and no new one may join."""


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(ROOT, PACKAGE)


def _package(module: str) -> str:
    """The top-level package (or module) of ``kubectl_testbench`` a module belongs to; ``""`` for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer_of() -> dict[str, int]:
    return {package: rank for rank, (_, packages) in enumerate(LAYERS) for package in packages}


def test_every_package_has_a_layer(graph: Graph) -> None:
    unplaced = sorted({_package(m) for m in graph} - set(_layer_of()))
    assert unplaced == [], f"place these in LAYERS (tests/architecture/test_imports.py): {unplaced}"


def test_no_module_imports_another_that_imports_it_back(graph: Graph) -> None:
    found = cycles(graph)
    assert found == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_nothing_at_run_time_imports_the_build_time_code(graph: Graph) -> None:
    generate = f"{PACKAGE}.{BUILD_TIME}"
    runtime = {m: deps for m, deps in graph.items() if _package(m) != BUILD_TIME and m not in FORWARDERS}
    offenders = sorted(f"{m} -> {d}" for m, deps in runtime.items() for d in deps
                       if d == generate or d.startswith(generate + "."))
    assert offenders == [], "run-time modules import kubectl_testbench.generate:\n" + "\n".join(offenders)
    assert sorted(m for m, deps in graph.items() if set(FORWARDERS) & deps) == [], "nothing imports a forwarder"


def _upward_edges(graph: Graph) -> set[tuple[str, str]]:
    layer = _layer_of()
    return {(m, d) for m, deps in graph.items() if m not in FORWARDERS for d in deps
            if layer.get(_package(d), -1) > layer.get(_package(m), len(LAYERS))}


def test_each_layer_imports_only_itself_and_the_layers_below(graph: Graph) -> None:
    names = {package: name for name, packages in LAYERS for package in packages}
    new = sorted(_upward_edges(graph) - set(PENDING))
    assert new == [], "imports of a higher layer:\n" + "\n".join(
        f"{m} ({names[_package(m)]}) -> {d} ({names[_package(d)]})" for m, d in new)


def test_the_pending_upward_imports_only_shrink(graph: Graph) -> None:
    gone = sorted(set(PENDING) - _upward_edges(graph))
    assert gone == [], "these PENDING edges are gone: remove them from PENDING:\n" + "\n".join(
        f"{m} -> {d} ({PENDING[(m, d)]})" for m, d in gone)


# --- the graph builder itself --------------------------------------------------------------------------


def _package_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    root = _package_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from pkg import b\n    return b\n",
        "pkg/b.py": "import json\n\ndef g():\n    import pkg.a\n    return pkg.a\n",
        "pkg/c.py": "from pkg.a import f\n",
    })
    graph = import_graph(root, "pkg")
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_relative_imports_resolve_against_the_importers_package(tmp_path: Path) -> None:
    root = _package_tree(tmp_path, {
        "pkg/__init__.py": "from . import a\n",
        "pkg/a.py": "from .sub import deep\nfrom .sub.deep import NAME\nfrom . import b\n",
        "pkg/b.py": "from .a import something\n",
        "pkg/sub/__init__.py": "from .deep import NAME\nfrom .. import b\n",
        "pkg/sub/deep.py": "from ..b import x\nfrom ...elsewhere import y\nNAME = 1\n",
    })
    graph = import_graph(root, "pkg")
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub.deep", "pkg.b"},
        "pkg.b": {"pkg.a"},
        "pkg.sub": {"pkg.sub.deep", "pkg.b"},
        "pkg.sub.deep": {"pkg.b"},
    }
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_names_and_type_checking_imports_lead_to_their_module(tmp_path: Path) -> None:
    root = _package_tree(tmp_path, {
        "pkg/__init__.py": "VERSION = 1\n",
        "pkg/a.py": ("from typing import TYPE_CHECKING\nimport pkg.sub.deep as d\nfrom pkg import VERSION\n"
                     "if TYPE_CHECKING:\n    from pkg.sub import Thing\n"),
        "pkg/sub/__init__.py": "class Thing: ...\n",
        "pkg/sub/deep.py": "import os.path\nfrom pkg.sub.deep import missing\n",
    })
    assert import_graph(root, "pkg") == {"pkg": set(), "pkg.a": {"pkg.sub.deep", "pkg", "pkg.sub"},
                                         "pkg.sub": set(), "pkg.sub.deep": set()}


def test_the_circle_shown_is_a_shortest_one_and_each_group_is_shown_once() -> None:
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"e"}, "e": {"d", "f"}, "f": set()}
    assert cycles(graph) == [["a", "b", "a"], ["d", "e", "d"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"x": {"y"}, "y": {"z"}, "z": {"x"}}) == [["x", "y", "z", "x"]]
