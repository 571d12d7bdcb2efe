"""Semantic rules not covered by the corpus, one test per rule id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_testbench.model import naming
from kubectl_testbench.validate.engine import validate_text
from kubectl_testbench.validate.semantic import CHECKS
from tests.validate.helpers import VALID


def findings(text: str) -> list[tuple[str, str]]:
    return [(d.rule, d.path) for d in validate_text(text, "t.yaml").diagnostics]


def test_every_registered_rule_is_in_the_rule_table() -> None:
    from kubectl_testbench.rules import RULES

    for rules, _ in CHECKS:
        for rule in rules:
            assert rule in RULES


def test_semantic_inline_size() -> None:
    big = "x" * 1_100_000
    text = VALID.replace("Will it rain in Berlin tomorrow?", big)
    assert ("semantic/inline-size", "spec.dataset.inline") in findings(text)


def test_semantic_inline_size_near() -> None:
    text = VALID.replace("Will it rain in Berlin tomorrow?", "x" * 1_000_000)
    assert ("semantic/inline-size-near", "spec.dataset.inline") in findings(text)


def test_semantic_no_metrics() -> None:
    text = VALID.replace("      defaultThreshold: 0.8\n", "").replace(
        "              metrics:\n                - metricName: AgentGoalAccuracyWithReference\n", "")
    assert findings(text) == [("semantic/no-metrics", "spec.dataset.inline.scenarios")]


def test_semantic_expression_text_is_information_only() -> None:
    text = VALID.replace("  dataset:", "  env:\n    - name: GREETING\n      value: 'hi {{ user }}'\n  dataset:")
    result = validate_text(text, "t.yaml")
    assert [(d.rule, d.severity.value) for d in result.diagnostics] == [("semantic/expression-text", "info")]
    assert result.counts.valid == 1


def test_semantic_env_value_from_needs_exactly_one_source() -> None:
    env = ("  env:\n    - name: A\n      valueFrom:\n        secretKeyRef: {name: s, key: k}\n"
           "        configMapKeyRef: {name: c, key: k}\n  dataset:")
    text = VALID.replace("  dataset:", env)
    assert ("semantic/env-value-and-from", "spec.env[0].valueFrom") in findings(text)


def test_semantic_literal_secret_never_echoes_the_value() -> None:
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    text = VALID.replace("  dataset:", f"  env:\n    - name: GIT\n      value: {secret}\n  dataset:")
    result = validate_text(text, "t.yaml")
    assert ("semantic/literal-secret", "spec.env[0].value") in [(d.rule, d.path) for d in result.diagnostics]
    assert secret not in json.dumps([d.message + d.hint for d in result.diagnostics])


def test_semantic_literal_secret_ignores_references_and_plain_config() -> None:
    text = VALID.replace("  dataset:", "  env:\n    - name: TOKEN_URL\n      value: $(BASE)/token\n"
                         "    - name: LOG_LEVEL\n      value: debug\n  dataset:")
    assert findings(text) == []


def test_semantic_resource_name_hash_rule_matches_the_operator() -> None:
    name, ns = "a" * 200, "n" * 60
    generated = naming.resource_name(name, ns, "workflow")
    assert len(generated) == 253 and generated.endswith("-workflow")
    assert generated.startswith(f"{name}-{ns}"[:253 - len("workflow") - 10])
    assert naming.resource_name("exp", "ns", "trigger") == "exp-ns-trigger"


def test_semantic_resource_name_flags_a_cut_that_ends_in_a_dot() -> None:
    # the operator's cut can leave "x.-hash", which is not a valid DNS subdomain
    name = ("a" * 63 + ".") * 3 + "a" * 42 + "." + "b" * 10  # a dot at index 234 = the workflow cut
    assert len(name) <= 253 and name[234] == "."
    assert naming.resource_name(name, "agents", "workflow")[234:236] == ".-"
    text = VALID.replace("  name: weather-eval", f"  name: {name}")
    assert ("semantic/resource-name", "metadata.name") in findings(text)


def test_semantic_timezone_accepts_iana_names() -> None:
    for tz in ("UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Local"):
        assert findings(VALID + f"  schedule:\n    cron: '0 3 * * *'\n    timezone: {tz}\n") == []


def test_semantic_cron_accepts_ranges_steps_lists_and_names() -> None:
    for cron in ("*/15 * * * *", "0 9-17/2 * * MON-FRI", "0 0 1,15 JAN,jul ?", "5 4 * * sun"):
        assert findings(VALID + f"  schedule:\n    cron: '{cron}'\n") == [], cron


def test_a_judge_key_from_a_secret_in_env_is_the_supported_way_and_not_flagged() -> None:
    """The evaluate-template sets OPENAI_API_KEY in its spec.container.env, under the workflow's env: an
    Experiment's secretKeyRef wins (tests/render/test_resolve.py resolves it), so nothing to warn about."""
    text = VALID.replace("  dataset:", "  env:\n    - name: OPENAI_API_KEY\n      valueFrom:\n"
                         "        secretKeyRef: {name: judge, key: key}\n  dataset:")
    assert findings(text) == []


NO_GATEWAY = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")


def test_semantic_no_gateway_warns_with_the_fix_in_the_hint() -> None:
    [d] = validate_text(NO_GATEWAY, "t.yaml").diagnostics
    assert (d.rule, d.severity.value, d.path, d.line) == ("semantic/no-gateway", "warning", "spec", 6)
    assert "skip every metric" in d.message
    assert "spec.aiGatewayRef" in d.hint and "testbench-defaults.yaml (spec.aiGateway.name)" in d.hint


def test_semantic_no_gateway_is_silenced_by_a_gateway_url_annotation() -> None:
    text = NO_GATEWAY.replace("  namespace: agents\n", "  namespace: agents\n  annotations:\n"
                              "    testbench.agentic-layer.ai/ai-gateway-url: http://gw.example:80\n")
    assert findings(text) == []


def _defaults(directory: Path, gateway: str) -> None:
    (directory / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n" + gateway)


def test_semantic_no_gateway_is_dropped_when_the_defaults_file_names_a_gateway(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "exp.yaml").write_text(NO_GATEWAY)
    _defaults(tmp_path, "  aiGateway:\n    name: ai-gateway\n")
    named = run_cli("validate", str(tmp_path), "--strict")
    assert named.exit_code == 0, named.output
    _defaults(tmp_path, "  testkubeNamespace: testkube\n")
    unnamed = run_cli("validate", str(tmp_path))
    assert "warning[semantic/no-gateway] spec:" in unnamed.output and unnamed.exit_code == 0


def test_semantic_no_gateway_is_dropped_for_json_input_too(tmp_path: Path) -> None:
    """JSON files are read by their own reader (issue 16); the defaults file applies to them as to YAML."""
    import json

    import yaml

    from tests.conftest import run_cli

    (tmp_path / "exp.json").write_text(json.dumps(yaml.safe_load(NO_GATEWAY), indent=2))
    assert "warning[semantic/no-gateway] spec:" in run_cli("validate", str(tmp_path)).output
    _defaults(tmp_path, "  aiGateway:\n    name: ai-gateway\n")
    named = run_cli("validate", str(tmp_path), "--strict")
    assert named.exit_code == 0 and "no-gateway" not in named.output, named.output


@pytest.mark.parametrize(("field", "yaml_value", "path", "kind"), [
    ("customValues", "[a, b]", "spec.dataset.inline.scenarios[0].steps[0].customValues", "a list"),
    ("args", "'city=Berlin'", "spec.dataset.inline.scenarios[0].steps[0].reference.toolCalls[0].args", "a string"),
    ("parameters", "3", "spec.dataset.inline.scenarios[0].steps[0].metrics[0].parameters", "a number"),
])
def test_semantic_object_required_where_the_run_phase_models_want_a_mapping(field: str, yaml_value: str, path: str,
                                                                            kind: str) -> None:
    step = "            - input: Will it rain in Berlin tomorrow?\n"
    if field == "customValues":
        text = VALID.replace(step, f"{step}              customValues: {yaml_value}\n")
    elif field == "args":
        text = VALID.replace("                response: It will rain in Berlin tomorrow.\n",
                             "                response: It will rain in Berlin tomorrow.\n"
                             f"                toolCalls:\n                  - name: forecast\n"
                             f"                    args: {yaml_value}\n")
    else:
        text = VALID.replace("                - metricName: AgentGoalAccuracyWithReference\n",
                             "                - metricName: AgentGoalAccuracyWithReference\n"
                             f"                  parameters: {yaml_value}\n")
    result = validate_text(text, "t.yaml")
    found = [d for d in result.diagnostics if d.rule == "semantic/object-required"]
    assert [(d.path, d.severity.value) for d in found] == [(path, "error")]
    assert f"{field} is {kind}" in found[0].message and found[0].hint.startswith(f"write {field} as a mapping")
    assert result.counts.invalid == 1


def test_csv_and_parquet_datasets_are_errors_with_the_import_hint() -> None:
    for suffix in ("csv", "parquet"):
        text = VALID.replace("    inline:", f"    url: https://data.example.com/set.{suffix}\n    inline:")
        text = text.split("    inline:")[0]
        result = validate_text(text + "  aiGatewayRef: {name: gw}\n", "t.yaml")
        [d] = [d for d in result.diagnostics if d.rule == "semantic/dataset-format-converted"]
        assert d.severity.value == "error" and "kubectl testbench import" in d.hint
        assert result.counts.invalid == 1


def test_semantic_spec_missing() -> None:
    text = VALID.split("spec:")[0]
    assert findings(text) == [("semantic/spec-missing", "spec")]


def test_semantic_no_judge_model_is_an_error_only_when_there_are_metrics() -> None:
    """Issue 21's phase run: without llm_as_a_judge_model the evaluate phase builds every metric with
    llm_factory("") and ragas refuses it ("model parameter is required"), even for ToolCallAccuracy, which never
    asks the judge; every metric records score null (``inline:`` is line 10 of VALID)."""
    without = VALID.replace("      llmAsAJudgeModel: gpt-4o-mini\n", "")
    [finding] = [d for d in validate_text(without, "t.yaml").diagnostics if d.rule == "semantic/no-judge-model"]
    assert (finding.path, finding.line, finding.severity.value) == ("spec.dataset.inline", 10, "error")
    assert "llmAsAJudgeModel" in finding.hint
    empty = VALID.replace("llmAsAJudgeModel: gpt-4o-mini", 'llmAsAJudgeModel: ""')
    assert "semantic/no-judge-model" in [d.rule for d in validate_text(empty, "t.yaml").diagnostics]
    metrics = "              metrics:\n                - metricName: AgentGoalAccuracyWithReference\n"
    no_metrics = without.replace(metrics, "")
    assert "semantic/no-judge-model" not in [d.rule for d in validate_text(no_metrics, "t.yaml").diagnostics]
    assert "semantic/no-judge-model" not in [d.rule for d in validate_text(VALID, "t.yaml").diagnostics]


@pytest.mark.parametrize(("url", "reason"), [
    ("http://[x/experiment.json", "Invalid IPv6 URL"),
    ("https://data.example.com:99999/experiment.json", "Port out of range 0-65535"),
    ("https://data.example.com:web/experiment.json", "Port could not be cast to integer value as 'web'"),
])
def test_a_url_python_cannot_split_is_a_located_error_not_an_internal_one(tmp_path: Path, url: str,
                                                                          reason: str) -> None:
    from tests.conftest import run_cli

    text = VALID.split("    inline:")[0].replace("  dataset:\n", f'  dataset:\n    url: "{url}"\n')
    path = tmp_path / "e.yaml"
    path.write_text(text)
    line = text.splitlines().index(f'    url: "{url}"') + 1
    result = run_cli("validate", str(path))
    assert result.exit_code == 1
    assert (f'{path}:{line}:10: error[semantic/url] spec.dataset.url: Invalid value: "{url}": not a URL ({reason})\n'
            "  hint: write an absolute http(s) URL; an IPv6 host goes in brackets: http://[::1]:8080/experiment.json"
            ) in result.output
