"""The run phase's input models, stated in our own words as checks.

What ``testbench.schema.models`` (agentic-layer/testbench@a8e16f1, ``schema/models.py``) accepts as the
``Experiment`` the setup phase writes and the run phase reads (``ExperimentRuntime`` validates
``data/datasets/experiment.json`` into it; a failure ends the run). Pydantic v2 with default settings:

- Experiment: ``scenarios`` (required, a list of Scenario); ``llm_as_a_judge_model`` (text or null);
  ``default_threshold`` (a number in [0, 1], 0.9 when absent).
- Scenario: ``name`` (required text); ``steps`` (required list of Step).
- Step: ``input`` (required text); ``reference`` (Reference or null); ``custom_values`` (an object or null);
  ``metrics`` (a list of Metric, or null).
- Reference: ``response`` (text or null); ``tool_calls`` (list of ToolCall or null); ``topics`` and
  ``retrieved_contexts`` (lists of text, or null).
- ToolCall: ``name`` (required text); ``args`` (required object).
- Metric: ``metric_name`` (required text); ``threshold`` (a number in [0, 1], or null); ``parameters`` (an
  object or null).

Pydantic ignores keys a model does not declare; this check refuses them, because we only ever mean to write
what the image reads (a misspelt key would be silently dropped). Text must be JSON strings (pydantic does not
turn numbers into text) and numbers JSON numbers (we never rely on its string-to-float coercion).
"""

from __future__ import annotations

import math
from typing import Any

Field = tuple[str, bool, str]
"""(name, required, kind)."""

MODELS: dict[str, tuple[Field, ...]] = {
    "Experiment": (("llm_as_a_judge_model", False, "text"), ("default_threshold", False, "unit"),
                   ("scenarios", True, "list:Scenario")),
    "Scenario": (("name", True, "text"), ("steps", True, "list:Step")),
    "Step": (("input", True, "text"), ("reference", False, "Reference"), ("custom_values", False, "object"),
             ("metrics", False, "list:Metric")),
    "Reference": (("response", False, "text"), ("tool_calls", False, "list:ToolCall"),
                  ("topics", False, "list:text"), ("retrieved_contexts", False, "list:text")),
    "ToolCall": (("name", True, "text"), ("args", True, "object")),
    "Metric": (("metric_name", True, "text"), ("threshold", False, "unit"), ("parameters", False, "object")),
}


def experiment_problems(document: Any) -> list[str]:
    """Why the run phase's ``Experiment`` model would reject ``document`` (empty when it accepts it)."""
    problems: list[str] = []
    _check(document, "Experiment", "", problems)
    return problems


def _check(value: Any, kind: str, at: str, out: list[str]) -> None:
    where = at or "(document)"
    if kind == "text":
        if not isinstance(value, str):
            out.append(f"{where}: must be text, got {type(value).__name__}")
    elif kind == "unit":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            out.append(f"{where}: must be a number, got {type(value).__name__}")
        elif not (math.isfinite(value) and 0 <= value <= 1):
            out.append(f"{where}: {value} is outside [0, 1]")
    elif kind == "object":
        if not isinstance(value, dict):
            out.append(f"{where}: must be an object, got {type(value).__name__}")
    elif kind.startswith("list:"):
        if not isinstance(value, list):
            out.append(f"{where}: must be a list, got {type(value).__name__}")
            return
        for i, item in enumerate(value):
            _check(item, kind[5:], f"{at}[{i}]", out)
    else:
        _model(value, kind, at, out)


def _model(value: Any, model: str, at: str, out: list[str]) -> None:
    if not isinstance(value, dict):
        out.append(f"{at or '(document)'}: must be an object ({model}), got {type(value).__name__}")
        return
    fields = MODELS[model]
    for name, required, kind in fields:
        path = f"{at}.{name}" if at else name
        if name not in value:
            if required:
                out.append(f"{path}: required by {model}")
            continue
        if value[name] is None and not required:
            continue
        _check(value[name], kind, path, out)
    known = {name for name, _, _ in fields}
    for name in sorted(set(value) - known):
        out.append(f"{at}.{name}: not a field of {model}" if at else f"{name}: not a field of {model}")
