"""CI gates: when ``results`` and ``compare`` should exit 1. Kept apart so the rules live in one place.

``results``: fails when any check failed or errored, or with ``min_pass_rate`` when the pass rate is below
it; a run with nothing evaluated fails (an empty run must not pass a pipeline by accident).

``compare``: fails when a check that passed in the base does not pass in the candidate; with
``max_regression`` instead when a metric's mean drops by more than it, or a check scored in the base is
errored in the candidate (a missing score cannot lower a mean, so it is looked at on its own).

``ignore_errored`` leaves errored checks out of both gates (and out of the pass-rate denominator).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubectl_testbench.results.compare import Change, Comparison
from kubectl_testbench.results.summary import Summary
from kubectl_testbench.words import plural

EPSILON = 1e-9
"""Float slack so that a drop of exactly ``max_regression`` (0.9 → 0.8 with X = 0.1) does not fail."""


@dataclass(frozen=True)
class GatePolicy:
    enforce: bool = True
    min_pass_rate: float | None = None
    max_regression: float | None = None
    ignore_errored: bool = False


@dataclass(frozen=True)
class GateResult:
    passed: bool
    enforced: bool
    reasons: tuple[str, ...]
    regressed_metrics: tuple[str, ...] = ()

    @property
    def exit_failed(self) -> bool:
        return self.enforced and not self.passed


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def results_gate(summaries: Sequence[Summary], policy: GatePolicy) -> GateResult:
    reasons: list[str] = []
    for s in summaries:
        t = s.overall.tally
        considered = t.passed + t.failed + (0 if policy.ignore_errored else t.errored)
        where = s.run.source
        if considered == 0:
            reasons.append(f"{where}: nothing was evaluated ({plural(len(s.run.scenarios), 'scenario')}, "
                           f"{plural(len(s.checks), 'check')})")
            continue
        if policy.min_pass_rate is not None:
            rate = t.passed / considered
            if rate + EPSILON < policy.min_pass_rate:
                reasons.append(f"{where}: pass rate {_pct(rate)} ({t.passed}/{considered}) is below "
                               f"{_pct(policy.min_pass_rate)}")
            continue
        if t.failed:
            reasons.append(f"{where}: {t.failed} of {plural(t.total, 'check')} failed")
        if t.errored and not policy.ignore_errored:
            reasons.append(f"{where}: {t.errored} of {plural(t.total, 'check')} errored")
    return GateResult(passed=not reasons, enforced=policy.enforce, reasons=tuple(reasons))


def compare_gate(cmp: Comparison, policy: GatePolicy) -> GateResult:
    reasons: list[str] = []
    regressed: list[str] = []
    newly_failing = cmp.with_change(Change.NEWLY_FAILING)
    newly_errored = [p for p in cmp.checks if p.newly_errored]
    if policy.max_regression is None:
        counted = [p for p in newly_failing if not (policy.ignore_errored and p.candidate is not None
                                                     and p.candidate.score is None)]
        if counted:
            errored = sum(1 for p in counted if p.candidate is not None and p.candidate.score is None)
            reasons.append(f"{plural(len(counted), 'check')} newly failing"
                           + (f" ({errored} of them errored)" if errored else ""))
    else:
        for m in cmp.metrics:
            delta = m.delta
            if delta is not None and -delta > policy.max_regression + EPSILON:
                regressed.append(m.metric)
                reasons.append(f"{m.metric} mean dropped by {-delta:.3f} ({m.base_mean:.3f} → "
                               f"{m.candidate_mean:.3f}), more than {policy.max_regression:g}")
        if newly_errored and not policy.ignore_errored:
            reasons.append(f"{plural(len(newly_errored), 'check')} scored in the base errored in the candidate")
    return GateResult(passed=not reasons, enforced=policy.enforce, reasons=tuple(reasons),
                      regressed_metrics=tuple(regressed))
