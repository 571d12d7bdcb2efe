"""Report formats in CI logs and at scale: no workflow command of either form (``::`` at a line start, ``##[``
anywhere) in any format while the data stays exact, file names that are not UTF-8, and output that grows
linearly with the findings (JSON streamed, SARIF bounded to what GitHub code scanning accepts)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from kubectl_testbench.validate import report
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.report import (
    Reporter,
    SarifResults,
    _SourceLines,
    github_report,
    json_report,
    junit_report,
    sarif_report,
    step_summary,
    text_line,
)
from tests.validate.test_report_formats import diag, junit, sarif

FORGED = "##[error]forged ##[set-output name=x;]y"
NOT_UTF8 = "exps/bad\udcff.yaml"  # the byte 0xff, as os.listdir decodes it (surrogateescape)


def _forged() -> list[Diagnostic]:
    fix = Fix(FixKind.REPLACE, ("spec", "x"), FORGED, f"write {FORGED}", (Edit(1, 2, FORGED, 1, 2, 1, 3, 1, 2),))
    return [diag(file="exps/##[group]x.yaml", path="spec[##[k]]", message=FORGED, hint=FORGED, obj=f"E {FORGED}",
                 fix=fix),
            diag(severity=Severity.WARNING, file="exps/##[group]x.yaml", message="w", obj=f"E {FORGED}")]


def _no_command(text: str, annotations: bool = False) -> None:
    for line in text.splitlines():
        assert "##[" not in line, line
        if not (annotations and line.startswith(("::error ", "::warning ", "::notice "))):
            assert not line.lstrip().startswith("::"), line


def test_text_and_github_write_the_prefix_visibly() -> None:
    found = _forged()
    line = text_line(found[0])
    assert line.startswith("exps/##\\x5bgroup]x.yaml:3:5: error[schema/maximum] spec[##\\x5bk]]: ##\\x5berror]forged")
    out = github_report(found)
    _no_command(out, annotations=True)
    assert out.startswith("::error file=exps/##\\x5bgroup]x.yaml,line=3,col=5,title=schema/maximum::"
                          "spec[##\\x5bk]]: ##\\x5berror]forged ##\\x5bset-output name=x;]y%0Ahint: ##\\x5berror]")
    _no_command(step_summary(found, Counts()))


def test_json_keeps_the_data_and_writes_the_bracket_as_a_unicode_escape() -> None:
    text = json_report(_forged(), Counts())
    _no_command(text)
    assert '"message": "##\\u005berror]forged ##\\u005bset-output name=x;]y"' in text
    (first, _) = json.loads(text)["diagnostics"]
    assert (first["message"], first["file"], first["path"], first["object"]) == (
        FORGED, "exps/##[group]x.yaml", "spec[##[k]]", f"E {FORGED}")
    assert first["fix"]["edits"][0]["text"] == FORGED


def test_sarif_keeps_the_data_and_writes_the_bracket_as_a_unicode_escape() -> None:
    text = sarif_report(_forged())
    _no_command(text)
    (result, _) = sarif(_forged())["runs"][0]["results"]
    assert result["message"]["text"] == f"spec[##[k]]: {FORGED} (hint: {FORGED})"
    location = result["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "exps/%23%23%5Bgroup%5Dx.yaml"
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "spec[##[k]]"
    assert result["fixes"][0]["description"]["text"] == f"write {FORGED}"
    assert result["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == FORGED


def test_junit_keeps_attributes_as_data_and_the_log_as_text() -> None:
    found = _forged()
    text = junit_report(found, [("exps/##[group]x.yaml", f"E {FORGED}", 2)])
    _no_command(text)
    assert 'file="exps/##&#91;group]x.yaml"' in text
    root = junit(found, [("exps/##[group]x.yaml", f"E {FORGED}", 2)])
    case = root.find("testsuite/testcase")
    assert (case.get("file"), case.get("name")) == ("exps/##[group]x.yaml", f"E {FORGED}")
    failure = case.find("failure")
    assert failure.get("message") == FORGED
    assert failure.text.startswith("exps/##\\x5bgroup]x.yaml:3:5: error[schema/maximum]")  # the -o text lines


# --- file names that are not UTF-8 ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_every_format_writes_a_name_that_is_not_utf8(fmt: str, tmp_path: Path) -> None:
    out, summary = io.StringIO(), io.StringIO()
    reporter = Reporter(fmt, out=out, err=io.StringIO(), color=False, summary=summary, root=str(tmp_path))
    reporter.add([diag(file=str(tmp_path / NOT_UTF8))], [("E a", 1)], str(tmp_path / NOT_UTF8))
    reporter.close(Counts(files=1, experiments=1, invalid=1, errors=1))
    text = out.getvalue()
    text.encode("utf-8")  # strict: what the CLI's stdout does
    summary.getvalue().encode("utf-8")
    if fmt == "json":
        assert json.loads(text)["diagnostics"][0]["file"] == str(tmp_path / NOT_UTF8)  # exact, as \udcff
    elif fmt == "sarif":
        location = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "exps/bad%FF.yaml", "uriBaseId": "%SRCROOT%"}
    else:
        assert "exps/bad\\xff.yaml" in text


def test_sarif_outside_the_root_and_fingerprints_take_names_that_are_not_utf8(tmp_path: Path) -> None:
    doc = sarif([diag(file="/elsewhere/bad\udcff.yaml"), diag(file=NOT_UTF8, message="\ud800 lone")], str(tmp_path))
    first, second = doc["runs"][0]["results"]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///elsewhere/bad%FF.yaml"}
    assert second["message"]["text"] == "spec.x: \\ud800 lone"


# --- scale ----------------------------------------------------------------------------------------------------


def test_json_is_written_as_findings_arrive_and_equals_one_dump() -> None:
    out = io.StringIO()
    reporter = Reporter("json", out=out, err=io.StringIO())
    found = [diag(message="Grüße \x1b"), diag(fix=Fix(FixKind.QUOTE, ("spec",), edits=(Edit(0, 1, "x"),))),
             diag(severity=Severity.INFO, path="")]
    reporter.add(found[:2])
    assert json.loads(out.getvalue() + "]}")["diagnostics"][1]["fix"]["kind"] == "quote"  # before the run ends
    reporter.add(found[2:])
    reporter.close(Counts(files=1))
    expected = json.dumps({"diagnostics": [report.as_dict(d) for d in found],
                           "summary": json.loads(out.getvalue())["summary"]}, indent=2) + "\n"
    assert out.getvalue() == expected
    assert reporter.diagnostics == []  # nothing kept


def test_sarif_keeps_the_most_severe_results_in_the_order_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "SARIF_MAX_RESULTS", 3)
    found = [diag(severity=Severity.INFO, line=1), diag(severity=Severity.WARNING, line=2), diag(line=3),
             diag(severity=Severity.WARNING, line=4), diag(line=5)]
    doc = sarif(found)
    run = doc["runs"][0]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"]] == [2, 3, 5]
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["message"]["text"] == (
        "the SARIF report holds 3 of 5 findings, errors first (GitHub code scanning rejects a run with more than 3); "
        "every finding is in -o text or -o json")
    err = io.StringIO()
    reporter = Reporter("sarif", out=io.StringIO(), err=err)
    reporter.add(found)
    reporter.close(Counts(files=1))
    assert err.getvalue().splitlines()[1] == f"warning: {notification['message']['text']}"


def test_sarif_under_the_limit_has_no_notification_and_one_line_per_result() -> None:
    text = sarif_report([diag(line=1), diag(line=2)])
    assert "invocations" not in json.loads(text)["runs"][0]
    lines = text.splitlines()
    results = [line for line in lines if line.startswith('        {"ruleId": ')]
    assert len(results) == 2 and results[0].endswith("},") and results[1].endswith("}")
    assert lines[lines.index(results[1]) + 1] == "      ]"
    assert all("shortDescription" not in line for line in results)  # rule metadata once, in rules[]


def test_sarif_encodes_only_what_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[Diagnostic] = []
    real = report.sarif_result
    monkeypatch.setattr(report, "sarif_result", lambda d, *rest: encoded.append(d) or real(d, *rest))
    results = SarifResults(None, limit=2)
    for line in range(1, 6):
        results.add(diag(line=line))
    assert [d.line for d in encoded] == [1, 2] and results.left_out == 3


def test_source_lines_keep_only_the_last_files(tmp_path: Path) -> None:
    lines = _SourceLines()
    for i in range(10):
        (tmp_path / f"{i}.yaml").write_text(f"line {i}\n")
        assert lines.line(str(tmp_path / f"{i}.yaml"), 1) == f"line {i}"
    assert len(lines._files) == _SourceLines.KEEP


def test_junit_groups_many_experiments_in_linear_time() -> None:
    checked = [(f"f{i % 100}.yaml", f"E {i}", 1) for i in range(40_000)]
    start = time.process_time()
    text = junit_report([diag(file="f1.yaml", obj="E 1")], checked)
    assert time.process_time() - start < 3
    assert text.count("<testcase ") == 40_000
