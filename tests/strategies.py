"""Hypothesis strategies that generate valid Experiments (as data), for property-based tests."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st

from kubectl_testbench.validate.metrics import NEEDS

dns_label = st.from_regex(r"[a-z]([a-z0-9-]{0,14}[a-z0-9])?", fullmatch=True)
text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=10))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3)), max_leaves=6)
threshold = st.one_of(st.just(0), st.just(1), st.floats(0, 1, allow_nan=False).map(lambda f: round(f, 3)))


@st.composite
def steps(draw: st.DrawFn) -> dict[str, Any]:
    step: dict[str, Any] = {"input": draw(text)}
    reference: dict[str, Any] = {}
    if draw(st.booleans()):
        reference["response"] = draw(text)
    if draw(st.booleans()):
        reference["toolCalls"] = draw(st.lists(st.fixed_dictionaries(
            {"name": dns_label}, optional={"args": st.dictionaries(st.text(min_size=1, max_size=5), json_scalar,
                                                                   max_size=3)}), min_size=1, max_size=2))
    if draw(st.booleans()):
        reference["topics"] = draw(st.lists(text, min_size=1, max_size=2))
    if draw(st.booleans()):
        reference["retrievedContexts"] = draw(st.lists(text, min_size=1, max_size=2))
    if reference:
        step["reference"] = reference
    usable = sorted(m for m, needs in NEEDS.items() if all(reference.get(n) for n in needs) and m not in (
        "TopicAdherenceScore", "ResponseRelevancy"))
    metrics = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=2, unique=True))
    step["metrics"] = [{"metricName": m, **({"threshold": draw(threshold)} if draw(st.booleans()) else {})}
                       for m in metrics]
    if draw(st.booleans()):
        step["customValues"] = draw(st.dictionaries(st.text(min_size=1, max_size=5), json_value, max_size=2))
    return step


@st.composite
def datasets(draw: st.DrawFn) -> dict[str, Any]:
    mode = draw(st.sampled_from(["inline", "s3", "url"]))
    if mode == "s3":
        return {"s3": {"bucket": draw(st.from_regex(r"[a-z0-9][a-z0-9-]{2,20}[a-z0-9]", fullmatch=True)),
                       "key": draw(dns_label) + "/" + draw(dns_label) + ".json"}}
    if mode == "url":
        return {"url": f"https://{draw(dns_label)}.example.com/{draw(dns_label)}.json"}
    names = draw(st.lists(text, min_size=1, max_size=3, unique=True))
    inline: dict[str, Any] = {"scenarios": [{"name": n, "steps": draw(st.lists(steps(), min_size=1, max_size=3))}
                                            for n in names]}
    if draw(st.booleans()):
        inline["defaultThreshold"] = draw(threshold)
    # always set: without a judge model no metric scores (semantic/no-judge-model is an error)
    inline["llmAsAJudgeModel"] = draw(st.sampled_from(["gpt-4o-mini", "gemini-2.5-flash-lite"]))
    return {"inline": inline}


@st.composite
def experiments(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"agentRef": {"name": draw(dns_label)}, "dataset": draw(datasets())}
    if draw(st.booleans()):
        spec["agentRef"]["namespace"] = draw(dns_label)
    if draw(st.booleans()):
        spec["aiGatewayRef"] = {"name": draw(dns_label), "namespace": draw(dns_label)}
    if draw(st.booleans()):
        spec["env"] = [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": f"http://{draw(dns_label)}:4318"},
                       {"name": "OPENAI_API_KEY", "valueFrom": {"secretKeyRef": {"name": "llm", "key": "key"}}}]
    if draw(st.booleans()):
        spec["schedule"] = {"cron": draw(st.sampled_from(["0 3 * * *", "*/15 * * * *", "0 9-17 * * MON-FRI"]))}
        if draw(st.booleans()):
            spec["schedule"]["timezone"] = draw(st.sampled_from(["UTC", "Europe/Berlin", "America/New_York"]))
    if draw(st.booleans()):
        spec["trigger"] = {"enabled": True, "concurrencyPolicy": draw(st.sampled_from(["Allow", "Forbid", "Replace"]))}
    return {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
            "metadata": {"name": draw(dns_label), "namespace": draw(dns_label)}, "spec": spec}
