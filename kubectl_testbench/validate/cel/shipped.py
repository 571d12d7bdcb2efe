"""What the CRD we ship needs from CEL, computed by celpy when the package is built, not on every run.

A rule's outcome depends only on the rule and on the projection of ``self`` it observes (see
:mod:`kubectl_testbench.validate.cel.evaluate`). For a rule that only tests presence with ``has()``, as the
dataset rule does, those projections are few (2³ for three fields): ``python -m
kubectl_testbench.generate --write`` evaluates every one with celpy (:mod:`kubectl_testbench.generate.cel_rules`)
and writes them, with each rule's analysis and the API server's cost verdict on the CRD, to
``_generated/cel-rules.json``; this module loads it. A run that finds its answer there needs neither celpy
nor Lark; anything else (a projection not listed, a rule that reads values, another CRD) is evaluated as
before. A drift test regenerates the file, and another checks every listed outcome against celpy through
both parser paths.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kubectl_testbench.package_data import GENERATED_DIR

GENERATED = GENERATED_DIR / "cel-rules.json"


class Shipped:
    """The loaded table (a plain class: a dataclass costs a start-up's worth of code generation)."""

    def __init__(self, analyses: dict[str, Any] | None = None, outcomes: dict[str, list[Any]] | None = None,
                 refused: list[Any] | None = None) -> None:
        self.analyses: dict[str, Any] = analyses or {}
        self.outcomes: dict[str, list[Any]] = outcomes or {}
        self.refused = refused
        """The cost check's findings for the packaged CRD (None: not known, compute them)."""


_SHIPPED: Shipped | None = None


def shipped() -> Shipped:
    """The generated table, loaded once; empty when it is missing or unreadable (everything is computed)."""
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = load(GENERATED)
    return _SHIPPED


def load(path: Path) -> Shipped:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Shipped(dict(data["analyses"]), dict(data["outcomes"]), list(data["refused"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Shipped()
