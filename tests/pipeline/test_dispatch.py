"""The pipeline is the one place that dispatches inputs to workers (issue 30). Layering as a whole, function-level
imports included, is checked by ``tests/architecture/test_imports.py``."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_testbench"


def test_the_pipeline_is_the_one_implementation_of_the_input_dispatch() -> None:
    dispatching = sorted(str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
                         if "ordered_map(" in p.read_text(encoding="utf-8") and p.name != "pool.py")
    assert dispatching == ["kubectl_testbench/pipeline/inputs.py"]
