"""A valid starter Experiment for ``kubectl testbench init``: every dataset mode, sensible metrics."""

from __future__ import annotations

from typing import Any

from kubectl_testbench.layout import MINIO_DEFAULT, MINIO_ENDPOINT_ENV
from kubectl_testbench.model.constants import API_VERSION, DEFAULT_JUDGE_MODEL, KIND

DEFAULT_BUCKET = "datasets"
"""The bucket of ``init --dataset s3`` without ``--s3-bucket``."""
SCHEMA_COMMENT = "# yaml-language-server: $schema=https://agentic-layer.github.io/kubectl-testbench/schemas/experiment.schema.json\n"


def starter(name: str, agent: str, *, namespace: str | None = None, agent_namespace: str | None = None,
            dataset: str = "inline", gateway: str | None = None, gateway_namespace: str | None = None,
            schedule: str | None = None, timezone: str | None = None, trigger: bool = False,
            s3_bucket: str | None = None, s3_key: str | None = None) -> dict[str, Any]:
    """The Experiment as data, in the field order people read it (metadata, agent, dataset, ...).

    ``s3_bucket``/``s3_key``: where an S3 dataset lives (default: bucket ``datasets``, key ``NAME/experiment.json``,
    the layout ``import --dataset-out`` suggests)."""
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    spec: dict[str, Any] = {"agentRef": {"name": agent}}
    if agent_namespace:
        spec["agentRef"]["namespace"] = agent_namespace
    if gateway:
        spec["aiGatewayRef"] = {"name": gateway, **({"namespace": gateway_namespace} if gateway_namespace else {})}
    if dataset == "s3":
        # where the setup phase downloads from, written out (its default: Testkube's bundled MinIO) so that it is
        # seen and changed; credentials stay the phase's defaults until a Secret is named (docs/dataset.md)
        spec["env"] = [{"name": MINIO_ENDPOINT_ENV, "value": MINIO_DEFAULT}]
        spec["dataset"] = {"s3": {"bucket": s3_bucket if s3_bucket is not None else DEFAULT_BUCKET,
                                   "key": s3_key if s3_key is not None else f"{name}/experiment.json"}}
    elif dataset == "url":
        spec["dataset"] = {"url": f"https://example.com/datasets/{name}/experiment.json"}
    else:
        spec["dataset"] = {"inline": {
            "llmAsAJudgeModel": DEFAULT_JUDGE_MODEL,
            "defaultThreshold": 0.8,
            "scenarios": [{
                "name": "Greets the user",
                "steps": [{
                    "input": "Hello! What can you help me with?",
                    "reference": {"response": "A short, friendly summary of what the agent can do."},
                    "metrics": [{"metricName": "AgentGoalAccuracyWithReference"},
                                {"metricName": "AnswerAccuracy", "threshold": 0.7}],
                }],
            }],
        }}
    if schedule:
        spec["schedule"] = {"cron": schedule, **({"timezone": timezone} if timezone else {})}
    if trigger:
        spec["trigger"] = {"enabled": True, "concurrencyPolicy": "Forbid"}
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec}
