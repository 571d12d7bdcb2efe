"""Each output format, checked for the fields its consumers (terminals, GitHub, SARIF viewers, JUnit) need."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
from kubectl_testbench.validate.report import (
    GITHUB_MAX_PER_SEVERITY,
    github_report,
    json_report,
    junit_report,
    sarif_report,
    text_line,
)

D = Diagnostic("schema/maximum", Severity.ERROR, "Invalid value: 1.5: must be less than or equal to 1",
               "examples/bad.yaml", 12, 7, "spec.dataset.inline.defaultThreshold", "lower it",
               "Experiment ns/bad")
W = Diagnostic("semantic/unknown-metric", Severity.WARNING, 'x: 50%, "a,b"\nsecond line', "examples/bad.yaml", 20, 3,
               "spec.x", "", "Experiment ns/bad")


def test_text_line_is_grep_and_editor_friendly() -> None:
    assert text_line(D) == ("examples/bad.yaml:12:7: error[schema/maximum] spec.dataset.inline.defaultThreshold: "
                            "Invalid value: 1.5: must be less than or equal to 1\n  hint: lower it\n")


def test_json_report_has_every_field_and_the_summary() -> None:
    counts = Counts(files=1, experiments=1, invalid=1, errors=1)
    doc = json.loads(json_report([D], counts))
    assert doc["diagnostics"][0] == {"rule": "schema/maximum", "severity": "error", "message": D.message,
                                     "file": "examples/bad.yaml", "line": 12, "column": 7,
                                     "path": "spec.dataset.inline.defaultThreshold", "hint": "lower it",
                                     "object": "Experiment ns/bad"}
    assert doc["summary"]["invalid"] == 1


def test_github_annotations_are_escaped() -> None:
    out = github_report([W]).splitlines()
    assert out[0] == ("::warning file=examples/bad.yaml,line=20,col=3,title=semantic/unknown-metric::"
                      'spec.x: x: 50%25, "a,b"\\nsecond line')  # a newline in a message stays visible


def test_github_annotations_respect_the_per_step_limit_and_count_the_rest() -> None:
    many = [D] * (GITHUB_MAX_PER_SEVERITY + 5)
    lines = github_report(many).splitlines()
    assert sum(line.startswith("::error ") for line in lines) == GITHUB_MAX_PER_SEVERITY
    assert lines[GITHUB_MAX_PER_SEVERITY - 1].startswith("::error title=kubectl-testbench::6 more errors not annotated")


def test_sarif_is_2_1_0_with_stable_rule_ids_and_relative_paths() -> None:
    doc = json.loads(sarif_report([D, W]))
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(ids) and "schema/maximum" in ids
    result = run["results"][0]
    assert result["ruleId"] == "schema/maximum" and rules[result["ruleIndex"]]["id"] == "schema/maximum"
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "examples/bad.yaml", "uriBaseId": "%SRCROOT%"}
    # the file does not exist here, so the region cannot reach to the end of the line: it is a point
    assert loc["region"] == {"startLine": 12, "startColumn": 7, "endLine": 12, "endColumn": 7}
    assert run["results"][1]["level"] == "warning"


def test_junit_has_one_case_per_experiment_with_failures() -> None:
    checked = [("examples/bad.yaml", "Experiment ns/bad", 1), ("examples/ok.yaml", "Experiment ns/ok", 1)]
    xml = junit_report([D], checked)
    root = ET.fromstring(xml)
    assert root.get("tests") == "2" and root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["examples/bad.yaml", "examples/ok.yaml"]
    cases = [c for s in suites for c in s.findall("testcase")]
    assert [c.get("name") for c in cases] == ["Experiment ns/bad", "Experiment ns/ok"]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("type") == "schema/maximum"
    assert cases[1].find("failure") is None
