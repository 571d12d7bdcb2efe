"""Every rule id the code can report is documented in the rule table (and so in docs/rules.md and SARIF)."""

from __future__ import annotations

import re

from kubectl_testbench.validate.rules import RULES
from tests.conftest import ROOT

RULE_LITERAL = re.compile(r'"((?:input|yaml|kind|schema|metadata|cel|semantic|render|validate|krm)/[a-z0-9-]+)"')


def test_every_rule_id_in_the_code_is_in_the_table() -> None:
    used: dict[str, str] = {}
    for path in (ROOT / "kubectl_testbench").rglob("*.py"):
        for rule in RULE_LITERAL.findall(path.read_text()):
            used.setdefault(rule, str(path.relative_to(ROOT)))
    missing = {rule: where for rule, where in used.items() if rule not in RULES}
    assert missing == {}
    assert len(used) >= 80


def test_rule_ids_are_stable_kebab_case_with_a_known_prefix() -> None:
    for rule in RULES:
        assert RULE_LITERAL.fullmatch(f'"{rule}"'), rule
