"""Orloj: EvalDataset samples, the field spellings of its code and its docs, EvalRun scoring."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_helpers import pos, run, scenarios, warnings_of

from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset
from kubectl_testbench.integrations.importers.common import kept_rubric_message

TRIAGE = "orloj/triage-dataset.yaml"
VARIANTS = "orloj/variants.yaml"
RUN_DOCS = "orloj/run-docs.yaml"
RUBRIC = "Rate accuracy and helpfulness of the triage classification (0-1)."


def test_guide_dataset_with_its_eval_run() -> None:
    result = run("orloj", TRIAGE)
    assert result.experiment["metadata"]["annotations"]["import.testbench.agentic-layer.ai/description"] == \
        "Golden set for the support triage agent"
    assert scenarios(result) == [
        {"name": "billing-question", "steps": [{
            "input": "I was charged twice for my subscription last month",
            "reference": {"response": "billing"},  # the rubric is kept as text: no metric the phase scores judges it
            "customValues": {"rubrics": [{"id": "rubric", "text": RUBRIC}]},
            "metrics": [{"metricName": "StringPresence"}]}]},
        {"name": "password-reset", "steps": [{
            "input": "I can't log in, I forgot my password",
            "reference": {"response": "password"},
            "customValues": {"rubrics": [{"id": "rubric", "text": RUBRIC}]},
            "metrics": [{"metricName": "StringPresence"}]}]},
    ]
    assert warnings_of(result) == [
        (TRIAGE, 9, 7, kept_rubric_message('rubric "rubric"', 2)),
        (TRIAGE, *pos(TRIAGE, "output_not_contains"), "expected.output_not_contains is not carried over: no RAGAS "
                                                      "metric checks that a text is absent"),
        (TRIAGE, *pos(TRIAGE, "system:"), 'EvalRun "triage-eval-llm": system is not carried over (the Experiment '
                                          "evaluates the agent given with --agent)"),
        (TRIAGE, *pos(TRIAGE, "model_ref:"), 'EvalRun "triage-eval-llm": model_ref "gpt-4o-judge" names an Orloj '
                                             "ModelEndpoint, not a model: set the judge model with --judge-model"),
        (TRIAGE, *pos(TRIAGE, "concurrency:"), 'EvalRun "triage-eval-llm": concurrency is not carried over (not an '
                                               "Experiment setting)"),
    ]


def test_field_name_variants() -> None:
    result = run("orloj", VARIANTS)
    assert scenarios(result) == [
        # id instead of name, a plain string input, camelCase outputContains; dataset-level scoring exact_match
        {"name": "refund-request", "steps": [{
            "input": "I want a refund for order #12345, the item arrived broken",
            "reference": {"response": "refund"}, "metrics": [{"metricName": "StringPresence"}]}]},
        # the message entry is the input, the other entries are kept; equals wins over contains
        {"name": "refund-status", "steps": [{
            "input": "Where is my refund?",
            "reference": {"response": "Your refund was issued yesterday."},
            "customValues": {"customer_tier": "gold"},
            "metrics": [{"metricName": "ExactMatch"}]}]},
        # scoring.type-less variant: strategy llm_judge with criteria (the rubric's other spelling)
        {"name": "policy-question", "steps": [{
            "input": "What is the refund window?",
            "reference": {"response": "Refunds are accepted within 30 days."},
            "customValues": {"rubrics": [{"id": "rubric", "text": "Answers with the correct refund window."}]},
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "manual-review", "steps": [{
            "input": "Write a friendly apology.", "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]},
        {"name": "custom-tool", "steps": [{
            "input": "Classify this ticket.", "reference": {"response": "Billing"},
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
    ]
    assert warnings_of(result) == [
        (VARIANTS, *pos(VARIANTS, "apiVersion"), 'apiVersion "orloj.dev/v1alpha1" is not orloj.dev/v1: read as '
                                                 "orloj.dev/v1"),
        (VARIANTS, *pos(VARIANTS, "customer_tier"), "input entries customer_tier are kept in customValues but not sent "
                                                    "to the agent: a Testbench step sends one message"),
        (VARIANTS, *pos(VARIANTS, "contains: refund"), 'expected.contains "refund" is not carried over: StringPresence '
                                                       "compares with reference.response, which already holds another "
                                                       "expected value"),
        (VARIANTS, 21, 7, kept_rubric_message('rubric "rubric"', 1)),
        (VARIANTS, *pos(VARIANTS, "greaterThan"), "expected.greaterThan is not carried over: no RAGAS metric compares "
                                                  "numbers"),
        (VARIANTS, *pos(VARIANTS, "modelRef"), 'sample "policy-question": modelRef "judge" names an Orloj '
                                               "ModelEndpoint, not a model: set the judge model with --judge-model"),
        (VARIANTS, *pos(VARIANTS, "strategy: manual"),
         'sample "manual-review": manual scoring (human review) is not carried over: the expected values (or a '
         "reference-free judge) are scored instead"),
        (VARIANTS, *pos(VARIANTS, "tool_ref"), 'sample "custom-tool": custom scoring with tool "classifier-check" is '
                                               "not carried over: the expected values are scored instead"),
        (VARIANTS, *pos(VARIANTS, "tags"), 'unknown sample field "tags" is not carried over'),
        (VARIANTS, *pos(VARIANTS, "kind: ConfigMap"), 'document of kind "ConfigMap" is not an EvalDataset: skipped'),
    ]


def test_eval_run_in_the_docs_spelling_scores_a_dataset_from_another_file() -> None:
    result = run("orloj", TRIAGE, RUN_DOCS)
    first = scenarios(result)[0]["steps"][0]
    # the first EvalRun (code spelling dataset_ref) wins; the second (docs spelling dataset) is reported
    assert first["metrics"] == [{"metricName": "StringPresence"}]
    assert (RUN_DOCS, *pos(RUN_DOCS, "scoring:"), 'EvalRun "triage-gpt4o" also scores dataset "triage-golden": the '
                                                  'scoring of EvalRun "triage-eval-llm" is kept') in warnings_of(result)
    assert (RUN_DOCS, *pos(RUN_DOCS, "agent_overrides", after="spec:"),
            'EvalRun "triage-gpt4o": agent_overrides is not carried over (not an Experiment setting)') \
        in warnings_of(result)


def test_the_first_eval_run_given_scores_the_dataset() -> None:
    result = run("orloj", RUN_DOCS, TRIAGE)  # now the docs-spelled EvalRun comes first
    assert (TRIAGE, *pos(TRIAGE, "scoring:"), 'EvalRun "triage-eval-llm" also scores dataset "triage-golden": the '
                                              'scoring of EvalRun "triage-gpt4o" is kept') in warnings_of(result)


def test_eval_run_for_an_absent_dataset_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "d.yaml"
    data.write_text("kind: EvalDataset\nmetadata: {name: a}\nspec:\n  samples:\n  - name: s\n    input: {prompt: hi}\n"
                    "---\nkind: EvalRun\nmetadata: {name: r}\nspec:\n  dataset_ref: other\n"
                    "  scoring: {strategy: llm_judge, rubric: x}\n", encoding="utf-8")
    result = run("orloj", str(data))
    assert scenarios(result)[0]["steps"][0]["metrics"] == [{"metricName": "AgentGoalAccuracyWithoutReference"}]
    assert [(w.line, w.message) for w in result.warnings] == [
        (11, 'EvalRun "r" refers to dataset "other", which is not among the inputs: its scoring is not used')]


def test_no_eval_dataset_is_an_input_error(tmp_path: Path) -> None:
    data = tmp_path / "cm.yaml"
    data.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("orloj", [str(data)], ImportOptions(name="x", agent="a"))
    assert err.value.message == "no Orloj EvalDataset in the input"
