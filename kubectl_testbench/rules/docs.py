"""The rules as people read them: docs/rules.md and ``kubectl testbench validate --explain RULE``."""

from __future__ import annotations

from kubectl_testbench.rules import RULES
from kubectl_testbench.rules.rule import Rule


def markdown() -> str:
    """docs/rules.md: every rule with its severity, meaning and safe fix (SARIF's helpUri points here)."""
    lines = ["# Rules", "", "Every finding carries one of these stable rule ids. Severities are the defaults: "
             "errors fail `validate`, warnings fail it with `--strict`, information never does. "
             "`kubectl testbench validate --list-rules` prints the same table, and "
             "`kubectl testbench validate --explain RULE` one rule's entry. Rules marked *fixable* have a "
             "safe fix that `kubectl testbench fix` applies and `validate -o json|sarif` reports.", ""]
    group = ""
    for rule in RULES.values():
        if rule.group != group:
            group = rule.group
            lines += [f"## {group}", ""]
        lines += [f"### {rule.id}", "", f"*{rule.severity.value}* — {rule.summary}", "", rule.explanation, ""]
        if rule.hint:
            lines += [f"*what to do* — {rule.hint}", ""]
        if rule.fix:
            lines += [f"*fixable* — {rule.fix}", ""]
    return "\n".join(lines)


def explain(rule: Rule) -> str:
    """``validate --explain RULE``: the rule's entry of docs/rules.md, as plain text for a terminal."""
    lines = [f"{rule.id} ({rule.severity.value})", rule.summary, "", rule.explanation, ""]
    if rule.hint:
        lines.append(f"what to do: {rule.hint}")
    lines.append(f"safe fix: yes, kubectl testbench fix: {rule.fix}" if rule.fix else "safe fix: no")
    lines.append(f"more: {rule.doc_url}")
    return "\n".join(lines)
