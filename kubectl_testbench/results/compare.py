"""Two runs of the same dataset side by side: which checks changed verdict, how each metric's mean moved.

Matching, per scenario (scenarios pair by name; repeated names pair by occurrence):

1. same step index and same input;
2. then the same input at another index (a step was inserted or moved);
3. then the same index with a changed input (the text was edited), flagged as such.

Whatever is left is reported as only in one run and never counted in deltas. Metric means are taken over
matched checks that have a score in both runs, so both sides average the same samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from kubectl_testbench.results.model import Run, Scenario, Step
from kubectl_testbench.results.summary import Check, Summary, mean, step_checks
from kubectl_testbench.words import plural


class CompareError(Exception):
    """Two runs that cannot be compared (e.g. different datasets); ``str()`` is the one-line message."""


class Change(StrEnum):
    NEWLY_FAILING = "newly_failing"
    NEWLY_PASSING = "newly_passing"
    UNCHANGED = "unchanged"
    ONLY_IN_BASE = "only_in_base"
    ONLY_IN_CANDIDATE = "only_in_candidate"


class Match(StrEnum):
    INDEX = "index"
    INPUT = "input"
    INPUT_CHANGED = "index-input-changed"
    NONE = "none"


@dataclass(frozen=True)
class StepPair:
    scenario: str
    base: Step | None
    candidate: Step | None
    match: Match


@dataclass(frozen=True)
class CheckPair:
    scenario: str
    base_step: int | None
    candidate_step: int | None
    input: str
    metric: str
    base: Check | None
    candidate: Check | None
    change: Change
    match: Match

    @property
    def delta(self) -> float | None:
        if self.base is None or self.candidate is None or self.base.score is None or self.candidate.score is None:
            return None
        return self.candidate.score - self.base.score

    @property
    def newly_errored(self) -> bool:
        """Scored in the base, errored in the candidate: invisible in means, so the gate looks at it apart."""
        return (self.base is not None and self.candidate is not None and self.base.score is not None
                and self.candidate.score is None)


@dataclass(frozen=True)
class MetricDelta:
    metric: str
    pairs: int
    """Matched checks of this metric."""
    scored_pairs: int
    """Matched checks with a score in both runs: the samples behind the means."""
    base_mean: float | None
    candidate_mean: float | None
    base_passed: int
    candidate_passed: int

    @property
    def delta(self) -> float | None:
        if self.base_mean is None or self.candidate_mean is None:
            return None
        return self.candidate_mean - self.base_mean


@dataclass(frozen=True)
class Comparison:
    base: Summary
    candidate: Summary
    steps: tuple[StepPair, ...]
    checks: tuple[CheckPair, ...]
    metrics: tuple[MetricDelta, ...]
    warnings: tuple[str, ...]

    def with_change(self, change: Change) -> list[CheckPair]:
        return [c for c in self.checks if c.change is change]

    def steps_only_in(self, side: str) -> list[StepPair]:
        return [s for s in self.steps if s.match is Match.NONE and (s.base if side == "base" else s.candidate)]

    @property
    def matched_steps(self) -> int:
        return sum(1 for s in self.steps if s.match is not Match.NONE)


def _scenario_keys(run: Run) -> list[tuple[tuple[str, int], Scenario]]:
    seen: dict[str, int] = {}
    keyed = []
    for sc in run.scenarios:
        seen[sc.name] = seen.get(sc.name, 0) + 1
        keyed.append(((sc.name, seen[sc.name]), sc))
    return keyed


def match_steps(base: Sequence[Step], candidate: Sequence[Step]) -> list[tuple[Step | None, Step | None, Match]]:
    """Pair two scenarios' steps (see the module docstring); base order, candidate-only steps after."""
    partner: dict[int, tuple[int, Match]] = {}
    taken: set[int] = set()
    for b in base:
        if b.index < len(candidate) and candidate[b.index].input == b.input:
            partner[b.index] = (b.index, Match.INDEX)
            taken.add(b.index)
    for b in base:
        if b.index in partner:
            continue
        c = next((c for c in candidate if c.index not in taken and c.input == b.input), None)
        if c is not None:
            partner[b.index] = (c.index, Match.INPUT)
            taken.add(c.index)
    for b in base:
        if b.index not in partner and b.index < len(candidate) and b.index not in taken:
            partner[b.index] = (b.index, Match.INPUT_CHANGED)
            taken.add(b.index)
    pairs: list[tuple[Step | None, Step | None, Match]] = []
    for b in base:
        if b.index in partner:
            ci, how = partner[b.index]
            pairs.append((b, candidate[ci], how))
        else:
            pairs.append((b, None, Match.NONE))
    pairs.extend((None, c, Match.NONE) for c in candidate if c.index not in taken)
    return pairs


def _match_checks(base: list[Check], candidate: list[Check]) -> list[tuple[Check | None, Check | None]]:
    """Same metric name and parameters first, then same name; the rest was added or removed."""
    remaining = list(candidate)
    pairs: list[tuple[Check | None, Check | None]] = []
    for b in base:
        found = next((c for c in remaining if c.metric == b.metric and c.parameters == b.parameters), None)
        if found is None:
            found = next((c for c in remaining if c.metric == b.metric), None)
        if found is not None:
            remaining.remove(found)
        pairs.append((b, found))
    pairs.extend((None, c) for c in remaining)
    return pairs


def _change(base: Check | None, candidate: Check | None) -> Change:
    if candidate is None:
        return Change.ONLY_IN_BASE
    if base is None:
        return Change.ONLY_IN_CANDIDATE
    if base.passed and not candidate.passed:
        return Change.NEWLY_FAILING
    if candidate.passed and not base.passed:
        return Change.NEWLY_PASSING
    return Change.UNCHANGED


def compare(base: Summary, candidate: Summary) -> Comparison:
    """Compare two summarised runs; raise :class:`CompareError` when they share no step at all."""
    brun, crun = base.run, candidate.run
    for s in (base, candidate):
        if s.run.step_count == 0:
            raise CompareError(f"nothing to compare: {s.run.source} has no steps")
    cand_by_key = dict(_scenario_keys(crun))
    base_keys = {key for key, _ in _scenario_keys(brun)}
    step_pairs: list[StepPair] = []
    check_pairs: list[CheckPair] = []

    def add(name: str, b: Step | None, c: Step | None, how: Match, bsc: Scenario | None, csc: Scenario | None) -> None:
        step_pairs.append(StepPair(name, b, c, how))
        bchecks = step_checks(brun, bsc, b) if b is not None and bsc is not None else []
        cchecks = step_checks(crun, csc, c) if c is not None and csc is not None else []
        text = b.input if b is not None else c.input if c is not None else ""
        for bc, cc in _match_checks(bchecks, cchecks):
            metric = bc.metric if bc is not None else cc.metric if cc is not None else ""
            check_pairs.append(CheckPair(
                scenario=name, base_step=None if b is None else b.index, candidate_step=None if c is None else c.index,
                input=text, metric=metric, base=bc, candidate=cc, change=_change(bc, cc), match=how))

    for key, bsc in _scenario_keys(brun):
        csc = cand_by_key.get(key)
        if csc is None:
            for lone in bsc.steps:
                add(bsc.name, lone, None, Match.NONE, bsc, None)
            continue
        for bstep, cstep, how in match_steps(bsc.steps, csc.steps):
            add(bsc.name, bstep, cstep, how, bsc, csc)
    for key, csc in _scenario_keys(crun):
        if key not in base_keys:
            for lone in csc.steps:
                add(csc.name, None, lone, Match.NONE, None, csc)

    matched = sum(1 for p in step_pairs if p.match is not Match.NONE)
    if matched == 0:
        shared = len(base_keys & set(cand_by_key))
        raise CompareError(
            f"{brun.source} and {crun.source} share no step ({shared} of {len(base_keys)} base scenarios found in "
            "the candidate by name): they look like runs of different datasets")
    comparison = Comparison(base=base, candidate=candidate, steps=tuple(step_pairs), checks=tuple(check_pairs),
                            metrics=tuple(_metric_deltas(check_pairs)), warnings=())
    return replace(comparison, warnings=tuple(_warnings(comparison)))


def _metric_deltas(pairs: Sequence[CheckPair]) -> list[MetricDelta]:
    by_metric: dict[str, list[CheckPair]] = {}
    for p in pairs:
        if p.base is not None and p.candidate is not None:
            by_metric.setdefault(p.metric, []).append(p)
    deltas = []
    for name in sorted(by_metric):
        matched = by_metric[name]
        scored = [(p.base.score, p.candidate.score) for p in matched
                  if p.base is not None and p.candidate is not None
                  and p.base.score is not None and p.candidate.score is not None]
        deltas.append(MetricDelta(
            metric=name, pairs=len(matched), scored_pairs=len(scored),
            base_mean=mean([b for b, _ in scored]), candidate_mean=mean([c for _, c in scored]),
            base_passed=sum(1 for p in matched if p.base is not None and p.base.passed),
            candidate_passed=sum(1 for p in matched if p.candidate is not None and p.candidate.passed)))
    return deltas


def _warnings(cmp: Comparison) -> list[str]:
    brun, crun = cmp.base.run, cmp.candidate.run
    notes: list[str] = []
    only_base, only_cand = len(cmp.steps_only_in("base")), len(cmp.steps_only_in("candidate"))
    if only_base or only_cand:
        notes.append(f"{plural(only_base, 'step')} only in {brun.source}, {only_cand} only in {crun.source}: "
                     "they are listed but not compared")
    changed = [s for s in cmp.steps if s.match is Match.INPUT_CHANGED]
    if changed:
        notes.append(f"{plural(len(changed), 'step')} matched by index although the input text changed")
    if brun.judge_model != crun.judge_model:
        notes.append(f"the judge model differs ({brun.judge_model or 'unset'} → {crun.judge_model or 'unset'}): "
                     "score changes may come from the judge")
    if brun.default_threshold != crun.default_threshold:
        notes.append(f"default_threshold differs ({_num(brun.default_threshold)} → {_num(crun.default_threshold)})")
    return notes


def _num(value: float | None) -> str:
    return "unset" if value is None or math.isnan(value) else f"{value:g}"
