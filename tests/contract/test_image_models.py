"""Every experiment.json we render is one the run phase's models accept.

tests/contract/image_models.py states schema/models.py@a8e16f1's constraints in our own words. This file shows
that statement can fail, checks every rendered dataset with it, and, where the phase image's own package is
installed (agentic-layer-testbench 0.10.0), asks its real ``Experiment`` model about the same documents.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.model.experiment_json import experiment_json
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import EXAMPLES, ROOT
from tests.contract.image_models import experiment_problems
from tests.phase_package import clean_env, phase_python
from tests.validate.helpers import keep


def _texts() -> list[tuple[Path, str]]:
    """Every UTF-8 YAML file with an inline Experiment under examples/ and tests/ (the valid ones render)."""
    out = []
    for path in sorted(EXAMPLES.rglob("*.yaml")) + sorted((ROOT / "tests").rglob("*.yaml")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if "kind: Experiment" in text and "inline:" in text:
            out.append((path, text))
    return out


GOOD: dict[str, Any] = {"scenarios": [{"name": "s", "steps": [{"input": "hi"}]}]}


def _step(**fields: Any) -> dict[str, Any]:
    return {"scenarios": [{"name": "s", "steps": [{"input": "hi", **fields}]}]}


BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "scenarios: required by Experiment"),
    ({"scenarios": [{"steps": []}]}, "scenarios[0].name: required by Scenario"),
    ({"scenarios": [{"name": "s", "steps": [{"input": 5}]}]}, "scenarios[0].steps[0].input: must be text, got int"),
    ({"default_threshold": 1.5, **GOOD}, "default_threshold: 1.5 is outside [0, 1]"),
    (_step(custom_values=["a"]),
     "scenarios[0].steps[0].custom_values: must be an object, got list"),
    (_step(reference={"tool_calls": [{"name": "t"}]}),
     "scenarios[0].steps[0].reference.tool_calls[0].args: required by ToolCall"),
    (_step(reference={"tool_calls": [{"name": "t", "args": "x"}]}),
     "scenarios[0].steps[0].reference.tool_calls[0].args: must be an object, got str"),
    (_step(metrics=[{"metric_name": "m", "parameters": 3}]),
     "scenarios[0].steps[0].metrics[0].parameters: must be an object, got int"),
    (_step(metrics=[{"metric_name": "m", "threshold": -0.1}]),
     "scenarios[0].steps[0].metrics[0].threshold: -0.1 is outside [0, 1]"),
    (_step(metrics=[{"metricName": "m"}]),
     "scenarios[0].steps[0].metrics[0].metric_name: required by Metric"),
]


def test_the_stated_models_accept_a_minimal_experiment_and_nulls_for_optional_fields() -> None:
    assert experiment_problems(GOOD) == []
    assert experiment_problems({"llm_as_a_judge_model": None, **GOOD}) == []


@pytest.mark.parametrize(("document", "problem"), BAD, ids=[p for _, p in BAD])
def test_the_stated_models_reject_what_the_image_rejects(document: dict[str, Any], problem: str) -> None:
    assert problem in experiment_problems(document)


def _inline_datasets() -> list[tuple[str, str]]:
    out = []
    for path, text in _texts():
        result = validate_text(text, str(path), Options(), keep=keep(experiments=True))
        for exp in result.experiments:
            inline = exp.data["spec"]["dataset"].get("inline")
            if inline is not None:
                out.append((f"{path.relative_to(ROOT)}:{exp.line}", experiment_json(inline)))
    return out


DATASETS = _inline_datasets()


def test_there_are_datasets_to_check() -> None:
    assert len(DATASETS) >= 5


@pytest.mark.parametrize(("origin", "text"), DATASETS, ids=[o for o, _ in DATASETS])
def test_every_rendered_experiment_json_meets_the_stated_models(origin: str, text: str) -> None:
    assert experiment_problems(json.loads(text)) == []


REAL_CHECK = """\
import json, sys
from pydantic import ValidationError
from testbench.schema.models import Experiment
for text in json.load(sys.stdin):
    try:
        Experiment.model_validate_json(text)
        print("ok")
    except ValidationError as err:
        print("rejected:", err.errors()[0]["loc"])
"""


def test_the_phase_packages_own_models_agree() -> None:
    """The real ``testbench.schema.models.Experiment`` (0.10.0) accepts every rendered dataset and rejects every
    document the stated models reject."""
    python = phase_python()
    documents = [text for _, text in DATASETS] + [json.dumps(doc) for doc, _ in BAD]
    proc = subprocess.run([python, "-c", REAL_CHECK], input=json.dumps(documents), capture_output=True, text=True,
                          env=clean_env(), timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    verdicts = proc.stdout.splitlines()
    assert verdicts[:len(DATASETS)] == ["ok"] * len(DATASETS)
    assert all(v.startswith("rejected:") for v in verdicts[len(DATASETS):]), verdicts[len(DATASETS):]


def test_unknown_keys_are_refused_by_the_statement_but_ignored_by_pydantic(tmp_path: Path) -> None:
    """Documented difference: we never want to write a key the image would silently drop."""
    assert experiment_problems({"scenarioz": [], **GOOD}) == ["scenarioz: not a field of Experiment"]
