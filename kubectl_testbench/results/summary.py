"""From a run to checks (one per step × metric) and the numbers people ask for: pass rates and mean scores.

The verdict is recomputed from the score, as the evaluate phase does it:
``score >= (metric.threshold ?? default_threshold ?? 0.9)``. A configured metric without an evaluation,
or with no usable score (null or NaN), is *errored*: neither passed nor failed, and counted in the
pass-rate denominator (an evaluation that did not happen is not a pass).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kubectl_testbench.results.model import FALLBACK_THRESHOLD, Evaluation, Metric, Run, Scenario, Step


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ERRORED = "errored"


@dataclass(frozen=True)
class Check:
    """One metric on one step with its verdict; the unit every report and comparison is made of."""

    scenario: str
    scenario_index: int
    step_index: int
    step_id: str | None
    input: str
    metric: str
    parameters: dict[str, Any]
    threshold: float
    threshold_source: str
    """``metric`` (the metric's own threshold), ``default_threshold`` (the experiment's) or ``fallback`` (0.9)."""
    score: float | None
    """``None`` when errored (NaN is reported as errored, never as a number)."""
    status: Status
    recorded: str | None
    """The ``result`` the evaluate phase wrote, kept for export; the status is recomputed from the score."""
    details: Any
    reason: str
    """Why the check is errored, or ``""``."""

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    @property
    def label(self) -> str:
        """``scenario › step N › metric`` for humans (steps count from 1 here)."""
        return f"{self.scenario} › step {self.step_index + 1} › {self.metric}"


def effective_threshold(metric: Metric, run: Run) -> tuple[float, str]:
    if metric.threshold is not None:
        return metric.threshold, "metric"
    if run.default_threshold is not None:
        return run.default_threshold, "default_threshold"
    return FALLBACK_THRESHOLD, "fallback"


def pair_evaluations(step: Step) -> list[tuple[Metric, Evaluation | None]]:
    """Match a step's configured metrics with its evaluations; unmatched metrics errored.

    An evaluation carries a copy of its metric, so the same name, threshold and parameters match first
    (two ``TopicAdherence`` with different modes stay apart), then the same name. Evaluations of metrics
    the step does not list are kept (the file is the truth about what ran).
    """
    remaining = list(step.evaluations)
    pairs: list[tuple[Metric, Evaluation | None]] = []
    for metric in step.metrics:
        found = next((e for e in remaining if e.metric.same_config(metric)), None)
        if found is None:
            found = next((e for e in remaining if e.metric.name == metric.name), None)
        if found is not None:
            remaining.remove(found)
        pairs.append((metric, found))
    pairs.extend((e.metric, e) for e in remaining)
    return pairs


def step_checks(run: Run, scenario: Scenario, step: Step) -> list[Check]:
    checks: list[Check] = []
    for metric, evaluation in pair_evaluations(step):
        config = evaluation.metric if evaluation is not None else metric
        threshold, source = effective_threshold(config, run)
        score: float | None = None
        reason = ""
        recorded = evaluation.result if evaluation is not None else None
        if evaluation is None:
            status, reason = Status.ERRORED, "no evaluation: the metric raised an error in the evaluate phase"
        elif evaluation.score is None:
            status, reason = Status.ERRORED, "no score in the evaluation"
        elif math.isnan(evaluation.score):
            status, reason = Status.ERRORED, "score is NaN: the judge could not score this step"
        else:
            score = evaluation.score
            status = Status.PASS if score >= threshold else Status.FAIL
        checks.append(Check(
            scenario=scenario.name, scenario_index=scenario.index, step_index=step.index, step_id=step.id,
            input=step.input, metric=config.name, parameters=dict(config.parameters), threshold=threshold,
            threshold_source=source, score=score, status=status, recorded=recorded,
            details=evaluation.details if evaluation is not None else None, reason=reason))
    return checks


def run_checks(run: Run) -> list[Check]:
    """Every check of a run in file order (scenario, step, metric as configured)."""
    return [c for sc in run.scenarios for st in sc.steps for c in step_checks(run, sc, st)]


def recorded_mismatches(checks: Iterable[Check]) -> list[str]:
    """Checks whose recomputed verdict differs from the one in the file (e.g. a threshold edited afterwards)."""
    return [f"{c.label}: the file records {c.recorded!r} but score {c.score:g} against threshold {c.threshold:g} "
            f"is {c.status.value!r}; reporting {c.status.value!r}"
            for c in checks if c.score is not None and c.recorded is not None and c.recorded != c.status.value]


@dataclass(frozen=True)
class Tally:
    passed: int = 0
    failed: int = 0
    errored: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored

    @property
    def pass_rate(self) -> float | None:
        """Passed over all checks, errored included; ``None`` when there is nothing to rate."""
        return self.passed / self.total if self.total else None

    @staticmethod
    def of(checks: Iterable[Check]) -> Tally:
        statuses = [c.status for c in checks]
        return Tally(statuses.count(Status.PASS), statuses.count(Status.FAIL), statuses.count(Status.ERRORED))


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class Group:
    """Tally and mean score of a set of checks: one metric, one scenario, or the whole run."""

    name: str
    tally: Tally
    mean_score: float | None
    scored: int

    @staticmethod
    def of(name: str, checks: Sequence[Check]) -> Group:
        scores = [c.score for c in checks if c.score is not None]
        return Group(name=name, tally=Tally.of(checks), mean_score=mean(scores), scored=len(scores))


@dataclass(frozen=True)
class ScenarioSummary:
    index: int
    group: Group
    steps: int
    steps_passed: int


@dataclass(frozen=True)
class StepTally:
    """Steps by verdict: a step passes when all its checks pass, fails when one fails, else errored."""

    total: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_evaluated: int = 0


@dataclass(frozen=True)
class Summary:
    run: Run
    checks: tuple[Check, ...]
    overall: Group
    metrics: tuple[Group, ...]
    scenarios: tuple[ScenarioSummary, ...]
    steps: StepTally
    warnings: tuple[str, ...]

    @property
    def failing(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


def step_verdict(checks: Sequence[Check]) -> Status | None:
    if not checks:
        return None
    if any(c.status is Status.FAIL for c in checks):
        return Status.FAIL
    if any(c.status is Status.ERRORED for c in checks):
        return Status.ERRORED
    return Status.PASS


def summarize(run: Run) -> Summary:
    """Metrics sorted by name; scenarios, steps and checks in file order."""
    checks: list[Check] = []
    scenarios: list[ScenarioSummary] = []
    verdicts: list[Status | None] = []
    for sc in run.scenarios:
        sc_checks: list[Check] = []
        passed_steps = 0
        for st in sc.steps:
            these = step_checks(run, sc, st)
            verdict = step_verdict(these)
            verdicts.append(verdict)
            passed_steps += verdict is Status.PASS
            sc_checks.extend(these)
        checks.extend(sc_checks)
        scenarios.append(ScenarioSummary(index=sc.index, group=Group.of(sc.name, sc_checks), steps=len(sc.steps),
                                         steps_passed=passed_steps))
    by_metric: dict[str, list[Check]] = {}
    for c in checks:
        by_metric.setdefault(c.metric, []).append(c)
    steps = StepTally(total=len(verdicts), passed=verdicts.count(Status.PASS), failed=verdicts.count(Status.FAIL),
                      errored=verdicts.count(Status.ERRORED), not_evaluated=verdicts.count(None))
    warnings = list(run.warnings)
    warnings += [f"{run.source}: {m}" for m in recorded_mismatches(checks)]
    if not run.scenarios:
        warnings.append(f"{run.source}: the run has no scenarios: nothing was evaluated")
    elif not checks:
        warnings.append(f"{run.source}: no step has metrics: nothing was evaluated")
    return Summary(
        run=run, checks=tuple(checks), overall=Group.of("all", checks),
        metrics=tuple(Group.of(name, by_metric[name]) for name in sorted(by_metric)),
        scenarios=tuple(scenarios), steps=steps, warnings=tuple(warnings))
