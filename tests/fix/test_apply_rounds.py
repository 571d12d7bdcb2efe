"""The rounds of ``fix_text``: which reading each round makes (validate's own first, every finding when validate's
cap cut it short), what the report of the result is, and when the rounds stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.fix import apply
from kubectl_testbench.fix.apply import FixOptions, fix_text
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.engine import FileResult, Options, validate_text
from tests.validate.helpers import VALID

TRIGGER = "  trigger:\n    enabled: true\n    concurrencyPolicy: forbid\n"  # schema/enum, fixed to Forbid
ENUM = VALID + TRIGGER


def _labels(count: int) -> str:
    """An Experiment with ``count`` label keys that have no fix, all listed before the enum's fixable finding."""
    labels = "  labels:\n" + "".join(f"    bad key {i}: x\n" for i in range(count))
    return ENUM.replace("  namespace: agents\n", "  namespace: agents\n" + labels)


def test_fixes_beyond_the_200_findings_a_report_shows_are_applied() -> None:
    text = _labels(201)
    report = validate_text(text, "t.yaml")
    assert "validate/too-many-findings" in [d.rule for d in report.diagnostics]
    assert "schema/enum" not in [d.rule for d in report.diagnostics], "the cap hides the fixable finding"
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert [d.rule for d in outcome.applied] == ["schema/enum"]
    assert outcome.after == text.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")


def test_a_report_cut_short_by_the_cap_still_fixes_every_finding_and_reports_with_the_cap() -> None:
    text = _labels(2)
    capped = FixOptions(validate=Options(limits=Limits(max_findings=1)))
    outcome = fix_text(text, "t.yaml", capped)
    assert [(d.rule, d.file) for d in outcome.applied] == [("schema/enum", "t.yaml")]
    assert outcome.after == text.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")
    assert [(d.rule, d.message[:20]) for d in outcome.result.diagnostics] == [
        ("validate/too-many-findings", "1 more finding (1 er"), ("metadata/labels", "Invalid value: \"bad ")]
    clean = fix_text(outcome.after, "t.yaml", capped)  # nothing left to fix: the first reading is the report
    assert clean.applied == [] and clean.result.diagnostics == outcome.result.diagnostics


NO_GATEWAY = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")


def _count_readings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the text of every validation ``fix_text`` makes."""
    real = validate_text
    readings: list[str] = []

    def counting(text: str, *args: Any, **kwargs: Any) -> FileResult:
        readings.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(apply, "validate_text", counting)
    return readings


@pytest.mark.parametrize("text", [VALID, NO_GATEWAY, VALID.replace("name: weather-eval", "name: Weather_Eval")])
def test_a_file_without_a_fix_to_apply_is_read_once_and_reported_as_validate_reports_it(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    readings = _count_readings(monkeypatch)
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert readings == [text]
    assert outcome.result.diagnostics == validate_text(text, "t.yaml").diagnostics
    assert (outcome.before, outcome.after, outcome.applied, outcome.notes) == (text, text, [], [])


def test_a_fixed_file_is_reported_as_the_fixed_text_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = _count_readings(monkeypatch)
    outcome = fix_text(ENUM, "t.yaml", FixOptions())
    fixed = ENUM.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")
    assert outcome.after == fixed and [d.rule for d in outcome.applied] == ["schema/enum"]
    assert readings[0] == ENUM and readings[-1] == fixed and ENUM not in readings[1:]
    assert outcome.result.diagnostics == [] and outcome.result.counts.valid == 1


def test_every_reading_asks_whether_the_defaults_name_a_gateway() -> None:
    """``gateway_default`` silences semantic/no-gateway in a clean file's report, a fixed file's report and the
    report of a file left alone because its fixes overlap."""
    assert [d.rule for d in fix_text(NO_GATEWAY, "t.yaml", FixOptions()).result.diagnostics] == ["semantic/no-gateway"]
    assert fix_text(NO_GATEWAY, "t.yaml", FixOptions(), gateway_default=lambda: True).result.diagnostics == []
    fixed = fix_text(NO_GATEWAY + TRIGGER, "t.yaml", FixOptions(), gateway_default=lambda: True)
    assert fixed.applied and fixed.result.diagnostics == []


def test_an_input_without_documents_is_no_error_when_a_directory_scan_found_it() -> None:
    assert [d.rule for d in fix_text("", "t.yaml", FixOptions()).result.diagnostics] == ["input/empty"]
    assert fix_text("", "t.yaml", FixOptions(), scanned=True).result.diagnostics == []
    migrate = FixOptions(migrate=True)  # with --migrate the result is read again: as scanned too
    assert [d.rule for d in fix_text("# x\n", "t.yaml", migrate).result.diagnostics] == ["input/empty"]
    assert fix_text("# x\n", "t.yaml", migrate, scanned=True).result.diagnostics == []


def test_migrate_counts_the_fields_it_moved_and_names_them_in_notes() -> None:
    text = (Path(__file__).parent / "migrate" / "older-inline.yaml").read_text()
    outcome = fix_text(text, "m.yaml", FixOptions(migrate=True))
    assert outcome.migrated == 4
    assert [str(n).split(": ", 1)[1].split(" ")[0] for n in outcome.notes] == [
        "migrated", "wrote", "migrated", "migrated", "commented"]
    assert fix_text(text, "m.yaml", FixOptions()).migrated == 0


def _clashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Add to every reading a fix whose edit overlaps the schema/enum fix's."""
    real = validate_text

    def clashing(*args: Any, **kwargs: Any) -> FileResult:
        result = real(*args, **kwargs)
        enums = [d for d in result.diagnostics if d.rule == "schema/enum" and d.fix and d.fix.edits]
        if enums:
            edit = enums[0].fix.edits[0]  # type: ignore[union-attr]
            other = Fix(FixKind.REPLACE, ("spec", "trigger"), None, "x", (Edit(edit.start - 3, edit.end, "zzz"),))
            result.diagnostics.append(Diagnostic("schema/type", Severity.ERROR, "m", "t.yaml", 1, 1, "spec.trigger",
                                                 fix=other))
        return result

    monkeypatch.setattr(apply, "validate_text", clashing)


def test_a_file_whose_fixes_overlap_is_left_as_it_is_and_reported_as_validate_reports_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _clashing(monkeypatch)
    text = NO_GATEWAY + TRIGGER
    capped = FixOptions(validate=Options(limits=Limits(max_findings=2)))
    outcome = fix_text(text, "t.yaml", capped)
    assert (outcome.path, outcome.before, outcome.after, outcome.applied, outcome.migrated) == (
        "t.yaml", text, text, [], 0)
    assert [(d.rule, d.file) for d in outcome.result.diagnostics] == [
        ("validate/too-many-findings", "t.yaml"), ("semantic/no-gateway", "t.yaml"), ("schema/enum", "t.yaml"),
        ("schema/type", "t.yaml")]
    assert outcome.result.path == "t.yaml" and not outcome.changed
    silenced = fix_text(text, "t.yaml", FixOptions(), gateway_default=lambda: True)
    assert [d.rule for d in silenced.result.diagnostics] == ["schema/enum", "cel/not-evaluated", "schema/type"]
    migrated = fix_text(text, "t.yaml", FixOptions(migrate=True))
    assert migrated.migrated == 0 and migrated.after == text


def test_a_refused_fix_is_noted_with_its_file_line_and_field_or_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(apply, "_reads_back", lambda text, new, applied, options: False)
    outcome = fix_text(ENUM, "t.yaml", FixOptions())
    assert outcome.after == ENUM and outcome.applied == []
    assert [str(n) for n in outcome.notes] == [
        "t.yaml:26: the fix for schema/enum at spec.trigger.concurrencyPolicy did not read back as promised "
        "(meaning or comments changed): not applied"]
    separator = fix_text("--- a: 1\n", "s.yaml", FixOptions())
    assert [(n.file, n.line, n.message[:49]) for n in separator.notes] == [
        ("s.yaml", 1, "the fix for yaml/document-separator at line 1 did")]


def test_rounds_stop_when_a_fix_leads_back_to_a_text_seen_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixes that go round in circles (a -> b -> c -> b) are applied until the text repeats, not ten times."""
    step = {"a": "b", "b": "c", "c": "b"}

    def reading(text: str, path: str, *args: Any, **kwargs: Any) -> FileResult:
        result = FileResult(path)
        fix = Fix(FixKind.REPLACE, ("k",), step[text[0]], "x", (Edit(0, 1, step[text[0]]),))
        result.diagnostics.append(Diagnostic("schema/enum", Severity.ERROR, text[0], path, 1, 1, "k", fix=fix))
        return result

    monkeypatch.setattr(apply, "validate_text", reading)
    monkeypatch.setattr(apply, "_reads_back", lambda text, new, applied, options: True)
    outcome = fix_text("a\n", "t.yaml", FixOptions())
    assert outcome.after == "c\n"
    assert [d.message for d in outcome.applied] == ["a", "b"]
