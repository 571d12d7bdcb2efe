"""The rounds of ``fix_text``: which reading each round makes (validate's own first, every finding when validate's
cap cut it short), what the report of the result is, and when the rounds stop."""

from __future__ import annotations

from kubectl_testbench.fix.apply import FixOptions, fix_text
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.validate.engine import Options, validate_text
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
    assert [d.rule for d in outcome.applied] == ["schema/enum"]
    assert outcome.after == text.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")
    assert [(d.rule, d.message[:20]) for d in outcome.result.diagnostics] == [
        ("validate/too-many-findings", "1 more finding (1 er"), ("metadata/labels", "Invalid value: \"bad ")]
