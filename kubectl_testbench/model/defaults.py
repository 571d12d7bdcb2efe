"""RenderDefaults: cluster-wide values render needs but an Experiment does not carry.

A GitOps repository keeps one ``testbench-defaults.yaml`` next to its Experiments (or passes
``--defaults``) with the OTLP endpoint, MinIO settings, the Testkube namespace and the AI gateway
the operator would otherwise discover in the cluster.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from kubectl_testbench.model.base import KubeModel
from kubectl_testbench.model.k8s import EnvVar
from kubectl_testbench.model.render_settings import PORT_MAX, PORT_MIN


class SecretKeyRef(KubeModel):
    """A key of a Secret in the Testkube namespace (where the TestWorkflow runs)."""

    name: Annotated[str, Field(min_length=1)]
    """Name of the Secret."""
    key: Annotated[str, Field(min_length=1)]
    """Key in the Secret whose value is the API key."""

DEFAULTS_FILE = "testbench-defaults.yaml"


class GatewayDefaults(KubeModel):
    """The AI gateway for Experiments without spec.aiGatewayRef, and how to reach gateways."""

    name: str | None = None
    """AiGateway used when an Experiment names none (the operator picks one in namespace ai-gateway)."""
    namespace: str | None = None
    """Namespace of that AiGateway (default: ai-gateway)."""
    port: Annotated[int | None, Field(ge=PORT_MIN, le=PORT_MAX)] = None
    """Service port of gateways (the AiGateway resource's spec.port; its default is 80)."""
    url: str | None = None
    """Full gateway URL; {name}, {namespace} and {port} are filled in. Overrides the port."""
    api_key_secret_ref: SecretKeyRef | None = None
    """Secret holding the judge's API key, for gateways that check one: every TestWorkflow gets OPENAI_API_KEY
from it (an Experiment's own spec.env entry of that name wins). Without it the key is the operator's
placeholder "testbench", which gateways that need no key ignore."""


class RenderDefaultsSpec(KubeModel):
    """Values for every Experiment rendered with this file; Experiment fields win over them."""

    testkube_namespace: str | None = None
    """Namespace of Testkube and its TestWorkflowTemplates (default: testkube)."""
    agent_port: Annotated[int | None, Field(ge=PORT_MIN, le=PORT_MAX)] = None
    """Port of agent services (default: 8000)."""
    agent_url: str | None = None
    """Agent URL template; {name}, {namespace} and {port} are filled in (default: http://{name}.{namespace}:{port})."""
    ai_gateway: GatewayDefaults | None = None
    """AI gateway defaults."""
    env: list[EnvVar] | None = None
    """Env for every TestWorkflow (OTEL_EXPORTER_OTLP_ENDPOINT, MINIO_ENDPOINT, ...); spec.env of an Experiment
overrides entries of the same name."""
    argocd_sync_waves: bool | None = None
    """Annotate rendered objects with Argo CD sync waves (ConfigMap, then TestWorkflow, then TestTrigger)."""


class RenderDefaults(KubeModel):
    """Cluster-wide render settings (testbench.agentic-layer.ai/v1alpha1, kind RenderDefaults)."""

    api_version: Literal["testbench.agentic-layer.ai/v1alpha1"] = "testbench.agentic-layer.ai/v1alpha1"
    kind: Literal["RenderDefaults"] = "RenderDefaults"
    metadata: dict[str, str] | None = None
    spec: RenderDefaultsSpec = RenderDefaultsSpec()
