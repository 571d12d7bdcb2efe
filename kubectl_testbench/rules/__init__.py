"""Every rule the validator can report: one :class:`~kubectl_testbench.rules.rule.Rule` object per rule.

A rule is a unit: its id, default severity, summary, explanation, hint and safe fix are written once, in the
module of its family (the part of the id before the '/'), and code names it by its object
(``SCHEMA_TYPE.id``), never by a string. Everything that lists rules is generated from :data:`RULES`:
``validate --list-rules`` and ``--explain``, docs/rules.md, SARIF's rule metadata, the LSP's links, the
reading limits the KRM function and Argo CD's plugin tell apart from malformed input.

The package sits at the bottom of the layers (it imports nothing else of kubectl_testbench), so that the
YAML reader can name its rules as the schema check does.
"""

from __future__ import annotations

from kubectl_testbench.rules import (
    argocd,
    cel,
    dataset,
    input,
    kind,
    krm,
    metadata,
    render,
    schema,
    semantic,
    suppression,
    validate,
    yaml,
)
from kubectl_testbench.rules.rule import Rule, Severity

FAMILIES = (input, yaml, validate, kind, schema, metadata, krm, argocd, render, cel, semantic,
            suppression, dataset)
"""The family modules in the order rules are listed (docs/rules.md, ``--list-rules``)."""

RULES: dict[str, Rule] = {rule.id: rule for family in FAMILIES
                          for rule in vars(family).values() if isinstance(rule, Rule)}
"""Every rule by id, in the order of :data:`FAMILIES` and, within a family, as its module defines them."""

LIMIT_RULES = frozenset(rule.id for rule in RULES.values() if rule.over_limit)
"""Findings that mean the input is over a reading limit (not malformed): each limit has a flag that raises it."""


def severity(rule_id: str) -> Severity:
    """The default severity of a rule id (unknown ids are errors: an unknown id must not pass silently)."""
    rule = RULES.get(rule_id)
    return rule.severity if rule else Severity.ERROR


def did_you_mean(text: str) -> str:
    """`` (did you mean "schema/enum"?)`` for the rule id ``text`` is most likely a slip of, or "" when none is
    close: what ``fix --select`` and ``validate --explain`` add to their error about an unknown rule id."""
    import difflib

    close = difflib.get_close_matches(text, sorted(RULES), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""
