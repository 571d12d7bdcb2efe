"""Exit codes of ``validate`` (docs/validation.md "Exit codes", issue 33): a file that is not valid YAML is invalid
input (1), as for kubeconform and kubectl-validate; 2 is for a path that cannot be opened and for usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.validate.helpers import VALID

MALFORMED = {
    "syntax": VALID.replace("  agentRef:\n", "  agentRef: [\n"),
    "unterminated-quote": VALID.replace("name: weather-eval", 'name: "weather-eval'),
    "tab": VALID.replace("  agentRef:\n", "\tagentRef:\n"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_file_that_is_not_yaml_is_invalid_input(tmp_path: Path, case: str) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(MALFORMED[case])
    result = run_cli("validate", str(path))
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1] == "1 file, 0 experiments: 0 valid, 0 invalid, 0 warnings (1 malformed)"


def test_binary_input_is_malformed_too(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_bytes(b"\x00\x01\x02apiVersion")
    result = run_cli("validate", str(path))
    assert result.exit_code == 1 and result.output.rstrip().endswith("(1 malformed)")


def test_a_path_that_cannot_be_opened_is_exit_2_and_wins(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(MALFORMED["syntax"])
    result = run_cli("validate", str(broken), str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].endswith("(1 malformed, 1 unreadable)")


def test_json_report_counts_malformed_and_unreadable_apart(tmp_path: Path) -> None:
    import json

    broken = tmp_path / "broken.yaml"
    broken.write_text(MALFORMED["syntax"])
    result = run_cli("validate", "-o", "json", str(broken))
    summary = json.loads(result.stdout)["summary"]
    assert (summary["malformed"], summary["unreadable"], result.exit_code) == (1, 0, 1)


def test_render_of_a_malformed_file_renders_nothing_and_exits_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(MALFORMED["syntax"])
    result = run_cli("render", str(broken))
    assert result.exit_code == 1 and result.stdout == ""
