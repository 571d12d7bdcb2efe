"""``results`` output formats: one function per format, from summaries and the gate to text.

table (terminal), json (everything, for jq and dashboards), csv (one row per step × metric, for review
in a spreadsheet), markdown (a pull-request comment), junit (each step × metric a test case, for CI
test reports). Human formats number steps from 1; json and csv carry ``step_index`` from 0, like the
publish phase's ``step_index`` attribute, so rows join with the metrics in Grafana.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from kubectl_testbench.results import text as t
from kubectl_testbench.results.gate import GatePolicy, GateResult, results_gate
from kubectl_testbench.results.summary import Check, Group, Status, Summary

INPUT_WIDTH = 100
DETAILS_WIDTH = 200
NAME_WIDTH = 48


def _run_header(s: Summary) -> list[str]:
    run = s.run
    facts = [f"experiment {run.id or '-'}", f"judge {run.judge_model or '-'}",
             f"default threshold {default_threshold(s)}"]
    tally = s.overall.tally
    return [
        f"Results: {t.one_line(run.source)}",
        t.one_line(" · ".join(facts)),
        f"Checks: {tally.passed} passed, {tally.failed} failed, {tally.errored} errored of {tally.total} "
        f"({t.rate(tally.pass_rate)} pass) · steps: {s.steps.passed} of {s.steps.total} passed"
        f" · mean score {t.score(s.overall.mean_score)}",
    ]


def default_threshold(s: Summary) -> str:
    value = s.run.default_threshold
    return "unset (0.9)" if value is None else t.score(value)


def _group_cells(g: Group) -> list[str]:
    return [str(g.tally.total), str(g.tally.passed), str(g.tally.failed), str(g.tally.errored),
            t.rate(g.tally.pass_rate), t.score(g.mean_score)]


def verdict_line(c: Check) -> str:
    """``score 0.400 < threshold 0.900`` or the reason it errored."""
    if c.status is Status.ERRORED:
        return f"errored: {c.reason}"
    op = ">=" if c.status is Status.PASS else "<"
    return f"score {t.score(c.score)} {op} threshold {t.score(c.threshold)}"


def results_table(summaries: Sequence[Summary], gate: GateResult, policy: GatePolicy | None = None) -> str:
    blocks = []
    for s in summaries:
        out = "\n".join(_run_header(s)) + "\n"
        if s.metrics:
            out += "\n" + t.table(
                ["METRIC", "CHECKS", "PASSED", "FAILED", "ERRORED", "PASS RATE", "MEAN"],
                [[t.clip(g.name, NAME_WIDTH), *_group_cells(g)] for g in s.metrics], right=range(1, 7))
        if s.scenarios:
            out += "\n" + t.table(
                ["SCENARIO", "STEPS", "STEPS PASSED", "CHECKS", "PASSED", "FAILED", "ERRORED", "PASS RATE", "MEAN"],
                [[t.clip(sc.group.name, NAME_WIDTH), str(sc.steps), str(sc.steps_passed), *_group_cells(sc.group)]
                 for sc in s.scenarios], right=range(1, 9))
        failing = s.failing
        if failing:
            out += f"\nNOT PASSING ({len(failing)})\n"
            for c in failing:
                tag = "FAIL " if c.status is Status.FAIL else "ERROR"
                out += (f"{tag} {t.one_line(c.label)}: {t.one_line(verdict_line(c))}\n"
                        f"      input: {t.clip(c.input, INPUT_WIDTH)}\n")
                if c.details is not None:
                    out += f"      details: {t.clip(t.details(c.details), DETAILS_WIDTH)}\n"
        blocks.append(out)
    return "\n".join(blocks)


def _check_json(c: Check) -> dict[str, Any]:
    return {
        "scenario": c.scenario, "scenario_index": c.scenario_index, "step_index": c.step_index,
        "step_id": c.step_id, "input": c.input, "metric": c.metric, "parameters": t.jsonable(c.parameters),
        "threshold": c.threshold, "threshold_source": c.threshold_source, "score": c.score,
        "status": c.status.value, "recorded_result": c.recorded, "reason": c.reason or None,
        "details": t.jsonable(c.details),
    }


def _group_json(g: Group, key: str) -> dict[str, Any]:
    return {key: g.name, "checks": g.tally.total, "passed": g.tally.passed, "failed": g.tally.failed,
            "errored": g.tally.errored, "pass_rate": t.rounded(g.tally.pass_rate),
            "mean_score": t.rounded(g.mean_score), "scored": g.scored}


def gate_json(gate: GateResult, policy: GatePolicy | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"enforced": gate.enforced, "passed": gate.passed, "reasons": list(gate.reasons)}
    if policy is not None:
        doc["policy"] = {"min_pass_rate": policy.min_pass_rate, "max_regression": policy.max_regression,
                         "ignore_errored": policy.ignore_errored}
    return doc


def run_json(s: Summary) -> dict[str, Any]:
    run = s.run
    overall = _group_json(s.overall, "scope")
    del overall["scope"]
    return {
        "source": run.source,
        "experiment": {"id": run.id, "llm_as_a_judge_model": run.judge_model,
                       "default_threshold": run.default_threshold},
        "summary": {**overall, "scenarios": len(run.scenarios),
                    "steps": {"total": s.steps.total, "passed": s.steps.passed, "failed": s.steps.failed,
                              "errored": s.steps.errored, "not_evaluated": s.steps.not_evaluated}},
        "metrics": [_group_json(g, "metric") for g in s.metrics],
        "scenarios": [{**_group_json(sc.group, "scenario"), "index": sc.index, "steps": sc.steps,
                       "steps_passed": sc.steps_passed} for sc in s.scenarios],
        "checks": [_check_json(c) for c in s.checks],
        "warnings": list(s.warnings),
    }


def results_json(summaries: Sequence[Summary], gate: GateResult, policy: GatePolicy | None = None) -> str:
    doc = {"runs": [run_json(s) for s in summaries], "gate": gate_json(gate, policy)}
    return t.json_document(doc)


CSV_COLUMNS = ("run", "scenario", "scenario_index", "step_index", "step_id", "input", "metric", "parameters",
               "threshold", "threshold_source", "score", "status", "recorded_result", "reason", "details")


def results_csv(summaries: Sequence[Summary], gate: GateResult, policy: GatePolicy | None = None) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in summaries:
        for c in s.checks:
            writer.writerow([
                s.run.source, c.scenario, c.scenario_index, c.step_index, c.step_id or "", c.input, c.metric,
                json.dumps(c.parameters, sort_keys=True) if c.parameters else "", t.raw(c.threshold),
                c.threshold_source, t.raw(c.score), c.status.value, c.recorded or "", c.reason, t.details(c.details)])
    return buf.getvalue()


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def results_markdown(summaries: Sequence[Summary], gate: GateResult, policy: GatePolicy | None = None) -> str:
    policy = policy or GatePolicy()
    out: list[str] = []
    for s in summaries:
        own = results_gate([s], policy)
        tally = s.overall.tally
        out.append(f"### {'✅' if own.passed else '❌'} Testbench results: {t.rate(tally.pass_rate)} of "
                   f"{t.plural(tally.total, 'check')} passed")
        out.append("")
        out.append(f"{t.code(s.run.source)} · experiment {t.code(s.run.id or '-')} · judge "
                   f"{t.code(s.run.judge_model or '-')} · default threshold {default_threshold(s)}")
        out.append("")
        out.append(f"**{tally.passed} passed · {tally.failed} failed · {tally.errored} errored** · steps "
                   f"{s.steps.passed}/{s.steps.total} passed · mean score {t.score(s.overall.mean_score)}")
        if s.metrics:
            out += ["", _md_row(["Metric", "Checks", "Passed", "Failed", "Errored", "Pass rate", "Mean score"]),
                    _md_row(["---", *["---:"] * 6])]
            out += [_md_row([t.md(g.name), *_group_cells(g)]) for g in s.metrics]
        if s.scenarios:
            out += ["", f"<details><summary>Scenarios ({len(s.scenarios)})</summary>", "",
                    _md_row(["Scenario", "Steps passed", "Checks", "Passed", "Failed", "Errored", "Pass rate",
                             "Mean score"]),
                    _md_row(["---", *["---:"] * 7])]
            out += [_md_row([t.md(sc.group.name), f"{sc.steps_passed}/{sc.steps}", *_group_cells(sc.group)])
                    for sc in s.scenarios]
            out += ["", "</details>"]
        failing = s.failing
        if failing:
            out += ["", f"#### Not passing ({len(failing)})", "",
                    _md_row(["Scenario", "Step", "Metric", "Status", "Score", "Threshold", "Input", "Details"]),
                    _md_row(["---", "---:", "---", "---", "---:", "---:", "---", "---"])]
            out += [_md_row([t.md(c.scenario), str(c.step_index + 1), t.md(c.metric),
                             c.status.value if not c.reason else f"{c.status.value}: {t.md(c.reason)}",
                             t.score(c.score), t.score(c.threshold), t.md(c.input, INPUT_WIDTH),
                             t.md(t.details(c.details), DETAILS_WIDTH)]) for c in failing]
        out.append("")
    if gate.enforced and not gate.passed:
        out += ["**Gate failed:**", "", *[f"- {t.md(r)}" for r in gate.reasons], ""]
    return "\n".join(out)


def results_junit(summaries: Sequence[Summary], gate: GateResult, policy: GatePolicy | None = None) -> str:
    """One suite per scenario, one case per step and metric; user text escaped for a log line (``##[`` too)."""
    from kubectl_testbench import junit

    suites: list[junit.Suite] = []
    total = failures = errors = 0
    for s in summaries:
        for sc in s.scenarios:
            checks = [c for c in s.checks if c.scenario_index == sc.index]
            name = t.one_line(sc.group.name if len(summaries) == 1 else f"{s.run.source}: {sc.group.name}")
            cases = []
            for c in checks:
                body = f"input: {t.one_line(c.input)}" + (
                    f"\ndetails: {t.one_line(t.details(c.details))}" if c.details is not None else "")
                attributes = [("classname", name), ("name", t.one_line(f"step {c.step_index + 1}: {c.metric}")),
                              ("time", 0)]
                outcome = None
                if c.status is Status.FAIL:
                    outcome = junit.Outcome("failure", [("message", t.one_line(verdict_line(c))),
                                                        ("type", "threshold")], body)
                elif c.status is not Status.PASS:
                    outcome = junit.Outcome("error", [("message", t.one_line(c.reason)), ("type", "errored")], body)
                cases.append(junit.Case(attributes, outcome))
            tally = sc.group.tally
            total, failures, errors = total + tally.total, failures + tally.failed, errors + tally.errored
            suites.append(junit.Suite([("name", name), ("tests", tally.total), ("failures", tally.failed),
                                       ("errors", tally.errored), ("skipped", 0), ("time", 0)], cases,
                                      [("source", t.one_line(s.run.source))]))
    return junit.document([("name", "kubectl-testbench results"), ("tests", total), ("failures", failures),
                           ("errors", errors)], suites)


Formatter = Callable[[Sequence[Summary], GateResult, GatePolicy], str]

RESULTS_FORMATS: dict[str, Formatter] = {
    "table": results_table,
    "json": results_json,
    "csv": results_csv,
    "markdown": results_markdown,
    "junit": results_junit,
}
