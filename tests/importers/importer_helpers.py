"""Helpers for the importer tests: exact source positions, validated imports, short accessors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pos(path: str, needle: str, after: str | None = None, occurrence: int = 1) -> tuple[int, int]:
    """1-based (line, column) of the ``occurrence``-th ``needle`` in ``path`` (after the text ``after``)."""
    text = (FIXTURES / path).read_text(encoding="utf-8")
    start = text.index(after) if after is not None else 0
    index = start - 1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, col


def run(fmt: str, *paths: str, **options: Any) -> Any:
    """Import ``paths`` and check the Experiment the way ``kubectl testbench validate`` does: no errors."""
    from kubectl_testbench.integrations.importers import ImportOptions, import_dataset

    opts = {"name": "imported", "agent": "agent", **options}
    result = import_dataset(fmt, list(paths), ImportOptions(**opts))
    assert_valid(result.experiment)
    return result


def assert_valid(experiment: dict[str, Any]) -> None:
    """Zero validation errors, the pydantic model accepts it, it renders to Testkube-schema-valid manifests,
    and the run phase's experiment.json renders."""
    import json

    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.model.experiment import Experiment
    from kubectl_testbench.model.experiment_json import experiment_json
    from kubectl_testbench.render.compile import render_experiment
    from kubectl_testbench.render.settings import Flags
    from kubectl_testbench.validate.engine import Options, validate_text
    from tests.conftest import TESTKUBE_CRDS
    from tests.validate.helpers import keep

    result = validate_text(dump(experiment), "imported.yaml", Options(), keep=keep(experiments=True))
    errors = [f"{d.rule} {d.path}: {d.message}" for d in result.diagnostics if d.severity.value == "error"]
    assert errors == []
    Experiment.model_validate(experiment)
    rendered = render_experiment(result.experiments[0].data, Flags())
    assert [o["kind"] for o in rendered][-1] == "TestWorkflow" or rendered[-1]["kind"] == "TestTrigger"
    if TESTKUBE_CRDS.exists():
        from tests.testkube_schema import problems

        for obj in rendered:
            assert problems(obj) == []
    inline = experiment["spec"]["dataset"]["inline"]
    document = json.loads(experiment_json(inline))
    assert [s["name"] for s in document["scenarios"]] == [s["name"] for s in inline["scenarios"]]


def warnings_of(result: Any) -> list[tuple[str, int, int, str]]:
    """(file, line, col, message) of every warning, in the order they are printed."""
    return [(w.file, w.line, w.col, w.message) for w in result.warnings]


def steps(result: Any, scenario: int = 0) -> list[dict[str, Any]]:
    steps_: list[dict[str, Any]] = result.experiment["spec"]["dataset"]["inline"]["scenarios"][scenario]["steps"]
    return steps_


def scenarios(result: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = result.experiment["spec"]["dataset"]["inline"]["scenarios"]
    return found


def metric_names(step: dict[str, Any]) -> list[str]:
    return [m["metricName"] for m in step.get("metrics", [])]


def judge(name: str, definition: str, threshold: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"metricName": "AspectCritic"}
    if threshold is not None:
        out["threshold"] = threshold
    out["parameters"] = {"name": name, "definition": definition}
    return out



def cli(*args: str, input: str | bytes | None = None) -> Any:
    """``kubectl testbench ARGS`` in-process (as tests/conftest.py's run_cli), stdout and stderr apart."""
    from click.testing import CliRunner

    from kubectl_testbench.cli.main import cli as group

    return CliRunner().invoke(group, list(args), input=input, prog_name="kubectl testbench")


def process(*args: str, input: bytes | None = None, cwd: Path | None = None) -> Any:
    """``python -m kubectl_testbench ARGS`` as a real process, importing this checkout."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "kubectl_testbench", *args], input=input, cwd=cwd or FIXTURES,
                          capture_output=True, env=env, timeout=120, check=False)
