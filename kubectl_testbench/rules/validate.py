"""validate: what the validator says about its own work on a document."""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

VALIDATE_TOO_MANY_FINDINGS = Rule(
    "validate/too-many-findings", Severity.INFO,
    "A document has more findings than are reported; the rest are counted.",
    "A document with hundreds of findings (a generated file gone wrong, a list pasted in the wrong place) would "
    "bury the first, most useful ones and make reports huge. Past a limit per document the findings are "
    "counted, not reported, and this note says how many were left out.",
    hint="fix the findings shown and validate again",
)
