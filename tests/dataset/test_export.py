"""``dataset export``: the inline dataset's experiment.json, byte for byte the rendered ConfigMap's, chosen
among the inputs' Experiments, written atomically and never over a file that changed meanwhile."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.dataset import export
from tests.conftest import EXAMPLES, run_cli, run_process

EXPERIMENTS = EXAMPLES / "experiments"
WEATHER = EXPERIMENTS / "weather-inline.yaml"


def _configmap_data(path: Path, tmp_path: Path) -> list[str]:
    """Every rendered dataset ConfigMap's experiment.json."""
    out = tmp_path / "rendered"
    done = run_process("render", str(path), "--output-dir", str(out))
    assert done.returncode == 0, done.stderr.decode()
    return sorted(doc["data"]["experiment.json"] for file in sorted(out.rglob("*.yaml"))
                  for doc in yaml.safe_load_all(file.read_text(encoding="utf-8"))
                  if isinstance(doc, dict) and doc.get("kind") == "ConfigMap"
                  and "experiment.json" in doc.get("data", {}))


def test_exported_bytes_are_the_rendered_configmaps(tmp_path: Path) -> None:
    rendered = _configmap_data(EXPERIMENTS, tmp_path)
    exported = []
    for name in ("weather-agent-smoke", "support-agent-refunds"):
        done = run_process("dataset", "export", str(EXPERIMENTS), "--experiment", name)
        assert done.returncode == 0, done.stderr.decode()
        exported.append(done.stdout.decode("utf-8"))
    assert len(rendered) == 2
    assert sorted(exported) == rendered


def test_a_single_inline_experiment_needs_no_name_and_namespace_slash_name_is_accepted() -> None:
    alone = run_process("dataset", "export", str(WEATHER))
    named = run_process("dataset", "export", str(EXPERIMENTS), "--experiment", "testkube/weather-agent-smoke")
    assert alone.returncode == named.returncode == 0
    assert alone.stdout == named.stdout and alone.stdout.startswith(b'{\n  "llm_as_a_judge_model": ')


@pytest.mark.parametrize(("args", "code", "message"), [
    ((str(EXPERIMENTS),), 2, "error: 2 Experiments have an inline dataset: choose one with --experiment NAME "
                             "(support/support-agent-refunds, testkube/weather-agent-smoke)"),
    ((str(EXPERIMENTS), "--experiment", "nope"), 2,
     "error: no valid Experiment named nope (with an inline dataset: support/support-agent-refunds, "
     "testkube/weather-agent-smoke)"),
    ((str(EXPERIMENTS), "--experiment", "docs-rag-nightly"), 2,
     "error: Experiment docs-rag-nightly has no inline dataset (its dataset is in S3 or at a URL already): "
     "nothing to export"),
    ((str(EXPERIMENTS / "rag-s3-nightly.yaml"),), 2, "error: no Experiment with an inline dataset found"),
    (("missing.yaml",), 2, "error: an input cannot be read (see above): nothing was written"),
])
def test_nothing_or_several_to_choose_from_is_one_line(args: tuple[str, ...], code: int, message: str) -> None:
    done = run_process("dataset", "export", *args)
    assert done.returncode == code
    assert done.stdout == b""
    assert done.stderr.decode().splitlines()[-1] == message


def test_an_invalid_experiment_is_not_exported_and_its_errors_are_shown(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(WEATHER.read_text(encoding="utf-8").replace("defaultThreshold: 0.9", "defaultThreshold: 90"),
                   encoding="utf-8")
    assert "defaultThreshold: 90" in bad.read_text(encoding="utf-8")
    for args in ((), ("--experiment", "weather-agent-smoke")):
        done = run_process("dataset", "export", str(bad), *args)
        assert done.returncode == 1
        err = done.stderr.decode().splitlines()
        assert any("error[schema/maximum] spec.dataset.inline.defaultThreshold" in line for line in err), err
        assert err[-1] in ("error: no valid Experiment with an inline dataset: fix the findings above first",
                           "error: Experiment weather-agent-smoke is invalid: fix the findings above first")
        assert done.stdout == b""


def test_output_file_is_written_atomically_and_an_input_is_never_the_output(tmp_path: Path) -> None:
    out = tmp_path / "experiment.json"
    done = run_process("dataset", "export", str(WEATHER), "-o", str(out))
    assert done.returncode == 0, done.stderr.decode()
    stdout = run_process("dataset", "export", str(WEATHER)).stdout
    assert out.read_bytes() == stdout
    assert done.stderr.decode() == f"wrote {out} ({len(stdout)} bytes) from Experiment testkube/weather-agent-smoke\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["experiment.json"], "no temporary file left"
    copy = tmp_path / "weather.yaml"
    copy.write_bytes(WEATHER.read_bytes())
    refused = run_process("dataset", "export", str(copy), "-o", str(copy))
    assert refused.returncode == 2
    assert refused.stderr.decode() == f"error: -o {copy} is one of the inputs: it would be overwritten\n"
    assert copy.read_bytes() == WEATHER.read_bytes()


@pytest.mark.parametrize("existed", [True, False])
def test_a_file_changed_while_exporting_is_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         existed: bool) -> None:
    out = tmp_path / "experiment.json"
    if existed:
        out.write_text("old\n", encoding="utf-8")
    real_find = export.find

    def find_and_meanwhile_edit(*args: Any, **kwargs: Any) -> export.Found:
        found = real_find(*args, **kwargs)
        out.write_text("edited by someone else\n", encoding="utf-8")
        return found

    monkeypatch.setattr(export, "find", find_and_meanwhile_edit)
    result = run_cli("dataset", "export", str(WEATHER), "-o", str(out))
    assert result.exit_code == 1
    assert result.stderr == f"error: {out} changed while the dataset was exported: it was left as it is; run again\n"
    assert out.read_text(encoding="utf-8") == "edited by someone else\n"
    assert sorted(os.listdir(tmp_path)) == ["experiment.json"]
