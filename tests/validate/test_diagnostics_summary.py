"""The finding model as reporters read it: locations, the order findings are listed in, the summary line."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity


def diag(rule: str = "schema/type", file: str = "a.yaml", line: int = 0, col: int = 0,
         follows: tuple[int, int] | None = None) -> Diagnostic:
    return Diagnostic(rule, Severity.ERROR, "m", file, line, col, follows=follows)


def test_location_is_file_line_col_or_just_the_file() -> None:
    assert diag(line=3, col=7).location == "a.yaml:3:7"
    assert diag(line=0, col=7).location == "a.yaml"


def test_findings_sort_by_file_line_column_then_rule_and_notes_follow_their_anchor() -> None:
    note = diag("cel/not-evaluated", line=2, col=1, follows=(5, 3))
    findings = [diag(file="b.yaml", line=1, col=1), diag("b/rule", line=5, col=3), note,
                diag("a/rule", line=5, col=3), diag(line=5, col=4), diag(line=4, col=9), diag("z/rule", line=5, col=3)]
    ordered = sorted(findings, key=Diagnostic.sort_key)
    assert [(d.file, d.line, d.col, d.rule) for d in ordered] == [
        ("a.yaml", 4, 9, "schema/type"), ("a.yaml", 5, 3, "a/rule"), ("a.yaml", 5, 3, "b/rule"),
        ("a.yaml", 5, 3, "z/rule"), ("a.yaml", 2, 1, "cel/not-evaluated"), ("a.yaml", 5, 4, "schema/type"),
        ("b.yaml", 1, 1, "schema/type")]


def test_counts_add_every_field() -> None:
    total = Counts(1, 2, 3, 4, 5, 6, 7, 8)
    total.add(Counts(10, 20, 30, 40, 50, 60, 70, 80))
    assert total == Counts(11, 22, 33, 44, 55, 66, 77, 88)


@pytest.mark.parametrize(("counts", "line"), [
    (Counts(), "0 files, 0 experiments: 0 valid, 0 invalid, 0 warnings"),
    (Counts(files=1, experiments=1, valid=1, warnings=1), "1 file, 1 experiment: 1 valid, 0 invalid, 1 warning"),
    (Counts(files=2, experiments=3, valid=1, invalid=2, warnings=2, errors=5),
     "2 files, 3 experiments: 1 valid, 2 invalid, 2 warnings"),
    (Counts(files=3, experiments=1, valid=1, skipped=1), "3 files, 1 experiment: 1 valid, 0 invalid, 0 warnings "
     "(1 other document skipped)"),
    (Counts(files=3, skipped=2, unreadable=1), "3 files, 0 experiments: 0 valid, 0 invalid, 0 warnings "
     "(2 other documents skipped, 1 unreadable)"),
    (Counts(files=2, unreadable=2), "2 files, 0 experiments: 0 valid, 0 invalid, 0 warnings (2 unreadable)"),
])
def test_summary_line(counts: Counts, line: str) -> None:
    assert counts.summary() == line


def test_severities_and_fix_kinds_are_the_words_reports_carry() -> None:
    from kubectl_testbench.validate.diagnostics import FixKind

    assert [s.value for s in Severity] == ["error", "warning", "info"]
    assert [k.value for k in FixKind] == ["quote", "replace", "rename-key", "delete", "delete-earlier", "insert",
                                          "split-separator", "reindent"]
