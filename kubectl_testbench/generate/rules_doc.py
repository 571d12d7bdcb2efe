"""``docs/rules.md``: the rule table of :mod:`kubectl_testbench.validate.rules` as a page."""

from __future__ import annotations

from kubectl_testbench.validate.rules import RULES


def markdown() -> str:
    """Every rule with its severity and meaning (SARIF's helpUri points at this page)."""
    lines = ["# Rules", "", "Every finding carries one of these stable rule ids. Severities are the defaults: "
             "errors fail `validate`, warnings fail it with `--strict`, information never does. "
             "`kubectl testbench validate --list-rules` prints the same table. Rules marked *fixable* have a "
             "safe fix that `kubectl testbench fix` applies and `validate -o json|sarif` reports.", ""]
    group = ""
    for rule in RULES.values():
        prefix = rule.id.split("/", 1)[0]
        if prefix != group:
            group = prefix
            lines += [f"## {prefix}", ""]
        lines += [f"### {rule.id}", "", f"*{rule.severity.value}* — {rule.summary}", ""]
        if rule.fix:
            lines += [f"*fixable* — {rule.fix}", ""]
    return "\n".join(lines)
