"""The three objects an Experiment compiles to, each a pure function of the Experiment and its settings."""

from __future__ import annotations

from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.model import naming
from kubectl_testbench.model.experiment_json import CONFIGMAP_KEY, experiment_json
from kubectl_testbench.render.escape import literal, literal_env
from kubectl_testbench.render.settings import Resolved

TESTWORKFLOW_API = "testworkflows.testkube.io/v1"
TESTTRIGGER_API = "tests.testkube.io/v1"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
WAVES = {"ConfigMap": "0", "TestWorkflow": "1", "TestTrigger": "2"}
JUDGE_API_KEY = "testbench"
"""What the operator passes as ``openAiApiKey`` with every gateway it resolves (experiment_controller.go@a8e16f1):
the judge client is ``AsyncOpenAI()`` and openai >= 2.34 refuses an empty key, so a base path without a key
scores nothing. Gateways that check keys get a real one from a Secret (RenderDefaults
``aiGateway.apiKeySecretRef`` or the Experiment's ``spec.env``), which overrides this placeholder."""
ENV_SOURCE_FIELDS: dict[str, tuple[str, ...]] = {
    "secretKeyRef": ("name", "key", "optional"),
    "configMapKeyRef": ("name", "key", "optional"),
    "fieldRef": ("fieldPath",),
}
"""The ``valueFrom`` fields the operator copies into ``spec.container.env`` (experiment_controller.go@a8e16f1).
Sources it drops (``resourceFieldRef``, ``fileKeyRef``) are kept whole here: dropped, the variable would
silently arrive empty (docs/render.md lists the deviation)."""
TRIGGER_CONDITIONS: dict[str, Any] = {
    "timeout": 100,
    "delay": 2,
    "conditions": [
        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "ttl": 60},
        {"type": "Available", "status": "True"},
    ],
}
"""Wait for the agent's rollout to finish before running, as the operator's trigger does."""


def _metadata(name: str, exp_name: str, exp_ns: str, resource_type: str, kind: str,
              settings: Resolved) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": settings.testkube_namespace,
        "labels": naming.labels(exp_name, exp_ns, resource_type),
    }
    if settings.sync_waves:
        meta["annotations"] = {SYNC_WAVE: WAVES[kind]}
    return meta


def dataset_configmap(experiment: dict[str, Any], settings: Resolved) -> dict[str, Any] | None:
    """The ConfigMap holding ``experiment.json``, for inline datasets only."""
    inline = experiment["spec"]["dataset"].get("inline")
    if inline is None:
        return None
    name, ns = experiment["metadata"]["name"], settings.namespace
    cm_name = naming.resource_name(name, ns, naming.SUFFIX_DATASET)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(cm_name, name, ns, naming.RESOURCE_DATASET, "ConfigMap", settings),
        "data": {CONFIGMAP_KEY: experiment_json(inline)},
    }


def _config(**values: str) -> dict[str, str]:
    """``use[].config`` values: int-or-string on the wire, always written as literal strings."""
    return {k: literal(v) for k, v in values.items()}


def dataset_url(dataset: dict[str, Any]) -> str | None:
    """The operator's ``resolveDatasetURL``: the url as given, or ``s3://<bucket>/<key>``; None when inline."""
    if dataset.get("url"):
        return str(dataset["url"])
    s3 = dataset.get("s3")
    if s3 is not None:
        return f"s3://{s3['bucket']}/{s3['key']}"
    return None


def phases(experiment: dict[str, Any], settings: Resolved) -> list[dict[str, Any]]:
    """``spec.use``: the phase templates in the operator's order, each with exactly the operator's config."""
    exp_name = experiment["metadata"]["name"]
    use: list[dict[str, Any]] = []
    url = dataset_url(experiment["spec"]["dataset"])
    if url is not None:
        use.append({"name": layout.SETUP_TEMPLATE, "config": _config(datasetUrl=url)})
    use.append({"name": layout.RUN_TEMPLATE, "config": _config(agentUrl=settings.agent_url, experimentName=exp_name)})
    evaluate: dict[str, Any] = {"name": layout.EVALUATE_TEMPLATE}
    if settings.gateway_url:
        evaluate["config"] = _config(openAiBasePath=settings.gateway_url, openAiApiKey=JUDGE_API_KEY)
    use.append(evaluate)
    use.append({"name": layout.PUBLISH_TEMPLATE, "config": _config(experimentName=exp_name)})
    use.append({"name": layout.VISUALIZE_TEMPLATE, "config": _config(experimentName=exp_name)})
    return use


def operator_env(entry: dict[str, Any]) -> dict[str, Any]:
    """One env entry with the fields the operator keeps: ``name``, a non-empty ``value``, and ``valueFrom``
    narrowed to :data:`ENV_SOURCE_FIELDS` (other sources kept whole)."""
    out: dict[str, Any] = {"name": entry.get("name", "")}
    if entry.get("value"):
        out["value"] = entry["value"]
    source = entry.get("valueFrom")
    if isinstance(source, dict) and source:
        narrowed: dict[str, Any] = {}
        for kind, ref in source.items():
            keep = ENV_SOURCE_FIELDS.get(kind)
            narrowed[kind] = {k: ref[k] for k in keep if k in ref} if keep and isinstance(ref, dict) else ref
        out["valueFrom"] = narrowed
    return out


def test_workflow(experiment: dict[str, Any], settings: Resolved) -> dict[str, Any]:
    """The TestWorkflow chaining the phase templates, with the dataset, env and schedule."""
    name, ns = experiment["metadata"]["name"], settings.namespace
    spec: dict[str, Any] = {}
    if experiment["spec"]["dataset"].get("inline") is not None:
        spec["content"] = {"files": [{
            "path": layout.DATASET_PATH,
            "contentFrom": {"configMapKeyRef": {
                "name": naming.resource_name(name, ns, naming.SUFFIX_DATASET), "key": CONFIGMAP_KEY}},
        }]}
    if settings.env:
        spec["container"] = {"env": literal_env([operator_env(e) for e in settings.env])}
    schedule = experiment["spec"].get("schedule")
    if schedule:
        cronjob: dict[str, Any] = {"cron": schedule["cron"]}
        if schedule.get("timezone"):
            cronjob["timezone"] = schedule["timezone"]
        spec["events"] = [{"cronjob": cronjob}]
    spec["use"] = phases(experiment, settings)
    wf_name = naming.resource_name(name, ns, naming.SUFFIX_WORKFLOW)
    return {
        "apiVersion": TESTWORKFLOW_API,
        "kind": "TestWorkflow",
        "metadata": _metadata(wf_name, name, ns, naming.RESOURCE_WORKFLOW, "TestWorkflow", settings),
        "spec": spec,
    }


def test_trigger(experiment: dict[str, Any], settings: Resolved) -> dict[str, Any] | None:
    """A TestTrigger running the workflow when the agent's Deployment changes, if the trigger is enabled."""
    trigger = experiment["spec"].get("trigger") or {}
    if trigger.get("enabled") is not True:
        return None
    name, ns = experiment["metadata"]["name"], settings.namespace
    agent = experiment["spec"]["agentRef"]
    return {
        "apiVersion": TESTTRIGGER_API,
        "kind": "TestTrigger",
        "metadata": _metadata(naming.resource_name(name, ns, naming.SUFFIX_TRIGGER), name, ns,
                              naming.RESOURCE_TRIGGER, "TestTrigger", settings),
        "spec": {
            "selector": {"matchLabels": {
                "testkube.io/resource-kind": "Deployment",
                "testkube.io/resource-name": agent["name"],
                "testkube.io/resource-namespace": agent.get("namespace") or ns,
            }},
            "event": "modified",
            "conditionSpec": TRIGGER_CONDITIONS,
            "action": "run",
            "execution": "testworkflow",
            "concurrencyPolicy": (trigger.get("concurrencyPolicy") or "Allow").lower(),
            "testSelector": {"name": naming.resource_name(name, ns, naming.SUFFIX_WORKFLOW),
                             "namespace": settings.testkube_namespace},
            "disabled": False,
        },
    }
