"""Where each render setting comes from, resolved in one place with one documented precedence.

For every Experiment: its annotation  >  the command-line flag  >  the defaults file  >  built-in default.
(The annotation is the most specific statement, so it wins; the CRD stays unchanged because settings
that the cluster would look up live in ``testbench.agentic-layer.ai/*`` annotations.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.layout import TESTKUBE_NAMESPACE
from kubectl_testbench.model.constants import (
    ANNOTATION_AGENT_URL,
    ANNOTATION_GATEWAY_PORT,
    ANNOTATION_GATEWAY_URL,
    DEFAULT_NAMESPACE,
)
from kubectl_testbench.model.render_settings import (
    DEFAULT_AGENT_PORT,
    DEFAULT_AGENT_URL,
    DEFAULT_GATEWAY_NAMESPACE,
    DEFAULT_GATEWAY_PORT,
    DEFAULT_GATEWAY_URL,
    DEFAULTS_FILE_SETTINGS,
)
from kubectl_testbench.model.url_templates import fill

JUDGE_API_KEY_ENV = "OPENAI_API_KEY"
OTLP_ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
"""Where the run phase's span exporter (opentelemetry-exporter-otlp-proto-http) finds its endpoint."""
OTEL_SDK_DISABLED = "OTEL_SDK_DISABLED"
"""OpenTelemetry's switch: ``true`` makes the SDK's tracer provider hand out no-op tracers (nothing exported)."""


@dataclass(frozen=True)
class Flags:
    """Per-invocation settings from the command line (None: not given)."""

    namespace: str = DEFAULT_NAMESPACE
    testkube_namespace: str | None = None
    agent_url: str | None = None
    agent_port: int | None = None
    gateway_url: str | None = None
    gateway_port: int | None = None
    include_experiment: bool = False
    argocd_sync_waves: bool | None = None


@dataclass(frozen=True)
class Defaults:
    """A parsed RenderDefaults file (all optional)."""

    testkube_namespace: str | None = None
    agent_port: int | None = None
    agent_url: str | None = None
    gateway_name: str | None = None
    gateway_namespace: str | None = None
    gateway_port: int | None = None
    gateway_url: str | None = None
    gateway_api_key_secret: tuple[str, str] | None = None
    """(Secret name, key) of the judge's API key."""
    env: tuple[dict[str, Any], ...] = ()
    argocd_sync_waves: bool | None = None
    source: str = ""

    @classmethod
    def from_spec(cls, spec: dict[str, Any], source: str) -> Defaults:
        """The settings of a RenderDefaults ``spec``, at the keys the table of render settings names."""
        return cls(**{s.name: s.from_defaults(spec) for s in DEFAULTS_FILE_SETTINGS}, source=source)

    @property
    def names_gateway(self) -> bool:
        """The file names a default AI gateway (as the operator finds the first AiGateway in ai-gateway)."""
        return bool(self.gateway_name)

    @property
    def sets_minio(self) -> bool:
        """The file's env sets one of the setup phase's MinIO settings (MINIO_ENDPOINT, MINIO_ROOT_USER,
        MINIO_ROOT_PASSWORD): then ``semantic/s3-default-minio`` does not apply to the Experiments it renders."""
        from kubectl_testbench.layout import MINIO_SETTINGS

        return any(e.get("name") in MINIO_SETTINGS for e in self.env)

    def base_env(self) -> list[dict[str, Any]]:
        """The file's env, after the judge key from ``aiGateway.apiKeySecretRef`` (an explicit env entry of the
        same name wins over it)."""
        env = list(self.env)
        if self.gateway_api_key_secret and all(e.get("name") != JUDGE_API_KEY_ENV for e in env):
            name, key = self.gateway_api_key_secret
            env.insert(0, {"name": JUDGE_API_KEY_ENV, "valueFrom": {"secretKeyRef": {"name": name, "key": key}}})
        return env


@dataclass(frozen=True)
class Resolved:
    """Everything render needs for one Experiment beyond the Experiment itself."""

    namespace: str
    testkube_namespace: str
    agent_url: str
    gateway_url: str | None
    env: list[dict[str, Any]] = field(default_factory=list)
    sync_waves: bool = False


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def resolve(experiment: dict[str, Any], flags: Flags, defaults: Defaults | None) -> Resolved:
    """Apply the precedence annotation > flag > defaults file > built-in, for one Experiment."""
    d = defaults or Defaults()
    meta = experiment.get("metadata") or {}
    spec = experiment.get("spec") or {}
    annotations = meta.get("annotations") or {}
    namespace = meta.get("namespace") or flags.namespace

    agent = spec.get("agentRef") or {}
    agent_ns = agent.get("namespace") or namespace
    agent_port = _first(flags.agent_port, d.agent_port, DEFAULT_AGENT_PORT)
    agent_template = _first(annotations.get(ANNOTATION_AGENT_URL), flags.agent_url, d.agent_url, DEFAULT_AGENT_URL)
    agent_url = fill(agent_template, name=agent.get("name", ""), namespace=agent_ns, port=agent_port)

    gateway_url: str | None = None
    ref = spec.get("aiGatewayRef")
    gw_name = (ref or {}).get("name") or (d.gateway_name if ref is None else None)
    if gw_name:
        gw_ns = (ref or {}).get("namespace") or (namespace if ref else None) or d.gateway_namespace \
            or DEFAULT_GATEWAY_NAMESPACE
        port_text = annotations.get(ANNOTATION_GATEWAY_PORT)
        gw_port = _first(int(port_text) if port_text and port_text.isdigit() else None, flags.gateway_port,
                         d.gateway_port, DEFAULT_GATEWAY_PORT)
        template = _first(annotations.get(ANNOTATION_GATEWAY_URL), flags.gateway_url, d.gateway_url,
                          DEFAULT_GATEWAY_URL)
        gateway_url = fill(template, name=gw_name, namespace=gw_ns, port=gw_port)
    elif annotations.get(ANNOTATION_GATEWAY_URL):
        gateway_url = annotations[ANNOTATION_GATEWAY_URL]

    return Resolved(
        namespace=namespace,
        testkube_namespace=_first(flags.testkube_namespace, d.testkube_namespace, TESTKUBE_NAMESPACE),
        agent_url=agent_url,
        gateway_url=gateway_url,
        env=with_tracing_switch(merge_env(d.base_env(), list(spec.get("env") or ()))),
        sync_waves=bool(_first(flags.argocd_sync_waves, d.argocd_sync_waves, False)),
    )


def merge_env(defaults: list[dict[str, Any]], own: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Defaults first (minus names the Experiment sets), then the Experiment's env in its order."""
    names = {e.get("name") for e in own}
    return [e for e in defaults if e.get("name") not in names] + own


def with_tracing_switch(env: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``env`` plus ``OTEL_SDK_DISABLED=true`` when it names no OTLP endpoint (and does not set the switch itself).

    The run phase always installs an OTLP span exporter (testbench/otel_setup.py in agentic-layer-testbench
    0.10.0); without an endpoint it exports to ``localhost:4318``, where nothing listens in a Testkube pod, and
    each span waits out the exporter's retries (measured: 44 s for one step, 0.9 s with the SDK disabled). With
    no endpoint there is nothing to send traces to, so disabling the SDK loses nothing. An entry set from a
    reference counts as an endpoint: its value is only known in the cluster.
    """
    def sets(name: str) -> bool:
        return any(e.get("name") == name and (e.get("value") or e.get("valueFrom")) for e in env)

    if any(sets(name) for name in (*OTLP_ENDPOINT_ENVS, OTEL_SDK_DISABLED)):
        return env
    return [*env, {"name": OTEL_SDK_DISABLED, "value": "true"}]
