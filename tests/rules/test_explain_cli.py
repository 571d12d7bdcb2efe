"""``kubectl testbench validate --explain RULE``: one rule's entry, or a usage error that suggests the closest id."""

from __future__ import annotations

from kubectl_testbench.rules import RULES
from kubectl_testbench.rules.docs import explain
from tests.conftest import run_cli, run_process


def test_explain_prints_the_rule_and_exits_0_without_files() -> None:
    result = run_cli("validate", "--explain", "semantic/env-reference")
    rule = RULES["semantic/env-reference"]
    assert (result.exit_code, result.output) == (0, explain(rule) + "\n")
    lines = result.output.split("\n")
    assert lines[0] == "semantic/env-reference (error)" and lines[1] == rule.summary
    assert rule.explanation in lines and f"what to do: {rule.hint}" in lines and "safe fix: no" in lines


def test_explain_says_what_the_safe_fix_does() -> None:
    result = run_cli("validate", "--explain", "schema/enum")
    assert result.exit_code == 0
    assert f"safe fix: yes, kubectl testbench fix: {RULES['schema/enum'].fix}" in result.output.split("\n")


def test_explain_ignores_the_paths_it_is_given() -> None:
    result = run_cli("validate", "--explain", "input/template", "no-such-file.yaml")
    assert result.exit_code == 0 and result.output.startswith("input/template (info)\n")


def test_an_unknown_rule_is_one_line_with_the_closest_id_and_exit_2() -> None:
    proc = run_process("validate", "--explain", "semantic/env-refrence")
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == ('error: "semantic/env-refrence" is not a rule id (did you mean '
                                    '"semantic/env-reference"?): kubectl testbench validate --list-rules lists them\n')


def test_an_unknown_rule_far_from_any_id_gets_no_suggestion() -> None:
    result = run_cli("validate", "--explain", "zzzz")
    assert result.exit_code == 2
    assert result.output == ('error: "zzzz" is not a rule id: kubectl testbench validate --list-rules lists them\n')


def test_an_unknown_rule_is_shown_with_its_control_characters_escaped() -> None:
    result = run_cli("validate", "--explain", "a\x1b[31mb")
    assert result.exit_code == 2 and "\x1b" not in result.output and result.output.count("\n") == 1
