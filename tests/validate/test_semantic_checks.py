"""Each semantic check branch by branch, as ``run_checks`` reports it: rule, path, message, hint and fix verbatim
(the engine prints these; the CLI tests elsewhere cover positions)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_testbench.load.positions import field_path
from kubectl_testbench.validate import semantic
from kubectl_testbench.validate.semantic import CONFIGMAP_LIMIT, run_checks

BASE: dict[str, Any] = {
    "apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
    "metadata": {"name": "weather-eval", "namespace": "agents"},
    "spec": {"agentRef": {"name": "weather-agent"}, "aiGatewayRef": {"name": "ai-gateway", "namespace": "ai-gateway"},
             "dataset": {"inline": {"defaultThreshold": 0.8, "llmAsAJudgeModel": "gpt-4o-mini", "scenarios": [
                 {"name": "Forecast", "steps": [{"input": "q", "reference": {"response": "r"},
                                                 "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]}]}}}}
METRIC = "spec.dataset.inline.scenarios[0].steps[0].metrics[0].metricName"
FORMAT_HINT = "the setup phase reads .json experiment files (kubectl testbench import converts csv/parquet)"
CONVERT_HINT = "convert it with: kubectl testbench import --from csv|parquet FILE --dataset-out experiment.json"
BUCKET = "S3 bucket names are 3-63 lowercase letters, digits, dots and hyphens"
URL_HINT = "write an absolute http(s) URL; an IPv6 host goes in brackets: http://[::1]:8080/experiment.json"
ADD_METRICS = "add metrics to the steps (e.g. - metricName: AgentGoalAccuracyWithoutReference)"
EXPRESSION = ("the value contains '{{', which Testkube reads as an expression; render writes it escaped so it stays "
              "literal")
DNS_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name')")
NO_GATEWAY = ("semantic/no-gateway", "spec", "no AI gateway for the judge: the evaluate phase would call "
              "api.openai.com without an API key, skip every metric and still end green",
              "set spec.aiGatewayRef {name, namespace}, or name a default gateway in testbench-defaults.yaml "
              "(spec.aiGateway.name) as the operator finds one in namespace ai-gateway", None)


def seen(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []

    def report(rule: str, path: Any, message: str, hint: str, fix: Any = None) -> None:
        shown = None if fix is None else (fix.kind.value, field_path(fix.path), fix.value, fix.title, fix.blocked)
        out.append((rule, field_path(path), message, hint, shown))

    run_checks(doc, report)
    return out


def base() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def with_spec(**fields: Any) -> dict[str, Any]:
    doc = base()
    doc["spec"].update(fields)
    return doc


def with_dataset(**source: Any) -> dict[str, Any]:
    return with_spec(dataset=source)


def step(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][i]
    return result


def with_metric(name: str, reference: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = base()
    step(doc)["metrics"] = [{"metricName": name}]
    if reference is not None:
        step(doc)["reference"] = reference
    return doc


def test_the_base_document_is_clean() -> None:
    assert seen(base()) == []


def test_spec_missing() -> None:
    assert seen({"apiVersion": "x", "kind": "Experiment", "metadata": {"name": "a"}}) == [
        ("semantic/spec-missing", "spec", "the Experiment has no spec: there is no agent and no dataset to evaluate",
         "add spec.agentRef and spec.dataset (kubectl testbench init writes a starter)", None)]


# --- dataset source ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "message", "hint"), [
    ("http://[x/experiment.json", "not a URL (Invalid IPv6 URL)", URL_HINT),
    ("http://h:99999/e.json", "not a URL (Port out of range 0-65535)", URL_HINT),
    ("ftp://h/e.json", "must be an absolute http(s) URL", ""),
    ("s3://b/e.json", "must be an absolute http(s) URL", "for S3 or MinIO objects use spec.dataset.s3 {bucket, key}"),
    ("/e.json", "must be an absolute http(s) URL", ""),
    ("http:///e.json", "must be an absolute http(s) URL", ""),
])
def test_dataset_url_must_be_absolute_http(url: str, message: str, hint: str) -> None:
    assert seen(with_dataset(url=url)) == [("semantic/url", "spec.dataset.url", f'Invalid value: "{url}": {message}',
                                            hint, None)]


@pytest.mark.parametrize(("url", "rule", "message", "hint"), [
    ("https://h/data/E.CSV", "semantic/dataset-format-converted",
     '"/data/E.CSV" is csv: the current setup image reads only .json experiment files', CONVERT_HINT),
    ("http://h/e.parquet", "semantic/dataset-format-converted",
     '"/e.parquet" is parquet: the current setup image reads only .json experiment files', CONVERT_HINT),
    ("http://h/e.txt", "semantic/dataset-format", '"/e.txt" does not name a .json experiment file', FORMAT_HINT),
])
def test_dataset_url_names_a_json_file(url: str, rule: str, message: str, hint: str) -> None:
    assert seen(with_dataset(url=url)) == [(rule, "spec.dataset.url", message, hint, None)]
    assert seen(with_dataset(url="HTTPS://h/E.JSON")) == seen(with_dataset(url="http://h/e.json")) == []


@pytest.mark.parametrize(("bucket", "ok"), [
    ("abc", True), ("a" * 63, True), ("a.b-c", True), ("ab", False), ("a" * 64, False), ("a..b", False),
    ("Abc", False), ("abc-", False), ("-abc", False), ("a_b", False)])
def test_s3_bucket_names(bucket: str, ok: bool) -> None:
    expected = [] if ok else [("semantic/s3-bucket", "spec.dataset.s3.bucket", f'Invalid value: "{bucket}": {BUCKET}',
                               "", None)]
    assert without_minio(seen(with_dataset(s3={"bucket": bucket, "key": "k.json"}))) == expected


def without_minio(found: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The findings but the MinIO settings' warning, which every S3 dataset without env gets (tested below)."""
    return [f for f in found if f[0] != "semantic/s3-default-minio"]


def test_s3_key_names_a_json_file() -> None:
    assert without_minio(seen(with_dataset(s3={"bucket": "abc", "key": "d/k.yaml"}))) == [
        ("semantic/dataset-format", "spec.dataset.s3.key", '"d/k.yaml" does not name a .json experiment file',
         FORMAT_HINT, None)]


MINIO_WARNING = ("semantic/s3-default-minio", "spec.dataset.s3",
                 "none of MINIO_ENDPOINT, MINIO_ROOT_USER, MINIO_ROOT_PASSWORD is set: the setup phase downloads the "
                 "dataset from http://testkube-minio-service-testkube.testkube:9000 with the default credentials "
                 "minio/minio123", "set MINIO_ENDPOINT (and MINIO_ROOT_USER/MINIO_ROOT_PASSWORD from a Secret) in "
                 "spec.env, or in testbench-defaults.yaml's spec.env", None)


@pytest.mark.parametrize(("env", "warned"), [
    (None, True), ([], True), ([{"name": "OTHER", "value": "x"}], True),
    ([{"name": "MINIO_ENDPOINT", "value": "http://m:9000"}], False),
    ([{"name": "MINIO_ROOT_USER", "valueFrom": {"secretKeyRef": {"name": "s", "key": "u"}}}], False),
    ([{"name": "MINIO_ROOT_PASSWORD", "value": ""}], False),
    ("not a list", False), ([5], True)])
def test_an_s3_dataset_needs_one_minio_setting(env: Any, warned: bool) -> None:
    doc = with_dataset(s3={"bucket": "abc", "key": "k.json"})
    if env is not None:
        doc["spec"]["env"] = env
    minio = [f for f in seen(doc) if f[0] == "semantic/s3-default-minio"]
    assert minio == ([MINIO_WARNING] if warned else [])


def test_an_inline_or_url_or_broken_s3_dataset_gets_no_minio_warning() -> None:
    for source in ({"url": "https://e.com/x.json"}, {"s3": {"key": "k.json"}}, {"s3": "abc"}):
        assert [f for f in seen(with_dataset(**source)) if f[0] == "semantic/s3-default-minio"] == []
    assert [f for f in seen(base()) if f[0] == "semantic/s3-default-minio"] == []


# --- inline size: 1 MiB per ConfigMap, a warning above 90 % ------------------------------------------------------


def sized(total: int) -> dict[str, Any]:
    """A document whose rendered experiment.json plus its ConfigMap key is ``total`` bytes."""
    from kubectl_testbench.model.experiment_json import CONFIGMAP_KEY, experiment_json_size

    doc = base()
    inline = doc["spec"]["dataset"]["inline"]
    step(doc)["input"] = ""
    empty = experiment_json_size(inline) + len(CONFIGMAP_KEY)
    step(doc)["input"] = "x" * (total - empty)
    assert experiment_json_size(inline) + len(CONFIGMAP_KEY) == total
    return doc


def test_inline_size_limits() -> None:
    at = "spec.dataset.inline"
    near = int(CONFIGMAP_LIMIT * 0.9)
    assert seen(sized(near)) == []
    assert seen(sized(near + 1)) == [
        ("semantic/inline-size-near", at, f"the rendered experiment.json is {near + 1} bytes, over 90% of the "
         "1048576-byte ConfigMap limit", "consider moving the dataset to S3", None)]
    assert [f[0] for f in seen(sized(CONFIGMAP_LIMIT))] == ["semantic/inline-size-near"]
    assert seen(sized(CONFIGMAP_LIMIT + 1)) == [
        ("semantic/inline-size", at, "the rendered experiment.json is 1048577 bytes; a ConfigMap holds at most "
         "1048576 bytes", "move the dataset to S3 or a URL (spec.dataset.s3 / spec.dataset.url)", None)]


# --- metrics ----------------------------------------------------------------------------------------------------


def test_old_metric_names() -> None:
    assert seen(with_metric("ResponseRelevancy")) == [
        ("semantic/unknown-metric", METRIC, '"ResponseRelevancy" is the old name of AnswerRelevancy; '
         "ragas.metrics.collections has no ResponseRelevancy, so the evaluate phase records no score",
         '"AnswerRelevancy" cannot be scored either: use "AnswerAccuracy"', None)]
    assert seen(with_metric("TopicAdherenceScore", {"topics": ["a"]})) == [
        ("semantic/unknown-metric", METRIC, '"TopicAdherenceScore" is the old name of TopicAdherence; '
         "ragas.metrics.collections has no TopicAdherenceScore, so the evaluate phase records no score",
         'use "TopicAdherence"', None)]


def test_unscorable_metric_suggests_one_for_the_reference_the_step_has() -> None:
    assert seen(with_metric("Faithfulness", {"toolCalls": [{"name": "t", "args": {}}]})) == [
        ("semantic/unscorable-metric", METRIC, "Faithfulness never scores with agentic-layer-testbench 0.10.0: its "
         "score needs retrieved_contexts, which the evaluate phase never passes",
         'use "ToolCallAccuracy", which scores with the reference data this step has', None)]


@pytest.mark.parametrize(("name", "reference", "hint", "fix"), [
    ("toolcallaccuracy", None, 'did you mean "ToolCallAccuracy"? Metric names are RAGAS class names, case-sensitive',
     ("replace", METRIC, "ToolCallAccuracy", 'write "ToolCallAccuracy"', "")),
    ("AnswerAcuracy", None, 'did you mean "AnswerAccuracy"?', None),
    ("Zzzz", {}, 'use "AgentGoalAccuracyWithoutReference"; kubectl testbench explain metrics lists the others', None),
    ("Zzzz", {"topics": ["x"]}, 'use "TopicAdherence"; kubectl testbench explain metrics lists the others', None),
    ("faithfulness", None, 'use "AnswerAccuracy"; kubectl testbench explain metrics lists the others',
     ("replace", METRIC, None, "", "Faithfulness never scores with agentic-layer-testbench 0.10.0")),
])
def test_unknown_metric(name: str, reference: dict[str, Any] | None, hint: str, fix: Any) -> None:
    assert seen(with_metric(name, reference)) == [
        ("semantic/unknown-metric", METRIC, f'"{name}" is not a metric the evaluate phase knows', hint, fix)]


def test_a_case_slip_of_several_metrics_is_no_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(semantic.NEEDS, "TOOLCALLACCURACY", ("toolCalls",))
    [(_, _, _, _, fix)] = seen(with_metric("toolCallAccuracy"))
    assert fix == ("replace", METRIC, None, "", "several metrics match ignoring case: ToolCallAccuracy, "
                   "TOOLCALLACCURACY")


def test_metric_reference() -> None:
    assert seen(with_metric("ToolCallAccuracy", {"response": "r"})) == [
        ("semantic/metric-reference", METRIC, "ToolCallAccuracy needs reference.toolCalls, which this step does not "
         "provide, so it gets no score", 'add reference.toolCalls to the step, or use "AnswerAccuracy"', None)]


def test_metric_reference_lists_every_missing_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(semantic.NEEDS, "Both", ("response", "toolCalls"))
    assert seen(with_metric("Both", {"topics": ["t"]})) == [
        ("semantic/metric-reference", METRIC, "Both needs reference.response and reference.toolCalls, which this step "
         "does not provide, so it gets no score",
         'add reference.response and reference.toolCalls to the step, or use "TopicAdherence"', None)]


def test_judge_model_threshold_and_no_metrics() -> None:
    doc = base()
    del doc["spec"]["dataset"]["inline"]["llmAsAJudgeModel"]
    assert seen(doc) == [
        ("semantic/no-judge-model", "spec.dataset.inline", "the dataset has metrics but no llmAsAJudgeModel: the "
         "evaluate phase builds every metric with the judge model (llm_factory, even for metrics that never ask the "
         "judge) and ragas refuses an empty model, so no metric scores",
         "set spec.dataset.inline.llmAsAJudgeModel to a model the AI gateway serves (e.g. gemini-2.5-flash-lite)",
         None)]
    step(doc)["metrics"] = []
    assert seen(doc) == [("semantic/threshold-without-metrics", "spec.dataset.inline.defaultThreshold",
                          "defaultThreshold is set but no step has metrics to apply it to", ADD_METRICS, None)]
    del doc["spec"]["dataset"]["inline"]["defaultThreshold"]
    assert seen(doc) == [("semantic/no-metrics", "spec.dataset.inline.scenarios", "no step has metrics: the agent "
                          "will be run but nothing will be scored", ADD_METRICS, None)]
    doc["spec"]["dataset"]["inline"]["scenarios"] = []
    assert seen(doc) == []


def test_a_metric_without_a_name_still_counts_as_a_metric() -> None:
    doc = base()
    step(doc)["metrics"] = [{"threshold": 0.5}]
    assert seen(doc) == []


def test_duplicate_scenarios_name_the_first() -> None:
    doc = base()
    scenarios = doc["spec"]["dataset"]["inline"]["scenarios"]
    scenarios += [copy.deepcopy(scenarios[0]), {"name": "Other", "steps": []}, copy.deepcopy(scenarios[0])]
    assert seen(doc) == [
        ("semantic/duplicate-scenario", f"spec.dataset.inline.scenarios[{i}].name", 'scenario name "Forecast" is also '
         "used by scenarios[0]", "results, metrics and reports key on the scenario name: make it unique", None)
        for i in (1, 3)]


def test_objects_the_run_phase_types_as_mappings() -> None:
    doc = base()
    doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"].append(
        {"input": "q", "customValues": True, "reference": {"response": "r", "toolCalls": [
            {"name": "t", "args": [1]}, {"name": "u"}, {}, {"name": "v", "args": None}, {"name": "w", "args": {}}]},
         "metrics": [{"metricName": "ExactMatch", "parameters": 3}, {"metricName": "ExactMatch", "parameters": "p"},
                     {"metricName": "ExactMatch", "parameters": {"a": 1}}, {"metricName": "ExactMatch"}]})
    at = "spec.dataset.inline.scenarios[0].steps[1]"

    def required(field: str, where: str, kind: str, model: str) -> tuple[Any, ...]:
        return ("semantic/object-required", f"{at}{where}.{field}", f"{field} is {kind}; the run phase reads {model} "
                "as an object and rejects the whole dataset", f"write {field} as a mapping, e.g. {field}: "
                "{key: value}", None)

    assert seen(doc) == [
        required("customValues", "", "a boolean", "custom_values"),
        required("args", ".reference.toolCalls[0]", "a list", "tool_calls[].args"),
        required("parameters", ".metrics[0]", "a number", "metrics[].parameters"),
        required("parameters", ".metrics[1]", "a string", "metrics[].parameters"),
        ("semantic/tool-call-args", f"{at}.reference.toolCalls[1]", "the tool call has no args: the operator leaves "
         "them out of experiment.json and the run phase requires them", "write args: {} for a call without "
         "arguments", ("insert", f"{at}.reference.toolCalls[1].args", {}, "add args: {}", "")),
    ]
    step(doc, 1)["customValues"] = 1.5
    assert seen(doc)[0][2] == "customValues is a number; the run phase reads custom_values as an object and rejects " \
        "the whole dataset"


# --- env --------------------------------------------------------------------------------------------------------


def test_env_duplicates_and_value_sources() -> None:
    env = [{"name": "A", "value": "x"}, {"name": "A", "value": "y", "valueFrom": {"secretKeyRef": {}}},
           {"name": "B", "valueFrom": {}}, {"name": "C", "valueFrom": {"secretKeyRef": {}, "fieldRef": {}}},
           {"name": "D", "value": "", "valueFrom": {"fieldRef": {}}}, {"value": "z"}]
    one_of = "valueFrom must set exactly one of configMapKeyRef, fieldRef, fileKeyRef, resourceFieldRef, secretKeyRef"
    assert seen(with_spec(env=env)) == [
        ("semantic/duplicate-env", "spec.env[1].name", 'env "A" is also set by env[0]; only the last one takes effect',
         "remove one of them", None),
        ("semantic/env-value-and-from", "spec.env[1]", 'env "A" sets both value and valueFrom; the Pod is rejected',
         "keep only one of them", None),
        ("semantic/env-value-and-from", "spec.env[2].valueFrom", f'env "B": {one_of}', "", None),
        ("semantic/env-value-and-from", "spec.env[3].valueFrom", f'env "C": {one_of} (found fieldRef, secretKeyRef)',
         "", None),
    ]
    three = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}, {"name": "A", "value": "3"}]
    assert [f[2] for f in seen(with_spec(env=three))] == [
        f'env "A" is also set by env[{i}]; only the last one takes effect' for i in (0, 1)]


@pytest.mark.parametrize(("name", "value", "flagged"), [
    ("PASSWORD", "12345678", True), ("db_passwd", "12345678", True), ("MY_SECRET", "12345678", True),
    ("APIKEY", "12345678", True), ("ACCESS_KEY", "12345678", True), ("PRIVATEKEY", "12345678", True),
    ("CREDENTIALS", "12345678", True), ("AUTH_HEADER", "12345678", True), ("PASSWORD", "1234567", False),
    ("X", "sk-abcdefghijklmnop", True), ("X", "sk-abcdefghijklmno", False), ("X", "ghp_" + "a" * 20, True),
    ("X", "ghp_" + "a" * 19, False), ("X", "AKIA" + "A" * 16, True), ("X", "AKIA" + "A" * 15, False),
    ("X", "xoxb-" + "a" * 10, True), ("X", "AIza" + "a" * 30, True), ("X", "eyJ" + "a" * 10 + "." + "b" * 10 + ".c",
                                                                      True),
    ("X", "-----BEGIN RSA PRIVATE KEY-----\nabc", True), ("X", "plain words", False), ("X", "say sk-abcdefghijklmnop",
                                                                                         False),
])
def test_literal_secrets(name: str, value: str, flagged: bool) -> None:
    expected = [("semantic/literal-secret", "spec.env[0].value", f'env "{name}" has a literal value that looks like a '
                 "secret (value not shown)", "store it in a Secret and use valueFrom.secretKeyRef", None)]
    assert seen(with_spec(env=[{"name": name, "value": value}])) == (expected if flagged else [])


# --- gateway, URL templates, references, names, trigger, expressions ---------------------------------------------


def test_no_gateway() -> None:
    doc = base()
    del doc["spec"]["aiGatewayRef"]
    assert seen(doc) == [NO_GATEWAY]
    doc["metadata"]["annotations"] = {"testbench.agentic-layer.ai/ai-gateway-url": ""}
    assert seen(doc) == [NO_GATEWAY]
    doc["metadata"]["annotations"] = {"testbench.agentic-layer.ai/ai-gateway-url": "http://gw"}
    assert seen(doc) == []


def test_url_placeholders() -> None:
    doc = base()
    doc["metadata"]["annotations"] = {"testbench.agentic-layer.ai/agent-url": "http://{nme}.x",
                                      "testbench.agentic-layer.ai/ai-gateway-url": "http://{name}:{port}/{x}"}
    assert seen(doc) == [
        ("semantic/url-placeholder", "metadata.annotations[testbench.agentic-layer.ai/agent-url]",
         'Invalid value: "http://{nme}.x": unknown placeholder {nme} (known: {name}, {namespace}, {port}); did you '
         "mean {name}?", "write the placeholder as listed, or the URL itself", None),
        ("semantic/url-placeholder", "metadata.annotations[testbench.agentic-layer.ai/ai-gateway-url]",
         'Invalid value: "http://{name}:{port}/{x}": unknown placeholder {x} (known: {name}, {namespace}, {port})',
         "write the placeholder as listed, or the URL itself", None),
    ]


def test_references_become_hostnames() -> None:
    def hostname(field: str) -> str:
        return f"{field} becomes part of the service hostname http://<name>.<namespace>"

    assert seen(with_spec(agentRef={"name": ""}, aiGatewayRef={"namespace": "Bad_NS"})) == [
        ("semantic/dns-label", "spec.agentRef.name", "agentRef needs a name to reach the agent", "set agentRef.name",
         None),
        ("semantic/dns-label", "spec.aiGatewayRef", "aiGatewayRef needs a name to reach the gateway",
         "set aiGatewayRef.name, or remove aiGatewayRef", None),
        ("semantic/dns-label", "spec.aiGatewayRef.namespace", f'Invalid value: "Bad_NS": {DNS_LABEL}',
         hostname("aiGatewayRef.namespace"), None),
    ]
    assert seen(with_spec(agentRef={"name": "Bad.Name", "namespace": "n" * 64}, aiGatewayRef={"name": ""})) == [
        ("semantic/dns-label", "spec.agentRef.name", f'Invalid value: "Bad.Name": {DNS_LABEL}',
         hostname("agentRef.name"), None),
        ("semantic/dns-label", "spec.agentRef.namespace", f'Invalid value: "{"n" * 64}": must be no more than 63 '
         "characters", hostname("agentRef.namespace"), None),
        ("semantic/dns-label", "spec.aiGatewayRef.name", "aiGatewayRef needs a name to reach the gateway",
         "set aiGatewayRef.name, or remove aiGatewayRef", None),
    ]
    assert seen(with_spec(agentRef={}, aiGatewayRef="x")) == [
        ("semantic/dns-label", "spec.agentRef", "agentRef needs a name to reach the agent", "set agentRef.name",
         None)]


def test_the_name_becomes_a_label_value() -> None:
    doc = base()
    doc["metadata"] = {"name": "a" * 63}
    assert seen(doc) == []
    doc["metadata"] = {"name": "a" * 64, "namespace": "agents"}
    assert seen(doc) == [
        ("semantic/label-value", "metadata.name", "the name becomes the label testbench.agentic-layer.ai/"
         "experiment-name on generated resources: must be no more than 63 characters",
         "shorten the name to 63 characters or fewer", None)]
    for bad in ({"name": "A" * 64}, {"name": "a" * 64, "namespace": "Bad"}, {"name": ""}):
        doc["metadata"] = bad
        assert seen(doc) == [], bad  # the metadata rules report these


@pytest.mark.parametrize(("trigger", "inactive"), [
    ({"concurrencyPolicy": "Allow"}, True), ({"enabled": "true", "concurrencyPolicy": "Allow"}, True),
    ({"enabled": False, "concurrencyPolicy": "Allow"}, True), ({"enabled": True, "concurrencyPolicy": "Allow"}, False),
    ({"enabled": False}, False)])
def test_trigger_settings_without_enabled(trigger: dict[str, Any], inactive: bool) -> None:
    expected = [("semantic/trigger-inactive", "spec.trigger", "trigger.concurrencyPolicy is set but trigger.enabled "
                 "is not true: no TestTrigger will be created", "set trigger.enabled: true", None)]
    assert seen(with_spec(trigger=trigger)) == (expected if inactive else [])


def test_expression_text_in_every_value_that_reaches_the_workflow() -> None:
    doc = with_dataset(url="http://h/{{x}}.json", s3={"bucket": "a{{b}}", "key": "{{k}}.json"})
    doc["spec"]["env"] = [{"name": "E", "value": "{{ a }}"}, {"name": "F", "value": "{ a }"}]
    assert [f for f in seen(doc) if f[0] == "semantic/expression-text"] == [
        ("semantic/expression-text", path, EXPRESSION, "", None)
        for path in ("spec.env[0].value", "spec.dataset.url", "spec.dataset.s3.key", "spec.dataset.s3.bucket")]


def test_checks_tolerate_wrong_types_only_when_the_schema_found_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def trips(doc: dict[str, Any], report: Any) -> None:
        calls.append("trips")
        raise TypeError("a wrong type")

    def after(doc: dict[str, Any], report: Any) -> None:
        calls.append("after")

    monkeypatch.setattr(semantic, "CHECKS", [(("x/trips",), trips), (("x/after",), after)])
    with pytest.raises(TypeError):
        run_checks(base(), lambda *a, **k: None)
    calls.clear()
    run_checks(base(), lambda *a, **k: None, tolerant=True)
    assert calls == ["trips", "after"], "a check that trips is skipped, the next one still runs"


@pytest.mark.parametrize(("field", "value"), [("schedule", {"cron": 5, "timezone": ["UTC"]}),
                                               ("dataset", {"inline": "text", "url": 5, "s3": {"key": 1}}),
                                               ("env", [{"name": 5, "value": 7}])])
def test_values_of_the_wrong_type_are_left_to_the_schema(field: str, value: Any) -> None:
    """Without schema errors passed in, a check that tripped over them would raise here."""
    doc = with_spec(**{field: value})
    assert [f for f in seen(doc) if f[0] != "semantic/no-gateway"] == []


def test_two_scenarios_with_a_name_of_the_wrong_type_are_no_duplicates() -> None:
    doc = base()
    scenarios = doc["spec"]["dataset"]["inline"]["scenarios"]
    scenarios[0]["name"] = 5
    scenarios.append(copy.deepcopy(scenarios[0]))
    assert seen(doc) == []


def test_the_converted_format_is_the_last_extension() -> None:
    assert seen(with_dataset(url="https://h/v1.2/data.CSV"))[0][2] == (
        '"/v1.2/data.CSV" is csv: the current setup image reads only .json experiment files')
