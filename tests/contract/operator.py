"""The TestWorkflow spec the upstream operator builds, restated from experiment_controller.go@a8e16f1
(``buildTestWorkflow``) in our own words: what ``install --mode operator`` runs against our templates.

The AI gateway is what the operator would find in the cluster: ``spec.aiGatewayRef``, or else the first
AiGateway in namespace ``ai-gateway`` (``resolveAiGateway``); the test gives the one a cluster with the agentic
layer has (``ai-gateway`` in ``ai-gateway``, port 80). With a gateway it always passes ``openAiApiKey:
"testbench"``.
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_testbench.model import naming
from kubectl_testbench.model.experiment_json import experiment_document

DEFAULT_GATEWAY = ("ai-gateway", "ai-gateway", 80)


def operator_objects(experiment: dict[str, Any], gateway: tuple[str, str, int] | None = DEFAULT_GATEWAY
                     ) -> list[dict[str, Any]]:
    """The dataset ConfigMap (inline only) and the TestWorkflow the operator creates for ``experiment``."""
    meta, spec = experiment["metadata"], experiment["spec"]
    name, namespace = meta["name"], meta.get("namespace", "default")
    dataset = spec["dataset"]
    uses: list[dict[str, Any]] = []
    if dataset.get("inline") is None:
        url = dataset.get("url") or f"s3://{dataset['s3']['bucket']}/{dataset['s3']['key']}"
        uses.append({"name": "setup-template", "config": {"datasetUrl": url}})
    agent = spec["agentRef"]
    uses.append({"name": "run-template", "config": {
        "agentUrl": f"http://{agent['name']}.{agent.get('namespace') or namespace}:8000", "experimentName": name}})
    evaluate: dict[str, Any] = {"name": "evaluate-template"}
    ref = spec.get("aiGatewayRef")
    found = (ref["name"], ref.get("namespace") or namespace, DEFAULT_GATEWAY[2]) if ref else gateway
    if found is not None:
        evaluate["config"] = {"openAiBasePath": f"http://{found[0]}.{found[1]}.svc.cluster.local.:{found[2]}",
                              "openAiApiKey": "testbench"}
    uses += [evaluate, {"name": "publish-template", "config": {"experimentName": name}},
             {"name": "visualize-template", "config": {"experimentName": name}}]
    wf_spec: dict[str, Any] = {"use": uses}
    if spec.get("env"):
        wf_spec["container"] = {"env": [_env(e) for e in spec["env"]]}
    if spec.get("schedule"):
        cronjob = {"cron": spec["schedule"]["cron"]}
        if spec["schedule"].get("timezone"):
            cronjob["timezone"] = spec["schedule"]["timezone"]
        wf_spec["events"] = [{"cronjob": cronjob}]
    objects: list[dict[str, Any]] = []
    if dataset.get("inline") is not None:
        cm_name = naming.resource_name(name, namespace, naming.SUFFIX_DATASET)
        wf_spec["content"] = {"files": [{"path": "/data/datasets/experiment.json", "contentFrom": {
            "configMapKeyRef": {"name": cm_name, "key": "experiment.json"}}}]}
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": cm_name, "namespace": "testkube"},
                        "data": {"experiment.json": operator_experiment_json(dataset["inline"])}})
    objects.append({"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflow",
                    "metadata": {"name": naming.resource_name(name, namespace, naming.SUFFIX_WORKFLOW),
                                 "namespace": "testkube"}, "spec": wf_spec})
    return objects


def operator_experiment_json(inline: dict[str, Any]) -> str:
    """The operator's experiment.json content (not its exact bytes): like render's, except that it omits
    ``args`` of tool calls without arguments and drops ``threshold: 0`` (Go ``omitempty``)."""
    document = experiment_document(inline)
    for scenario, source in zip(document["scenarios"], inline["scenarios"], strict=True):
        for step, step_source in zip(scenario["steps"], source["steps"], strict=True):
            calls = (step_source.get("reference") or {}).get("toolCalls") or []
            for call, call_source in zip(step.get("reference", {}).get("tool_calls", []), calls, strict=True):
                if call_source.get("args") is None:
                    del call["args"]
            for metric in step.get("metrics", []):
                if metric.get("threshold") == 0:
                    del metric["threshold"]
    return json.dumps(document, indent=2)


def _env(entry: dict[str, Any]) -> dict[str, Any]:
    """The operator copies name, a non-empty value, and secretKeyRef/configMapKeyRef/fieldRef (verbatim text:
    it escapes nothing)."""
    out: dict[str, Any] = {"name": entry["name"]}
    if entry.get("value"):
        out["value"] = entry["value"]
    source = entry.get("valueFrom") or {}
    kept = {k: v for k, v in source.items() if k in ("secretKeyRef", "configMapKeyRef")}
    if "fieldRef" in source:
        kept["fieldRef"] = {"fieldPath": source["fieldRef"]["fieldPath"]}
    if kept:
        out["valueFrom"] = kept
    return out
