"""What one rule is: its stable id, default severity and the words that explain it to a person.

This module sits at the bottom of the package (it imports nothing of it): the reader of YAML reports
``yaml/syntax`` as the schema check reports ``schema/type``, and both name their rule by its object.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

RULES_DOC_URI = "https://github.com/agentic-layer/kubectl-testbench/blob/main/docs/rules.md"
"""docs/rules.md on GitHub: SARIF's ``helpUri`` and the LSP's ``codeDescription`` point into it."""


class Severity(StrEnum):
    """How bad a finding is: errors fail validation, warnings fail only with ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Rule(NamedTuple):
    """One rule: everything a user, a report or a tool needs to know about it, in one place.

    A named tuple, not a dataclass: every command imports all the rules, and a frozen dataclass costs a cold
    start about half a millisecond to define (a named tuple a tenth of that); a rule is immutable either way.

    ``check`` and ``fixer`` name, as ``module:function``, the code that reports the rule and the code that
    builds its safe fix, when one function does that for this rule (a test resolves them); generic
    machinery (the schema walk, the YAML reader) is named in the family module's docstring instead.
    """

    id: str
    """Stable: SARIF uploads, CI annotations and ``fix --select`` key on it."""
    severity: Severity
    """The default severity, which decides the exit code of ``validate``."""
    summary: str
    """One line: what the finding means (``--list-rules``, SARIF's short description)."""
    explanation: str
    """A paragraph: what is checked and why it matters (docs/rules.md, ``validate --explain``)."""
    hint: str = ""
    """What to do about a finding, in general (each finding carries its own, more precise hint)."""
    fix: str = ""
    """What ``kubectl testbench fix`` does about it, and when (empty: no safe fix)."""
    check: str = ""
    """``module:function`` that reports it, when one function is the rule's own check."""
    fixer: str = ""
    """``module:function`` that builds its safe fix, when the rule has one of its own."""
    over_limit: bool = False
    """The finding means the input is over a reading limit (not malformed): a flag raises the limit."""

    @property
    def group(self) -> str:
        """The part before the '/': docs/rules.md groups by it, ``fix --select yaml`` selects by it."""
        return self.id.split("/", 1)[0]

    @property
    def doc_url(self) -> str:
        """The rule's entry in docs/rules.md, with the anchor GitHub gives its heading."""
        return doc_url(self.id)


def doc_url(rule_id: str) -> str:
    """The docs/rules.md anchor of a rule id (GitHub drops the '/' from the heading ``### yaml/syntax``)."""
    return f"{RULES_DOC_URI}#{rule_id.replace('/', '')}"
