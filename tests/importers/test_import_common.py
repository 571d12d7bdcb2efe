"""The shared builder: names, metrics, options, external datasets, and every fixture validated."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_helpers import assert_valid, run, scenarios, steps

from kubectl_testbench.integrations.importers import FORMATS, ImportOptions, MetricSpec
from kubectl_testbench.integrations.importers.common import (
    Collected,
    ImportInputError,
    Origin,
    ScenarioSpec,
    StepSpec,
    build_experiment,
    default_metrics,
    external_experiment,
    parse_list_cell,
    parse_metric_option,
)
from kubectl_testbench.validate.metrics import NEEDS

ALL_FIXTURES = [
    ("adk", ("adk/home_automation",)), ("adk", ("adk/nested",)), ("adk", ("adk/legacy",)), ("adk", ("adk/rubrics",)),
    ("agentv", ("agentv/basic",)), ("agentv", ("agentv/legacy",)), ("agentv", ("agentv/promptfoo",)),
    ("agentv", ("agentv/jsonl/cases.jsonl",)),
    ("orloj", ("orloj/triage-dataset.yaml",)), ("orloj", ("orloj/variants.yaml",)),
    ("orloj", ("orloj/triage-dataset.yaml", "orloj/run-docs.yaml")),
    ("csv", ("csv",)), ("json", ("json/records.json", "json/rows.jsonl", "json/columns.json", "json/split.json")),
]


@pytest.mark.parametrize(("fmt", "paths"), ALL_FIXTURES)
def test_every_fixture_imports_into_a_valid_experiment(fmt: str, paths: tuple[str, ...]) -> None:
    result = run(fmt, *paths, namespace="evals", agent_namespace="agents")
    assert result.experiment["metadata"]["namespace"] == "evals"
    assert result.experiment["spec"]["agentRef"] == {"name": "agent", "namespace": "agents"}
    for scenario in scenarios(result):
        for step in scenario["steps"]:
            for metric in step.get("metrics", []):
                assert metric["metricName"] in NEEDS


def test_imports_are_deterministic() -> None:
    first = run("agentv", "agentv/basic")
    second = run("agentv", "agentv/basic")
    assert first.experiment == second.experiment
    assert first.warnings == second.warnings


def test_format_table_lists_every_module() -> None:
    import importlib

    assert sorted(FORMATS) == ["adk", "agentv", "csv", "json", "orloj", "parquet"]
    from kubectl_testbench.cli.import_ import FORMAT_NAMES

    assert tuple(sorted(FORMATS)) == FORMAT_NAMES
    for module, _ in FORMATS.values():
        assert callable(importlib.import_module(module).read)


def _collected(*names: str) -> Collected:
    c = Collected("test")
    c.sources.append("f")
    for i, name in enumerate(names):
        c.scenarios.append(ScenarioSpec(name, Origin("f", i + 1, 1), [StepSpec("hi", Origin("f", i + 1, 1))]))
    return c


def test_scenario_names_are_made_unique_and_blank_names_get_one() -> None:
    result = build_experiment(_collected("a", "a", "  ", "a"), ImportOptions(name="x", agent="y"))
    assert [s["name"] for s in scenarios(result)] == ["a", "a (2)", "scenario-3", "a (3)"]
    assert [(w.line, w.message) for w in result.warnings] == [
        (2, 'scenario name "a" is already used: renamed to "a (2)" (results are keyed on the scenario name)'),
        (4, 'scenario name "a" is already used: renamed to "a (3)" (results are keyed on the scenario name)'),
    ]


def test_options_override_the_source() -> None:
    c = _collected("a")
    c.judge_model, c.default_threshold = "source-judge", 0.5
    result = build_experiment(c, ImportOptions(name="x", agent="y", judge_model="mine", default_threshold=0.75,
                                               gateway="gw", gateway_namespace="ai"))
    inline = result.experiment["spec"]["dataset"]["inline"]
    assert (inline["llmAsAJudgeModel"], inline["defaultThreshold"]) == ("mine", 0.75)
    assert result.experiment["spec"]["aiGatewayRef"] == {"name": "gw", "namespace": "ai"}
    assert list(result.experiment["spec"]) == ["agentRef", "aiGatewayRef", "dataset"]


def test_metric_option_replaces_metrics_and_reports_missing_reference_data() -> None:
    c = _collected("a", "b")
    c.scenarios[1].steps[0].response = "ok"
    result = build_experiment(c, ImportOptions(name="x", agent="y", metrics=(MetricSpec("FactualCorrectness", 0.6),)))
    assert [s["metrics"] for s in (steps(result, 0)[0], steps(result, 1)[0])] == [
        [{"metricName": "FactualCorrectness", "threshold": 0.6}]] * 2
    assert [(w.line, w.message) for w in result.warnings] == [
        (1, "--metric FactualCorrectness needs reference.response, which 1 step lacks (this is the first)")]


def test_default_metrics_follow_the_reference_data() -> None:
    step = StepSpec("q", Origin("f"))
    assert [m.name for m in default_metrics(step)] == ["AgentGoalAccuracyWithoutReference"]
    step.response, step.tool_calls, step.contexts, step.topics = "a", [{"name": "t", "args": {}}], ["c"], ["x"]
    assert [m.name for m in default_metrics(step)] == ["AgentGoalAccuracyWithReference", "ToolCallAccuracy",
                                                       "TopicAdherence"]
    step.response, step.tool_calls, step.topics = None, None, None
    assert [m.name for m in default_metrics(step)] == ["AgentGoalAccuracyWithoutReference"], (
        "contexts alone: no metric that reads them scores with the phase package")
    for metric in default_metrics(step):
        assert metric.name in NEEDS


def test_nothing_found_is_an_input_error() -> None:
    with pytest.raises(ImportInputError, match="no test cases found"):
        build_experiment(_collected(), ImportOptions(name="x", agent="y"))


def test_external_experiment_replaces_the_dataset_only() -> None:
    result = build_experiment(_collected("a"), ImportOptions(name="x", agent="y"))
    s3 = external_experiment(result.experiment, bucket="datasets", key="x.json")
    url = external_experiment(result.experiment, url="https://example.com/x.json")
    assert s3["spec"]["dataset"] == {"s3": {"bucket": "datasets", "key": "x.json"}}
    assert url["spec"]["dataset"] == {"url": "https://example.com/x.json"}
    assert "inline" in result.experiment["spec"]["dataset"]  # the original is untouched
    with pytest.raises(ValueError):
        external_experiment(result.experiment)


@pytest.mark.parametrize(("text", "expected"), [
    ("AnswerAccuracy", MetricSpec("AnswerAccuracy")),
    ("FactualCorrectness=0.7", MetricSpec("FactualCorrectness", 0.7)),
    (" ToolCallAccuracy = 1 ", MetricSpec("ToolCallAccuracy", 1.0)),
])
def test_parse_metric_option(text: str, expected: MetricSpec) -> None:
    assert parse_metric_option(text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("", "give a RAGAS metric class name"),
    ("answeraccuracy", '"answeraccuracy" cannot be used: agentic-layer-testbench 0.10.0 has no metric of that name'),
    ("Faithfulness", '"Faithfulness" cannot be used: it never scores with agentic-layer-testbench 0.10.0: its '
                     "score needs retrieved_contexts"),
    ("AnswerRelevancy", "cannot build it.*embeddings"),
    ("AspectCritic", "has no metric of that name"),
    ("ResponseRelevancy", "old name of AnswerRelevancy"),
    ("AnswerAccuracy=high", "the threshold must be a number between 0 and 1"),
    ("AnswerAccuracy=1.5", "the threshold must be between 0 and 1"),
])
def test_parse_metric_option_rejects(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_metric_option(text)


@pytest.mark.parametrize(("cell", "expected"), [
    ('["a", "b"]', (["a", "b"], None)),
    ("['a', \"b's\"]", (["a", "b's"], None)),
    ("plain text, with a comma", (None, None)),
    ("[not a list", (None, "looks like a list but is neither JSON nor a Python literal")),
    ('["a"', (None, "looks like a list but is neither JSON nor a Python literal")),
])
def test_parse_list_cell(cell: str, expected: tuple[object, object]) -> None:
    assert parse_list_cell(cell) == expected


def test_assert_valid_catches_an_invalid_experiment(tmp_path: Path) -> None:
    result = build_experiment(_collected("a"), ImportOptions(name="Not_A_Valid_Name", agent="y"))
    with pytest.raises(AssertionError):
        assert_valid(result.experiment)


def test_docs_cover_every_mapping() -> None:
    from kubectl_testbench.integrations.importers import adk, orloj, table

    docs = (Path(__file__).resolve().parents[2] / "docs" / "import.md").read_text(encoding="utf-8")
    for criterion in [*adk.CRITERIA, *adk._UNSUPPORTED_CRITERIA]:  # those carried over and those not
        assert f"`{criterion}" in docs, criterion
    for names in table.COLUMNS.values():
        for name in names:
            assert f"`{name}`" in docs, name
    for names in orloj.VARIANTS.values():
        for name in names:
            assert f"`{name}`" in docs, name
    for fmt in FORMATS:
        assert f"## {fmt}" in docs or f"/ {fmt}" in docs, fmt
