"""The smaller first-hour messages: a missing kind reads as one (never ``no kind "None"``) on every path that reads
Experiments, and the note that CEL rules were not evaluated comes after the error that blocked them, at the
rule's own field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubectl_testbench.integrations.argocd_app import generate
from kubectl_testbench.render.settings import Flags
from tests.conftest import run_cli
from tests.integrations.test_krm import run_krm
from tests.validate.helpers import VALID

NO_KIND = VALID.replace("kind: Experiment\n", "")
KIND_MISSING = "error[kind/missing] kind: the object has no kind: kubectl rejects it (Object 'Kind' is missing)"


@pytest.mark.parametrize("kind", ["", "kind: null\n", "kind: ~\n", "kind: ''\n"])
@pytest.mark.parametrize("command", [["validate"], ["render"], ["fix", "--diff"],
                                     ["apply", "--dry-run=client", "-n", "x"]])
def test_a_missing_kind_reads_as_missing_everywhere(tmp_path: Path, command: list[str], kind: str) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(VALID.replace("kind: Experiment\n", kind))
    result = run_cli(*command, str(path))
    assert result.exit_code == 1
    where = "2:1" if kind else "1:1"  # the kind key when there is one, else the apiVersion key
    assert f"{path}:{where}: {KIND_MISSING}\n  hint: add kind: Experiment\n" in result.output
    assert "None" not in result.output
    assert "no Experiment found" not in result.output, "the file holds one, without its kind: not a wrong path"


def test_krm_names_the_object_without_the_word_none() -> None:
    item = yaml.safe_load(NO_KIND.replace("kind: Experiment\n", "")) | {"kind": None}
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [item]})
    code, out, err = run_krm(text)
    assert code == 1
    (result,) = [r for r in out["results"] if r["tags"]["rule"] == "kind/missing"]
    assert result["resourceRef"] == {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "",
                                     "name": "weather-eval", "namespace": "agents"}
    assert "None" not in err
    assert "error[kind/missing] (no kind) agents/weather-eval kind: the object has no kind" in err


def test_argocd_generate_names_the_missing_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "exp.yaml").write_text(NO_KIND)
    monkeypatch.chdir(tmp_path)
    app = generate(["."], Flags(namespace="team-a"))
    assert [(d.rule, d.message) for d in app.problems] == [
        ("kind/missing", "the object has no kind: kubectl rejects it (Object 'Kind' is missing)")]


def test_cel_not_evaluated_is_the_servers_one_note_after_the_blocking_error(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(VALID.replace("  agentRef:\n", "  trigger:\n    enabled: \"true\"\n  agentRef:\n", 1))
    result = run_cli("validate", str(path))
    assert result.exit_code == 1
    lines = [line.replace(f"{path}:", "") for line in result.output.splitlines()]
    assert lines[0].startswith('8:14: error[schema/type] spec.trigger.enabled: Invalid value: "true"')
    assert lines[2] == ("1:1: info[cel/not-evaluated] some validation rules were not checked because the object was "
                        "invalid; correct the existing errors to complete validation")


def test_the_note_comes_after_an_error_further_down_too(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: high"))
    result = run_cli("validate", "-o", "json", str(path))
    import json

    found = [(d["rule"], d["line"], d["path"]) for d in json.loads(result.stdout)["diagnostics"]]
    assert found == [("schema/type", 11, "spec.dataset.inline.defaultThreshold"),
                     ("cel/not-evaluated", 1, "")]
