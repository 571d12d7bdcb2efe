"""run --local's prepare() in-process: an Experiment file to the steps that will run, its name, its workflow, its
warnings, and each way it is refused (the CLI's end-to-end view of the same: test_cli.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_testbench.local.plan import Endpoints
from kubectl_testbench.local.session import PrepareError, prepare
from tests.conftest import EXAMPLES

WEATHER = EXAMPLES / "experiments" / "weather-inline.yaml"
SUPPORT = EXAMPLES / "experiments" / "support-multi-turn.yaml"
LOCAL = Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1", "sk-local")
EXECUTION = "0123456789abcdef01234567"


def variant(tmp_path: Path, old: str, new: str, source: Path = WEATHER) -> str:
    text = source.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / source.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(path)


def refused(path: str, endpoints: Endpoints = LOCAL, **kwargs: object) -> PrepareError:
    with pytest.raises(PrepareError) as err:
        prepare(path, endpoints, **kwargs)  # type: ignore[arg-type]
    return err.value


def test_an_experiment_becomes_its_named_workflows_steps_with_the_local_endpoints_and_env() -> None:
    prepared = prepare(str(WEATHER), LOCAL, given_env={"EXTRA": "1"}, execution=EXECUTION)
    assert (prepared.experiment, prepared.workflow) == ("testkube/weather-agent-smoke",
                                                        "weather-agent-smoke-testkube-workflow")
    assert [s.name for s in prepared.steps] == ["run", "evaluate-results", "visualize-metrics"]
    assert (prepared.agent_url, prepared.judge_url) == ("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1")
    assert prepared.steps[-1].argv == ("-m", "testbench.visualize", "weather-agent-smoke", EXECUTION, "1")
    assert all(s.env["EXTRA"] == "1" and s.env["OPENAI_API_KEY"] == "sk-local" for s in prepared.steps)
    assert prepared.warnings == []


def test_without_an_execution_id_a_fresh_testkube_shaped_one_is_made() -> None:
    first, second = (prepare(str(WEATHER), LOCAL).steps[-1].argv[3] for _ in range(2))
    assert re.fullmatch(r"[0-9a-f]{24}", first) and first != second


def test_an_experiment_without_a_namespace_takes_the_given_one_else_default(tmp_path: Path) -> None:
    path = variant(tmp_path, "  namespace: testkube\n", "")
    assert prepare(path, LOCAL).experiment == "default/weather-agent-smoke"
    mine = prepare(path, LOCAL, namespace="mine")
    assert (mine.experiment, mine.workflow) == ("mine/weather-agent-smoke", "weather-agent-smoke-mine-workflow")


def test_references_are_looked_up_in_the_values_and_the_given_env_wins_over_them() -> None:
    otel = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "otel-config", "namespace": "support"},
            "data": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}}
    endpoints = Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1", "sk-local",
                          otlp_endpoint="http://127.0.0.1:9999")
    assert prepare(str(SUPPORT), endpoints, values=[otel]).experiment == "support/support-agent-refunds"
    err = refused(str(SUPPORT), endpoints)
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in str(err) and "otel-config" in str(err) and err.details == []
    given = prepare(str(SUPPORT), endpoints, given_env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"})
    assert {s.env["OTEL_EXPORTER_OTLP_ENDPOINT"] for s in given.steps} == {"http://127.0.0.1:1"}


def test_an_experiment_without_a_dataset_configmap_is_its_workflow_alone() -> None:
    """An s3 dataset: the TestWorkflow is all render writes, and its setup step fetches the dataset."""
    minio = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "minio-credentials"},
             "stringData": {"user": "u", "password": "p"}}
    prepared = prepare(str(EXAMPLES / "experiments" / "rag-s3-nightly.yaml"), LOCAL, values=[minio],
                       given_env={"MINIO_ENDPOINT": "http://127.0.0.1:9000"})
    assert (prepared.experiment, prepared.workflow) == ("knowledge/docs-rag-nightly",
                                                        "docs-rag-nightly-knowledge-workflow")
    assert [s.name for s in prepared.steps] == ["setup", "run", "evaluate-results", "visualize-metrics"]
    setup = prepared.steps[0].env
    assert (setup["MINIO_ENDPOINT"], setup["MINIO_ROOT_USER"], setup["MINIO_ROOT_PASSWORD"]) == (
        "http://127.0.0.1:9000", "u", "p")


def test_warnings_are_kept_one_finding_each_without_the_final_newline(tmp_path: Path) -> None:
    path = variant(tmp_path, "  env:\n", '  env:\n    - name: X\n      value: "1"\n    - name: X\n      value: "2"\n')
    prepared = prepare(path, LOCAL)
    assert prepared.warnings == [
        f'{path}:21:13: warning[semantic/duplicate-env] spec.env[1].name: env "X" is also set by env[0]; only the '
        "last one takes effect\n  hint: remove one of them"]


def test_an_invalid_experiment_is_refused_with_its_findings(tmp_path: Path) -> None:
    path = variant(tmp_path, "      llmAsAJudgeModel: gemini-2.5-flash-lite\n", "")
    err = refused(path)
    assert str(err) == f"{path}: nothing run: 1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings"
    assert len(err.details) == 1 and not err.details[0].endswith("\n")
    assert err.details[0].startswith(f"{path}:") and "error[semantic/no-judge-model] spec.dataset.inline" in \
        err.details[0]


def test_a_file_with_two_experiments_is_refused(tmp_path: Path) -> None:
    text = WEATHER.read_text(encoding="utf-8")
    path = tmp_path / "two.yaml"
    path.write_text(text + "---\n" + text.replace("name: weather-agent-smoke", "name: weather-two"), encoding="utf-8")
    assert str(refused(str(path))) == f"{path}: holds 2 Experiments; run --local runs exactly one"


def test_a_workflow_that_does_not_resolve_is_refused_with_the_first_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """render escapes all user text, so only a defect of ours gets here: said, not a crash."""
    import kubectl_testbench.render.resolve as resolve
    from kubectl_testbench.render.resolve import Resolved, ResolveError

    seen: list[object] = []

    def failing(objects: list[dict[str, object]], **kwargs: object) -> Resolved:
        seen.append(kwargs["execution"])
        return Resolved(failures=[({}, ResolveError("spec.use[0]", "first")), ({}, ResolveError("x", "second"))])

    monkeypatch.setattr(resolve, "resolve_objects", failing)
    err = refused(str(WEATHER), execution=EXECUTION)
    assert str(err) == f"{WEATHER}: the workflow does not resolve: spec.use[0]: first" and err.details == []
    assert [getattr(e, "id", None) for e in seen] == [EXECUTION]

