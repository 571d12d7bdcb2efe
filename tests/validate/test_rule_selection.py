"""``validate --select/--ignore/--extend-select`` and ``-q``: which rules are reported, as ruff selects them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_testbench.rules.selection import Selection
from tests.conftest import EXAMPLES, run_cli

VALID = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
GATEWAY = "  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n"
NO_GATEWAY = VALID.replace(GATEWAY, "")
"""Valid, with one warning: semantic/no-gateway (at spec, line 11)."""
BAD_ZONE = VALID.replace("  env:\n", "  schedule:\n    cron: '0 6 * * *'\n    timezone: Europe/Berlim\n  env:\n")


def rules_of(output: str) -> list[str]:
    return [line.split("[", 1)[1].split("]", 1)[0] for line in output.splitlines() if "[" in line and ": " in line
            and line.split(" ", 1)[1].startswith(("error[", "warning[", "info["))]


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_ignore_drops_a_rule_and_select_keeps_only_its_rules(tmp_path: Path) -> None:
    path = write(tmp_path, NO_GATEWAY)
    assert rules_of(run_cli("validate", path).output) == ["semantic/no-gateway"]
    ignored = run_cli("validate", "--ignore", "semantic/no-gateway", path)
    assert ignored.exit_code == 0 and rules_of(ignored.output) == []
    assert ignored.output.endswith("1 valid, 0 invalid, 0 warnings\n")
    assert rules_of(run_cli("validate", "--select", "schema/", path).output) == []
    assert rules_of(run_cli("validate", "--select", "schema", "--extend-select", "semantic", path).output) == [
        "semantic/no-gateway"]


def test_ignoring_an_error_makes_the_experiment_valid(tmp_path: Path) -> None:
    path = write(tmp_path, BAD_ZONE)
    failing = run_cli("validate", path)
    assert failing.exit_code == 1 and "error[semantic/timezone]" in failing.output
    passing = run_cli("validate", "--ignore", "semantic/timezone", path)
    assert passing.exit_code == 0, passing.output
    assert passing.output == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings\n"


def test_an_unknown_selector_is_a_usage_error_with_a_suggestion(tmp_path: Path) -> None:
    result = run_cli("validate", "--ignore", "semantic/no-gatway", write(tmp_path, VALID))
    assert result.exit_code == 2
    assert result.output == ('error: "semantic/no-gatway" is not a rule id or group (did you mean '
                             '"semantic/no-gateway"?): kubectl testbench validate --list-rules lists them\n')


def test_findings_that_mean_an_object_cannot_be_read_are_always_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "apiVersion: testbench.agentic-layer.ai/v1alpha1\nmetadata:\n  name: x\n")
    result = run_cli("validate", "--ignore", "kind", "--select", "semantic", path)
    assert result.exit_code == 1 and rules_of(result.output) == ["kind/missing"]
    broken = run_cli("validate", "--ignore", "yaml", write(tmp_path, "a: [\n", "broken.yaml"))
    assert broken.exit_code == 1 and rules_of(broken.output) == ["yaml/syntax"]


@pytest.mark.parametrize(("select", "ignore", "extend", "chosen"), [
    ((), (), (), {"schema/enum", "semantic/no-gateway", "yaml/syntax"}),
    (("schema",), (), (), {"schema/enum"}),
    (("schema",), (), ("semantic/no-gateway",), {"schema/enum", "semantic/no-gateway"}),
    (("ALL",), ("yaml/",), (), {"schema/enum", "semantic/no-gateway"}),
    (("schema",), ("schema/enum",), ("schema/enum",), set()),  # ignore wins, as in ruff
])
def test_selection_semantics(select: tuple[str, ...], ignore: tuple[str, ...], extend: tuple[str, ...],
                             chosen: set[str]) -> None:
    selection = Selection.parse(select, ignore, extend)
    assert {r for r in ("schema/enum", "semantic/no-gateway", "yaml/syntax") if selection(r)} == chosen


def test_the_command_line_replaces_select_and_adds_to_ignore() -> None:
    config = Selection.parse(["schema"], ["schema/enum"], ["yaml/syntax"])
    cli = Selection.parse(["semantic"], ["semantic/cron"])
    combined = cli.over(config)
    assert combined == Selection(("semantic",), ("schema/enum", "semantic/cron"), ("yaml/syntax",))


def test_quiet_prints_the_findings_only(tmp_path: Path) -> None:
    path = write(tmp_path, NO_GATEWAY)
    quiet = run_cli("validate", "-q", path)
    assert quiet.exit_code == 0 and quiet.output.startswith(f"{path}:11:1: warning[semantic/no-gateway] ")
    assert "1 file" not in quiet.output
    assert run_cli("validate", "--quiet", write(tmp_path, VALID, "ok.yaml")).output == ""
    as_json = run_cli("validate", "-q", "-o", "json", path)
    assert json.loads(as_json.stdout)["summary"]["warnings"] == 1 and as_json.stderr == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("validate", "-q", str(empty)).output == ""
    assert "error:" in run_cli("validate", "-q", "--fail-if-empty", str(empty)).output
