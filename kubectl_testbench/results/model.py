"""Typed view of ``evaluated_experiment.json`` and a parser that says exactly what is wrong with a bad file.

The evaluate phase writes the file with ``exclude_none``: absent keys mean "not set". A metric whose
evaluation raised has no entry in the step's ``evaluations`` (and a step whose metrics all raised has no
``evaluations`` key at all), so errors are found by comparing ``metrics`` with ``evaluations``. We keep
only what summaries and comparisons need; ``turns`` are counted, not kept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

FALLBACK_THRESHOLD = 0.9
"""Threshold when neither the metric nor the experiment sets one (the evaluate phase's default)."""


class ResultsError(Exception):
    """An input that cannot be read as an evaluation run; ``str()`` is a one-line message for users."""

    def __init__(self, source: str, message: str, where: str = "") -> None:
        self.source = source
        self.where = where
        self.detail = message
        prefix = f"{source}: " + (f"{where}: " if where else "")
        super().__init__(prefix + message)


@dataclass(frozen=True)
class Metric:
    """A metric as configured on a step (``metric_name``, optional ``threshold`` and ``parameters``)."""

    name: str
    threshold: float | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def same_config(self, other: Metric) -> bool:
        return self.name == other.name and self.threshold == other.threshold and self.parameters == other.parameters


@dataclass(frozen=True)
class Evaluation:
    """One metric's outcome on one step, as the evaluate phase recorded it."""

    metric: Metric
    result: str | None
    """``"pass"``, ``"fail"`` or ``None`` (the verdict the evaluate phase wrote; we recompute it from the score)."""
    score: float | None
    """``None`` when the file has no score; NaN when the file says NaN (the judge could not score)."""
    details: Any = None


@dataclass(frozen=True)
class Step:
    index: int
    input: str
    id: str | None
    metrics: tuple[Metric, ...]
    evaluations: tuple[Evaluation, ...]
    has_evaluations_key: bool
    turns: int


@dataclass(frozen=True)
class Scenario:
    index: int
    name: str
    id: str | None
    trace_id: str | None
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Run:
    """One evaluated execution: where it came from, the experiment-wide settings and its scenarios."""

    source: str
    id: str | None
    judge_model: str | None
    default_threshold: float | None
    scenarios: tuple[Scenario, ...]
    warnings: tuple[str, ...] = ()

    @property
    def step_count(self) -> int:
        return sum(len(s.steps) for s in self.scenarios)


def parse_text(text: str, source: str) -> Run:
    """Parse JSON text into a :class:`Run`; raise :class:`ResultsError` with ``line:col`` for syntax errors."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ResultsError(f"{source}:{err.lineno}:{err.colno}", f"invalid JSON: {err.msg}") from None
    except RecursionError:
        raise ResultsError(source, "invalid JSON: nested too deeply") from None
    return parse_document(data, source)


def parse_document(data: object, source: str) -> Run:
    """Check and convert a decoded document; every problem names its JSON path (``scenarios[0].steps[1]…``)."""
    p = _Parser(source)
    doc = p.obj(data, "", "an evaluated experiment object (evaluated_experiment.json)")
    if "scenarios" not in doc:
        hint = ""
        if "apiVersion" in doc or "kind" in doc:
            hint = (" (this looks like a Kubernetes manifest; results reads the evaluate phase's "
                    "evaluated_experiment.json)")
        raise ResultsError(source, f"required field 'scenarios' is missing{hint}", "")
    default_threshold = p.threshold(doc.get("default_threshold"), "default_threshold")
    scenarios = tuple(p.scenario(raw, i) for i, raw in enumerate(p.array(doc["scenarios"], "scenarios")))
    warnings = list(p.warnings)
    steps_with_metrics = [st for sc in scenarios for st in sc.steps if st.metrics]
    if steps_with_metrics and not any(st.has_evaluations_key for sc in scenarios for st in sc.steps):
        warnings.append(f"{source}: no step has 'evaluations': every metric counts as errored; is this "
                        "executed_experiment.json rather than the evaluate phase's evaluated_experiment.json?")
    return Run(
        source=source,
        id=p.optional_str(doc.get("id"), "id"),
        judge_model=p.optional_str(doc.get("llm_as_a_judge_model"), "llm_as_a_judge_model"),
        default_threshold=default_threshold,
        scenarios=scenarios,
        warnings=tuple(warnings),
    )


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class _Parser:
    """Walks the document once; knows the source so every error can say where it is."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.warnings: list[str] = []

    def fail(self, where: str, message: str) -> ResultsError:
        return ResultsError(self.source, message, where)

    def obj(self, value: object, where: str, what: str = "an object") -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected {what}, got {_kind(value)}")
        return value

    def array(self, value: object, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected an array, got {_kind(value)}")
        return value

    def required(self, doc: dict[str, Any], key: str, where: str) -> Any:
        if key not in doc or doc[key] is None:
            raise self.fail(_join(where, key), "required field is missing")
        return doc[key]

    def string(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {_kind(value)}")
        return value

    def optional_str(self, value: object, where: str) -> str | None:
        return None if value is None else self.string(value, where)

    def number(self, value: object, where: str, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected {what}, got {_kind(value)}")
        number = float(value)
        if math.isinf(number):
            raise self.fail(where, f"expected {what}, got {'-' if number < 0 else ''}Infinity")
        return number

    def threshold(self, value: object, where: str) -> float | None:
        if value is None:
            return None
        number = self.number(value, where, "a threshold between 0 and 1")
        if math.isnan(number) or not 0.0 <= number <= 1.0:
            raise self.fail(where, f"expected a threshold between 0 and 1, got {_show(number)}")
        return number

    def metric(self, value: object, where: str) -> Metric:
        doc = self.obj(value, where, "a metric object")
        name = self.string(self.required(doc, "metric_name", where), _join(where, "metric_name"))
        params = doc.get("parameters")
        if params is not None:
            params = self.obj(params, _join(where, "parameters"))
        return Metric(name=name, threshold=self.threshold(doc.get("threshold"), _join(where, "threshold")),
                      parameters=params or {})

    def evaluation(self, value: object, where: str) -> Evaluation:
        doc = self.obj(value, where, "an evaluation object")
        metric = self.metric(self.required(doc, "metric", where), _join(where, "metric"))
        rwhere = _join(where, "result")
        result = self.obj(self.required(doc, "result", where), rwhere, "a result object")
        verdict = result.get("result")
        if verdict is not None and verdict not in ("pass", "fail"):
            raise self.fail(_join(rwhere, "result"), f"expected \"pass\", \"fail\" or null, got {json.dumps(verdict)}")
        score: float | None = None
        if result.get("score") is not None:
            score = self.number(result["score"], _join(rwhere, "score"), "a score between 0 and 1")
            if not math.isnan(score) and not 0.0 <= score <= 1.0:
                raise self.fail(_join(rwhere, "score"), f"expected a score between 0 and 1, got {_show(score)}")
        return Evaluation(metric=metric, result=verdict, score=score, details=result.get("details"))

    def step(self, value: object, index: int, where: str) -> Step:
        doc = self.obj(value, where, "a step object")
        text = self.string(self.required(doc, "input", where), _join(where, "input"))
        metrics = doc.get("metrics")
        metric_list = () if metrics is None else tuple(
            self.metric(m, f"{where}.metrics[{i}]") for i, m in enumerate(self.array(metrics, _join(where, "metrics"))))
        evaluations = doc.get("evaluations")
        evaluation_list = () if evaluations is None else tuple(
            self.evaluation(e, f"{where}.evaluations[{i}]")
            for i, e in enumerate(self.array(evaluations, _join(where, "evaluations"))))
        turns = doc.get("turns")
        turn_count = 0 if turns is None else len(self.array(turns, _join(where, "turns")))
        return Step(index=index, input=text, id=self.optional_str(doc.get("id"), _join(where, "id")),
                    metrics=metric_list, evaluations=evaluation_list,
                    has_evaluations_key=evaluations is not None, turns=turn_count)

    def scenario(self, value: object, index: int) -> Scenario:
        where = f"scenarios[{index}]"
        doc = self.obj(value, where, "a scenario object")
        name = self.string(self.required(doc, "name", where), _join(where, "name"))
        steps = tuple(self.step(s, i, f"{where}.steps[{i}]")
                      for i, s in enumerate(self.array(self.required(doc, "steps", where), _join(where, "steps"))))
        if not steps:
            self.warnings.append(f"{self.source}: {where} ({name!r}) has no steps")
        return Scenario(index=index, name=name, id=self.optional_str(doc.get("id"), _join(where, "id")),
                        trace_id=self.optional_str(doc.get("trace_id"), _join(where, "trace_id")), steps=steps)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _show(number: float) -> str:
    return "NaN" if math.isnan(number) else repr(number)
