"""The rule table as users read it: docs/rules.md (and --list-rules, SARIF's rule metadata) and the severities
that decide the exit code."""

from __future__ import annotations

from kubectl_testbench.generate.rules_doc import markdown
from kubectl_testbench.validate.diagnostics import Severity
from kubectl_testbench.validate.rules import FIXES, RULES, severity
from tests.conftest import ROOT


def test_the_published_rules_page_is_the_table() -> None:
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == markdown()


def test_rules_page_groups_by_prefix_and_marks_fixable_rules() -> None:
    page = markdown().split("\n")
    assert page[0] == "# Rules"
    assert page.count("## schema") == 1 and page.count("## input") == 1
    at = page.index("### schema/enum")
    assert page[at:at + 5] == ["### schema/enum", "", "*error* — A value is not one of the allowed values.", "",
                               "*fixable* — " + FIXES["schema/enum"]]
    at = page.index("### schema/minimum")
    assert page[at:at + 4] == ["### schema/minimum", "", "*error* — A number is below its minimum.", ""]
    assert page[at + 4] == "### schema/maximum"


def test_severity_decides_what_fails_validate() -> None:
    assert severity("schema/type") is Severity.ERROR
    assert severity("semantic/no-metrics") is Severity.WARNING
    assert severity("input/template") is Severity.INFO
    assert severity("no/such-rule") is Severity.ERROR, "an unknown id must not pass silently"


def test_every_fix_belongs_to_a_rule() -> None:
    assert set(FIXES) <= set(RULES)
    assert all(RULES[rule].fix == text for rule, text in FIXES.items())
    assert RULES["schema/required"].fix == ""


def test_every_rule_id_is_one_group_and_one_name() -> None:
    """docs/rules.md groups by the part before the '/', SARIF and the equivalent mutants rely on exactly one."""
    assert all(rule_id.count("/") == 1 and all(rule_id.split("/")) for rule_id in RULES)
