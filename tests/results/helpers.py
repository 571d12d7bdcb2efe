"""Shared bits of the results tests: fixture paths and a tiny document builder for malformed inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REL = "tests/results/fixtures"
"""Fixture paths relative to the checkout: tests chdir to ROOT so sources print the same everywhere."""


def fixture(name: str) -> str:
    return f"{REL}/{name}"


def minimal(**step: Any) -> dict[str, Any]:
    """A one-scenario, one-step run; keyword arguments override the step's fields."""
    base: dict[str, Any] = {
        "input": "What is the weather like in New York right now?",
        "metrics": [{"metric_name": "AgentGoalAccuracyWithoutReference"}],
        "evaluations": [{"metric": {"metric_name": "AgentGoalAccuracyWithoutReference"},
                         "result": {"result": "pass", "score": 1.0}}],
    }
    base.update(step)
    return {"default_threshold": 0.9, "scenarios": [{"name": "Weather in New York", "steps": [base]}]}


def dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2)


__all__ = ["FIXTURES", "REL", "ROOT", "dumps", "fixture", "minimal"]
