"""``compare`` output formats: one function per format, from a comparison and its gate to text.

Same conventions as :mod:`kubectl_testbench.results.formats`: steps from 1 for humans, ``*_step_index``
from 0 in json and csv; deltas are candidate minus base.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from kubectl_testbench.results import text as t
from kubectl_testbench.results.compare import Change, CheckPair, Comparison, Match, MetricDelta, StepPair
from kubectl_testbench.results.formats import INPUT_WIDTH, NAME_WIDTH, gate_json
from kubectl_testbench.results.gate import GatePolicy, GateResult
from kubectl_testbench.results.summary import Check, Status, Summary


def _side(c: Check | None) -> str:
    if c is None:
        return "absent"
    if c.status is Status.ERRORED:
        return "errored"
    return f"{t.score(c.score)} {c.status.value}"


def _step_label(p: CheckPair | StepPair) -> str:
    b = p.base_step if isinstance(p, CheckPair) else (p.base.index if p.base else None)
    c = p.candidate_step if isinstance(p, CheckPair) else (p.candidate.index if p.candidate else None)
    if b is not None and c is not None and b != c:
        return f"step {b + 1}→{c + 1}"
    return f"step {(b if b is not None else c or 0) + 1}"


def _pair_line(p: CheckPair) -> str:
    line = (f"{t.one_line(p.scenario)} › {_step_label(p)} › {t.one_line(p.metric)}: "
            f"{_side(p.base)} → {_side(p.candidate)}")
    if p.delta is not None:
        line += f" ({t.delta(p.delta)})"
    threshold = (p.candidate or p.base)
    if threshold is not None:
        line += f", threshold {t.score(threshold.threshold)}"
    if p.candidate is not None and p.candidate.reason:
        line += f"; {t.one_line(p.candidate.reason)}"
    return line


def _metric_cells(m: MetricDelta) -> list[str]:
    return [str(m.pairs), str(m.scored_pairs), t.score(m.base_mean), t.score(m.candidate_mean), t.delta(m.delta),
            f"{m.base_passed}/{m.pairs}", f"{m.candidate_passed}/{m.pairs}"]


def _headline(cmp: Comparison) -> str:
    matched_checks = sum(1 for c in cmp.checks if c.base is not None and c.candidate is not None)
    ob, oc = cmp.steps_only_in("base"), cmp.steps_only_in("candidate")
    return (f"Matched {t.plural(cmp.matched_steps, 'step')} ({t.plural(matched_checks, 'check')}) · "
            f"newly failing {len(cmp.with_change(Change.NEWLY_FAILING))} · "
            f"newly passing {len(cmp.with_change(Change.NEWLY_PASSING))} · "
            f"only in base {t.plural(len(ob), 'step')} · only in candidate {t.plural(len(oc), 'step')}")


def _run_line(label: str, s: Summary) -> str:
    run = s.run
    return t.one_line(f"{label} {run.source} (experiment {run.id or '-'}, judge {run.judge_model or '-'}, "
                      f"{t.plural(len(s.checks), 'check')}, {t.rate(s.overall.tally.pass_rate)} pass)")


def compare_table(cmp: Comparison, gate: GateResult, policy: GatePolicy | None = None) -> str:
    out = _run_line("Base:     ", cmp.base) + "\n" + _run_line("Candidate:", cmp.candidate) + "\n"
    out += _headline(cmp) + "\n"
    if cmp.metrics:
        regressed = set(gate.regressed_metrics)
        rows = [[t.clip(m.metric, NAME_WIDTH), *_metric_cells(m), "REGRESSED" if m.metric in regressed else ""]
                for m in cmp.metrics]
        out += "\n" + t.table(["METRIC", "PAIRS", "SCORED", "BASE MEAN", "CAND MEAN", "DELTA", "BASE PASSED",
                               "CAND PASSED", ""], rows, right=range(1, 8))
    sections = [
        ("NEWLY FAILING", cmp.with_change(Change.NEWLY_FAILING)),
        ("NEWLY PASSING", cmp.with_change(Change.NEWLY_PASSING)),
        ("SCORE CHANGED, SAME VERDICT", [p for p in cmp.with_change(Change.UNCHANGED)
                                         if p.delta is not None and t.delta(p.delta) != "0.000"]),
    ]
    for title, pairs in sections:
        if pairs:
            out += f"\n{title} ({len(pairs)})\n" + "".join(f"  {_pair_line(p)}\n" for p in pairs)
    for side, title in (("base", "ONLY IN BASE"), ("candidate", "ONLY IN CANDIDATE")):
        steps = cmp.steps_only_in(side)
        if steps:
            out += f"\n{title} ({t.plural(len(steps), 'step')})\n"
            for sp in steps:
                step = sp.base or sp.candidate
                out += (f"  {t.one_line(sp.scenario)} › {_step_label(sp)}: "
                        f"{t.clip(step.input if step else '', INPUT_WIDTH)}\n")
    added = [p for p in cmp.checks if p.match is not Match.NONE and (p.base is None or p.candidate is None)]
    if added:
        out += f"\nMETRICS ON ONE SIDE ONLY ({len(added)})\n"
        out += "".join(f"  {_pair_line(p)}\n" for p in added)
    return out


def _check_side_json(c: Check | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"status": c.status.value, "score": c.score, "threshold": c.threshold, "reason": c.reason or None}


def _run_json(s: Summary) -> dict[str, Any]:
    run = s.run
    return {"source": run.source, "experiment": {"id": run.id, "llm_as_a_judge_model": run.judge_model,
                                                 "default_threshold": run.default_threshold},
            "checks": len(s.checks), "pass_rate": t.rounded(s.overall.tally.pass_rate),
            "mean_score": t.rounded(s.overall.mean_score)}


def compare_json(cmp: Comparison, gate: GateResult, policy: GatePolicy | None = None) -> str:
    regressed = set(gate.regressed_metrics)
    counts = {change.value: len(cmp.with_change(change)) for change in Change}
    doc = {
        "base": _run_json(cmp.base),
        "candidate": _run_json(cmp.candidate),
        "summary": {
            "matched_steps": cmp.matched_steps,
            "matched_checks": sum(1 for c in cmp.checks if c.base is not None and c.candidate is not None),
            **counts,
            "only_in_base_steps": len(cmp.steps_only_in("base")),
            "only_in_candidate_steps": len(cmp.steps_only_in("candidate")),
        },
        "metrics": [{"metric": m.metric, "pairs": m.pairs, "scored_pairs": m.scored_pairs,
                     "base_mean": t.rounded(m.base_mean), "candidate_mean": t.rounded(m.candidate_mean),
                     "delta": t.rounded(m.delta), "base_passed": m.base_passed,
                     "candidate_passed": m.candidate_passed, "regressed": m.metric in regressed}
                    for m in cmp.metrics],
        "checks": [{"scenario": p.scenario, "base_step_index": p.base_step, "candidate_step_index": p.candidate_step,
                    "match": p.match.value, "input": p.input, "metric": p.metric, "change": p.change.value,
                    "delta": t.rounded(p.delta), "base": _check_side_json(p.base),
                    "candidate": _check_side_json(p.candidate)} for p in cmp.checks],
        "warnings": list(cmp.warnings),
        "gate": gate_json(gate, policy),
    }
    return t.json_document(doc)


CSV_COLUMNS = ("scenario", "base_step_index", "candidate_step_index", "match", "input", "metric", "base_status",
               "base_score", "base_threshold", "candidate_status", "candidate_score", "candidate_threshold", "delta",
               "change")


def compare_csv(cmp: Comparison, gate: GateResult, policy: GatePolicy | None = None) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in cmp.checks:
        b, c = p.base, p.candidate
        writer.writerow([
            p.scenario, "" if p.base_step is None else p.base_step,
            "" if p.candidate_step is None else p.candidate_step, p.match.value, p.input, p.metric,
            b.status.value if b else "", t.raw(b.score if b else None), t.raw(b.threshold if b else None),
            c.status.value if c else "", t.raw(c.score if c else None), t.raw(c.threshold if c else None),
            t.raw(t.rounded(p.delta)), p.change.value])
    return buf.getvalue()


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_pairs(pairs: Sequence[CheckPair]) -> list[str]:
    rows = [_md_row(["Scenario", "Step", "Metric", "Base", "Candidate", "Δ", "Input"]),
            _md_row(["---", "---", "---", "---:", "---:", "---:", "---"])]
    rows += [_md_row([t.md(p.scenario), _step_label(p).removeprefix("step "), t.md(p.metric), _side(p.base),
                      _side(p.candidate), t.delta(p.delta), t.md(p.input, INPUT_WIDTH)]) for p in pairs]
    return rows


def compare_markdown(cmp: Comparison, gate: GateResult, policy: GatePolicy | None = None) -> str:
    failing, passing = cmp.with_change(Change.NEWLY_FAILING), cmp.with_change(Change.NEWLY_PASSING)
    out = [f"### {'✅' if gate.passed else '❌'} Testbench compare: {len(failing)} newly failing, "
           f"{len(passing)} newly passing", "",
           f"Base {t.code(cmp.base.run.source)} → candidate {t.code(cmp.candidate.run.source)} · "
           + _headline(cmp)[0].lower() + _headline(cmp)[1:]]
    if cmp.metrics:
        regressed = set(gate.regressed_metrics)
        out += ["", _md_row(["Metric", "Pairs", "Scored", "Base mean", "Candidate mean", "Δ", "Base passed",
                             "Candidate passed"]), _md_row(["---", *["---:"] * 7])]
        out += [_md_row([t.md(m.metric) + (" ⚠️" if m.metric in regressed else ""), *_metric_cells(m)])
                for m in cmp.metrics]
    for title, pairs in (("Newly failing", failing), ("Newly passing", passing)):
        if pairs:
            out += ["", f"#### {title} ({len(pairs)})", "", *_md_pairs(pairs)]
    only = cmp.steps_only_in("base") + cmp.steps_only_in("candidate")
    if only:
        out += ["", f"<details><summary>Only in one run ({t.plural(len(only), 'step')})</summary>", "",
                _md_row(["Run", "Scenario", "Step", "Input"]), _md_row(["---", "---", "---:", "---"])]
        for sp in only:
            step = sp.base or sp.candidate
            out.append(_md_row(["base" if sp.base else "candidate", t.md(sp.scenario),
                                str((step.index if step else 0) + 1), t.md(step.input if step else "", INPUT_WIDTH)]))
        out += ["", "</details>"]
    if cmp.warnings:
        out += ["", *[f"> {t.md(w)}" for w in cmp.warnings]]
    if gate.enforced and not gate.passed:
        out += ["", "**Gate failed:**", "", *[f"- {t.md(r)}" for r in gate.reasons]]
    out.append("")
    return "\n".join(out)


def compare_junit(cmp: Comparison, gate: GateResult, policy: GatePolicy | None = None) -> str:
    """One suite per scenario (and one for the metric means under --max-regression), newly failing cases
    failed, pairs on one side only skipped; user text escaped for a log line (``##[`` too)."""
    from kubectl_testbench import junit

    by_scenario: dict[str, list[CheckPair]] = {}
    for p in cmp.checks:
        by_scenario.setdefault(p.scenario, []).append(p)
    suites: list[junit.Suite] = []
    total = failures = errors = skipped = 0
    for name, pairs in by_scenario.items():
        cases: list[junit.Case] = []
        nf = ne = ns = 0
        for p in pairs:
            attributes = [("classname", t.one_line(name)), ("name", t.one_line(f"{_step_label(p)}: {p.metric}")),
                          ("time", 0)]
            body = t.one_line(f"input: {p.input}")
            outcome = None
            if p.change in (Change.ONLY_IN_BASE, Change.ONLY_IN_CANDIDATE):
                ns += 1
                side = "base" if p.change is Change.ONLY_IN_BASE else "candidate"
                outcome = junit.Outcome("skipped", [("message", f"only in {side}")])
            elif p.change is Change.NEWLY_FAILING and p.candidate is not None and p.candidate.score is None:
                ne += 1
                outcome = junit.Outcome("error", [("message", t.one_line(_pair_line(p))), ("type", "newly-errored")],
                                        body)
            elif p.change is Change.NEWLY_FAILING:
                nf += 1
                outcome = junit.Outcome("failure", [("message", t.one_line(_pair_line(p))),
                                                    ("type", "newly-failing")], body)
            cases.append(junit.Case(attributes, outcome))
        total, failures, errors, skipped = total + len(pairs), failures + nf, errors + ne, skipped + ns
        suites.append(junit.Suite([("name", t.one_line(name)), ("tests", len(pairs)), ("failures", nf),
                                   ("errors", ne), ("skipped", ns), ("time", 0)], cases))
    if policy is not None and policy.max_regression is not None:
        regressed = set(gate.regressed_metrics)
        cases = []
        for m in cmp.metrics:
            attributes = [("classname", "metric means"), ("name", t.one_line(m.metric)), ("time", 0)]
            outcome = None
            if m.metric in regressed:
                message = (f"mean {t.score(m.base_mean)} → {t.score(m.candidate_mean)} ({t.delta(m.delta)}), "
                           f"more than {policy.max_regression:g} down")
                outcome = junit.Outcome("failure", [("message", t.one_line(message)), ("type", "max-regression")])
            cases.append(junit.Case(attributes, outcome))
        total, failures = total + len(cmp.metrics), failures + len(regressed)
        suites.append(junit.Suite([("name", "metric means"), ("tests", len(cmp.metrics)),
                                   ("failures", len(regressed)), ("errors", 0), ("skipped", 0), ("time", 0)], cases))
    return junit.document([("name", "kubectl-testbench compare"), ("tests", total), ("failures", failures),
                           ("errors", errors), ("skipped", skipped)], suites)


CompareFormatter = Callable[[Comparison, GateResult, GatePolicy], str]

COMPARE_FORMATS: dict[str, CompareFormatter] = {
    "table": compare_table,
    "json": compare_json,
    "csv": compare_csv,
    "markdown": compare_markdown,
    "junit": compare_junit,
}
