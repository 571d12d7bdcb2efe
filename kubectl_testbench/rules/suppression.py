"""suppression: the ``# testbench: ignore[RULE]`` comments themselves, checked as ruff checks its ``# noqa``.

Reported by ``validate/suppress.py`` after a file's findings are filtered (docs/config.md has the syntax).
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

SUPPRESSION_UNUSED = Rule(
    "suppression/unused", Severity.WARNING, "A suppression comment that suppressed nothing.",
    "A '# testbench: ignore[RULE]' comment on a line (or the line below it) or an 'ignore-document[RULE]' "
    "comment at the top of a document, where RULE reported nothing. The finding it was written for is fixed, "
    "moved, or was never there: a stale suppression would silently hide the next real finding. A rule that "
    "was not selected for this run is not judged.",
    hint="remove the rule from the comment (or the comment)",
)
SUPPRESSION_UNKNOWN_RULE = Rule(
    "suppression/unknown-rule", Severity.WARNING, "A suppression comment names no rule or group of rules.",
    "Each name in '# testbench: ignore[...]' must be a registered rule id (semantic/no-gateway) or a group "
    "(semantic/, semantic). A misspelt name suppresses nothing, so the finding it meant stays reported "
    "next to this one.",
    hint="use an id from kubectl testbench validate --list-rules",
)
SUPPRESSION_INVALID = Rule(
    "suppression/invalid", Severity.WARNING, "A '# testbench:' comment that is no suppression this tool reads.",
    "The comments read are '# testbench: ignore[RULE, ...]' (this line, or the next one when the comment is "
    "alone on its line) and '# testbench: ignore-document[RULE, ...]' in the comments before a document's "
    "first content line. A comment without the rule list, with a list that names nothing, or an "
    "ignore-document below the document's first content suppresses nothing.",
    hint="write # testbench: ignore[RULE] or # testbench: ignore-document[RULE] (docs/config.md)",
)
