"""The Grafana dashboards ``install`` ships, as one ConfigMap a Grafana dashboard sidecar discovers."""

from __future__ import annotations

from typing import Any

from kubectl_testbench.install import dashboard as trends
from kubectl_testbench.install import dashboard_execution as execution

CONFIGMAP_NAME = "grafana-testkube-dashboard"
DEFAULT_NAMESPACE = "monitoring"
SIDECAR_LABEL = "grafana_dashboard"


def configmap(namespace: str = DEFAULT_NAMESPACE) -> dict[str, Any]:
    """The ConfigMap a Grafana dashboard sidecar (label ``grafana_dashboard: "1"``) picks up: the evaluation
    trends (:mod:`dashboard`) and the execution details (:mod:`dashboard_execution`). Upstream's third, a
    Testkube overview, charts Testkube's own metrics and is left to Testkube (docs/metrics.md)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": CONFIGMAP_NAME,
            "namespace": namespace,
            "labels": {
                "app.kubernetes.io/name": "testbench",
                "app.kubernetes.io/part-of": "testbench",
                "app.kubernetes.io/component": "dashboard",
                "app.kubernetes.io/managed-by": "kubectl-testbench",
                SIDECAR_LABEL: "1",
            },
            "annotations": {
                # The JSON holds Grafana's ${datasource}: keep Flux's postBuild substitution away from it.
                "kustomize.toolkit.fluxcd.io/substitute": "disabled",
            },
        },
        "data": {trends.CONFIGMAP_KEY: trends.dashboard_json(), execution.CONFIGMAP_KEY: execution.dashboard_json()},
    }
