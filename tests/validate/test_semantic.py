"""Semantic rules not covered by the corpus, one test per rule id."""

from __future__ import annotations

import json

from kubectl_testbench.render import naming
from kubectl_testbench.validate.engine import validate_text
from kubectl_testbench.validate.semantic import CHECKS
from tests.validate.helpers import VALID


def findings(text: str) -> list[tuple[str, str]]:
    return [(d.rule, d.path) for d in validate_text(text, "t.yaml").diagnostics]


def test_every_registered_rule_is_in_the_rule_table() -> None:
    from kubectl_testbench.validate.rules import RULES

    for rules, _, _ in CHECKS:
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


def test_semantic_env_shadowed_by_the_evaluate_step() -> None:
    text = VALID.replace("  dataset:", "  env:\n    - name: OPENAI_API_KEY\n      valueFrom:\n"
                         "        secretKeyRef: {name: judge, key: key}\n  dataset:")
    assert findings(text) == [("semantic/env-shadowed", "spec.env[0].name")]


def test_semantic_spec_missing() -> None:
    text = VALID.split("spec:")[0]
    assert findings(text) == [("semantic/spec-missing", "spec")]
