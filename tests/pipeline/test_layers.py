"""Layers import only downward: ``model`` and ``load`` below ``validate``, ``validate`` below ``render``, both
below ``pipeline`` (issue 30). Function-level imports count: they are edges too, only later ones."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_testbench"
ABOVE = {
    "load": ("validate", "render", "pipeline", "cli", "integrations", "lsp", "fix"),
    "model": ("validate", "render", "pipeline", "cli", "integrations", "lsp", "fix"),
    "validate": ("render", "pipeline", "cli", "integrations", "lsp", "fix"),
    "render": ("pipeline", "cli", "integrations", "lsp", "fix"),
    "pipeline": ("cli", "integrations", "lsp", "fix"),
}


def imported(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
    return out


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_a_layer_imports_nothing_above_it(layer: str) -> None:
    upward = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
              for path in sorted((PACKAGE / layer).rglob("*.py")) for line, module in imported(path)
              if module.split(".")[:2] in (["kubectl_testbench", above] for above in ABOVE[layer])]
    assert upward == []


def test_the_pipeline_is_the_one_implementation_of_the_input_dispatch() -> None:
    dispatching = sorted(str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
                         if "ordered_map(" in p.read_text(encoding="utf-8") and p.name != "pool.py")
    assert dispatching == ["kubectl_testbench/pipeline/inputs.py"]
