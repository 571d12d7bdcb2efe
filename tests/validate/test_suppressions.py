"""``# testbench: ignore[RULE]`` and ``# testbench: ignore-document[RULE]``: what they suppress, and the findings
about the comments themselves (suppression/unused, suppression/unknown-rule, suppression/invalid)."""

from __future__ import annotations

import json
from pathlib import Path

from kubectl_testbench.rules.selection import Selection
from kubectl_testbench.validate.engine import DEFAULT_OPTIONS, Options, validate_text
from tests.conftest import run_cli
from tests.validate.test_rule_selection import BAD_ZONE, NO_GATEWAY, VALID

ZONE_LINE = "    timezone: Europe/Berlim\n"


def found(text: str, options: Options = DEFAULT_OPTIONS) -> list[tuple[str, int, int]]:
    return [(d.rule, d.line, d.col) for d in validate_text(text, "exp.yaml", options).diagnostics]


def test_a_comment_after_content_suppresses_its_rule_on_that_line_only() -> None:
    assert found(BAD_ZONE) == [("semantic/timezone", 20, 15)]
    text = BAD_ZONE.replace(ZONE_LINE, ZONE_LINE.rstrip() + "  # testbench: ignore[semantic/timezone]\n")
    result = validate_text(text, "exp.yaml")
    assert result.diagnostics == [] and result.counts.valid == 1 and result.counts.errors == 0
    cron = "    cron: '0 6 * * *'"
    other_line = BAD_ZONE.replace(cron + "\n", cron + "  # testbench: ignore[semantic/timezone]\n")
    assert found(other_line) == [("suppression/unused", 19, 24), ("semantic/timezone", 20, 15)]


def test_a_comment_alone_on_its_line_suppresses_on_the_next_content_line() -> None:
    text = BAD_ZONE.replace(ZONE_LINE, "    # testbench: ignore[semantic/]\n\n" + ZONE_LINE)
    assert found(text) == []


def test_ignore_document_covers_its_document_and_no_other() -> None:
    header = "# testbench: ignore-document[semantic/no-gateway, semantic/timezone]\n"
    second = NO_GATEWAY.replace("weather-agent-smoke", "second")
    text = header + NO_GATEWAY.replace("  env:\n", "  schedule:\n    cron: '0 6 * * *'\n    timezone: Europe/Berlim\n"
                                       "  env:\n") + "---\n" + second
    lines_before_second = (header + NO_GATEWAY).count("\n") + 3 + 1
    assert found(text) == [("semantic/no-gateway", lines_before_second + 11, 1)]


def test_ignore_document_after_the_first_content_line_is_invalid() -> None:
    text = VALID.replace("kind: Experiment\n", "kind: Experiment\n# testbench: ignore-document[semantic]\n")
    assert found(text) == [("suppression/invalid", 6, 1)]


def test_unused_unknown_and_malformed_suppressions_are_located_findings() -> None:
    text = VALID.replace("  name: weather-agent-smoke\n",
                         "  name: weather-agent-smoke  # testbench: ignore[semantic/no-gatway, schema/enum]\n"
                         "  # testbench: ignore\n")
    result = validate_text(text, "exp.yaml")
    assert [(d.rule, d.line, d.col, d.severity.value) for d in result.diagnostics] == [
        ("suppression/unknown-rule", 7, 30, "warning"),
        ("suppression/unused", 7, 30, "warning"),
        ("suppression/invalid", 8, 3, "warning"),
    ]
    assert result.diagnostics[0].message == ('"semantic/no-gatway" is not a rule id or group (did you mean '
                                             '"semantic/no-gateway"?): it suppresses nothing')
    assert result.diagnostics[1].message == "unused suppression of schema/enum: no such finding on line 7"
    assert result.counts.valid == 1 and result.counts.warnings == 3


def test_a_suppression_of_a_rule_not_selected_is_not_judged_unused() -> None:
    name = "  name: weather-agent-smoke"
    text = VALID.replace(name + "\n", name + "  # testbench: ignore[schema/enum]\n")
    assert found(text, Options(rules=Selection.parse(["semantic"]))) == []
    assert found(text, Options(rules=Selection.parse(ignore=["suppression/unused"]))) == []


def test_json_has_no_comments_to_read() -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                       "data": {"note": "a # testbench: ignore"}})
    assert found(text) == []


def test_validate_exits_0_when_the_only_error_is_suppressed(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(BAD_ZONE.replace(ZONE_LINE, ZONE_LINE.rstrip() + "  # testbench: ignore[semantic/timezone]\n"))
    result = run_cli("validate", str(path))
    assert result.exit_code == 0 and result.output == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings\n"


def test_fix_leaves_a_suppressed_finding_alone(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    text = VALID + "status:  # testbench: ignore[semantic/status-ignored]\n  conditions: []\n"
    path.write_text(text)
    result = run_cli("fix", str(path))
    assert result.exit_code == 0, result.output
    assert path.read_text() == text
    path.write_text(VALID + "status:\n  conditions: []\n")
    assert run_cli("fix", str(path)).exit_code == 0 and path.read_text() == VALID


def test_strict_fails_on_an_unused_suppression(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(VALID.replace("  name: weather-agent-smoke\n",
                                  "  name: weather-agent-smoke  # testbench: ignore[schema/enum]\n"))
    assert run_cli("validate", str(path)).exit_code == 0
    strict = run_cli("validate", "--strict", str(path))
    assert strict.exit_code == 1 and "warning[suppression/unused]" in strict.output


def test_ignore_document_above_a_leading_separator_heads_the_document_below_it() -> None:
    text = "# testbench: ignore-document[semantic/no-gateway]\n---\n" + NO_GATEWAY + "---\n" + NO_GATEWAY.replace(
        "weather-agent-smoke", "second")
    second_spec = 2 + NO_GATEWAY.count("\n") + 1 + 11
    assert found(text) == [("semantic/no-gateway", second_spec, 1)]
