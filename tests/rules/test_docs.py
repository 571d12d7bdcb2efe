"""The rules as users read them: docs/rules.md (and --list-rules, --explain, SARIF's rule metadata) and the
severities that decide the exit code."""

from __future__ import annotations

import re

from kubectl_testbench.rules import RULES, did_you_mean, severity
from kubectl_testbench.rules.docs import explain, markdown
from kubectl_testbench.rules.rule import Severity
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "rules.md"


def test_the_published_rules_page_is_the_table() -> None:
    """python -m kubectl_testbench.crd.artifacts --write regenerates it."""
    assert PAGE.read_text(encoding="utf-8") == markdown()


def test_every_rule_is_explained_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for rule in RULES.values():
        assert rule.explanation.strip() and rule.explanation == rule.explanation.strip(), rule.id
        assert len(rule.explanation) > len(rule.summary), f"{rule.id}: the explanation says more than the summary"
        assert f"\n### {rule.id}\n\n*{rule.severity.value}* — {rule.summary}\n\n{rule.explanation}\n" in page, rule.id
    assert len(re.findall(r"^### ", page, re.MULTILINE)) == len(RULES)


def test_rules_page_groups_by_prefix_and_marks_fixable_rules() -> None:
    page = markdown().split("\n")
    assert page[0] == "# Rules"
    assert all(page.count(f"## {group}") == 1 for group in {rule.group for rule in RULES.values()})
    enum = RULES["schema/enum"]
    at = page.index("### schema/enum")
    assert page[at:at + 9] == ["### schema/enum", "", "*error* — A value is not one of the allowed values.", "",
                               enum.explanation, "", f"*what to do* — {enum.hint}", "", "*fixable* — " + enum.fix]
    at = page.index("### schema/minimum")
    assert page[at:at + 3] == ["### schema/minimum", "", "*error* — A number is below its minimum."]
    assert "*fixable*" not in "\n".join(page[at:page.index("### schema/maximum")])


def test_explain_is_the_entry_as_plain_text() -> None:
    rule = RULES["schema/enum"]
    assert explain(rule).split("\n") == [
        "schema/enum (error)", "A value is not one of the allowed values.", "", rule.explanation, "",
        f"what to do: {rule.hint}", f"safe fix: yes, kubectl testbench fix: {rule.fix}",
        "more: https://github.com/agentic-layer/kubectl-testbench/blob/main/docs/rules.md#schemaenum"]
    assert "safe fix: no" in explain(RULES["schema/minimum"]).split("\n")


def test_severity_decides_what_fails_validate() -> None:
    assert severity("schema/type") is Severity.ERROR
    assert severity("semantic/no-metrics") is Severity.WARNING
    assert severity("input/template") is Severity.INFO
    assert severity("no/such-rule") is Severity.ERROR, "an unknown id must not pass silently"


def test_a_slip_of_a_rule_id_gets_the_closest_one() -> None:
    assert did_you_mean("schema/enun") == ' (did you mean "schema/enum"?)'
    assert did_you_mean("zzzz") == ""


def test_fixes_are_described_by_their_rules() -> None:
    fixable = {rule.id for rule in RULES.values() if rule.fix}
    assert len(fixable) == 19 and {"schema/enum", "schema/null-field", "metadata/managed-fields-set"} <= fixable
    assert {"schema/maximum", "schema/pattern", "semantic/timezone", "yaml/duplicate-key"} <= fixable  # issue 33
    assert RULES["schema/required"].fix == ""
    assert all(rule.fix for rule in RULES.values() if rule.fixer), "a rule with a fixer describes its fix"


def test_every_rule_id_is_one_group_and_one_name() -> None:
    """docs/rules.md groups by the part before the '/', SARIF and the equivalent mutants rely on exactly one."""
    assert all(rule_id.count("/") == 1 and all(rule_id.split("/")) for rule_id in RULES)
