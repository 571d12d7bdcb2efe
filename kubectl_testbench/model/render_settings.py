"""Every render setting, declared once: its type and range, built-in default, command-line flag, RenderDefaults
key, annotation, KRM ``functionConfig`` key, Argo CD parameter and help texts.

The places that take render settings are made from this table: the click options of ``render``, ``apply``,
``diff`` and ``prune`` (cli/render_options), ``render --check``'s regenerate command (cli/render), the KRM
function's configuration keys (integrations/krm), the Argo CD plugin's parameters (integrations/argocd, and
from them plugin.yaml: :func:`plugin_parameters`), and the reading of a RenderDefaults file
(render/settings ``Defaults.from_spec``). Plain data, no click and no pydantic: validation imports it on its
start-up path.

The precedence between the sources of one setting (annotation > flag > defaults file > built-in) is applied
in one place, render/settings ``resolve``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kubectl_testbench.layout import TESTKUBE_NAMESPACE
from kubectl_testbench.model.constants import (
    ANNOTATION_AGENT_URL,
    ANNOTATION_GATEWAY_PORT,
    ANNOTATION_GATEWAY_URL,
    DEFAULT_NAMESPACE,
)

DEFAULT_AGENT_PORT = 8000
DEFAULT_GATEWAY_PORT = 80
DEFAULT_AGENT_URL = "http://{name}.{namespace}:{port}"
DEFAULT_GATEWAY_URL = "http://{name}.{namespace}.svc.cluster.local.:{port}"
"""The operator's ``buildAiGatewayServiceUrl`` (experiment_controller.go@a8e16f1): an absolute FQDN with the
trailing dot, so the resolver does not walk the Pod's DNS search list first."""
DEFAULT_GATEWAY_NAMESPACE = "ai-gateway"

PORT_MIN = 1
PORT_MAX = 65535
PORT_RANGE = f"{PORT_MIN}-{PORT_MAX}"
"""How messages name the range of a port number."""

Kind = Literal["namespace", "url", "port", "switch", "tristate", "file", "paths", "secret", "env", "text"]
"""``switch``: a flag that is off unless given; ``tristate``: a ``--x/--no-x`` pair whose absence leaves the
setting to the defaults file; ``file``: a path; ``paths``: a list of paths; ``secret``/``env``: structured
values only a RenderDefaults file holds."""


def parse_port(text: str) -> int | None:
    """``text`` as a port number, or None when it is not one (digits only, within :data:`PORT_RANGE`)."""
    return int(text) if text.isdigit() and PORT_MIN <= int(text) <= PORT_MAX else None


def _secret(value: Any) -> tuple[str, str] | None:
    return (value["name"], value["key"]) if value else None


def _env(value: Any) -> tuple[dict[str, Any], ...]:
    return tuple(value or ())


@dataclass(frozen=True)
class Setting:
    """One render setting and every name it goes by."""

    name: str
    """The Python name (``Flags``, ``Defaults`` and ``RenderArgs`` fields)."""
    kind: Kind
    default: Any = None
    """The built-in value when no source sets it."""
    flag: str | None = None
    """The command-line option of render, apply, diff and prune (``--agent-port``)."""
    help: str = ""
    """Its ``--help`` text."""
    defaults_key: tuple[str, ...] = ()
    """Where a RenderDefaults file's spec holds it (``("aiGateway", "port")``)."""
    read: Callable[[Any], Any] | None = None
    """How the RenderDefaults value becomes the setting's (default: as it is)."""
    annotation: str | None = None
    """The Experiment annotation that overrides it for one Experiment."""
    krm_key: str | None = None
    """Its key in the KRM function's ``functionConfig.data``."""
    argocd: str | None = None
    """Its Argo CD plugin parameter (also the ``ARGOCD_ENV_`` name, escaped)."""
    title: str = ""
    """The Argo CD UI's title of the parameter."""
    tooltip: str = ""
    """The Argo CD UI's tooltip of the parameter."""
    announced: str | tuple[str, ...] | None = None
    """The default plugin.yaml shows, when it is not the built-in one as text ("" leaves the setting to render's
    own layering, so a testbench-defaults.yaml still applies)."""

    def from_defaults(self, spec: dict[str, Any]) -> Any:
        """This setting's value in a RenderDefaults spec (None: not set there)."""
        value: Any = spec
        for key in self.defaults_key:
            value = (value or {}).get(key)
        return self.read(value) if self.read is not None else value

    def announcement(self) -> dict[str, object]:
        """This setting as an entry of ``parameters.static`` in the Argo CD plugin's plugin.yaml."""
        assert self.argocd is not None
        out: dict[str, object] = {"name": self.argocd, "title": self.title, "tooltip": self.tooltip}
        item_type = {"port": "number", "switch": "boolean", "tristate": "boolean"}.get(self.kind)
        if item_type is not None:
            out["itemType"] = item_type
        default = self.announced_default
        if isinstance(default, tuple):
            out["collectionType"] = "array"
            out["array"] = list(default)
        else:
            out["string"] = default
        return out

    @property
    def announced_default(self) -> str | tuple[str, ...]:
        """The default the Argo CD plugin announces for this setting."""
        if self.announced is not None:
            return self.announced
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        return "" if self.default is None else str(self.default)


SETTINGS: tuple[Setting, ...] = (
    Setting("paths", "paths", argocd="paths", title="Paths to render",
            tooltip="Files or directories with Experiments, relative to the Application's path.", announced=(".",)),
    Setting("namespace", "namespace", DEFAULT_NAMESPACE, krm_key="namespace"),
    Setting("testkube_namespace", "namespace", TESTKUBE_NAMESPACE, "--testkube-namespace",
            "Namespace of Testkube and its templates [testkube].", ("testkubeNamespace",),
            krm_key="testkube-namespace", argocd="testkube-namespace", title="Testkube namespace",
            tooltip="Namespace of Testkube and its TestWorkflowTemplates."),
    Setting("agent_url", "url", DEFAULT_AGENT_URL, "--agent-url",
            "Agent URL; {name}, {namespace}, {port} are filled in [http://{name}.{namespace}:{port}].", ("agentUrl",),
            annotation=ANNOTATION_AGENT_URL, krm_key="agent-url", argocd="agent-url", title="Agent URL template",
            tooltip="Empty: http://{name}.{namespace}:{port}. {name}, {namespace} and {port} are filled in.",
            announced=""),
    Setting("agent_port", "port", DEFAULT_AGENT_PORT, "--agent-port", "Agent service port [8000].", ("agentPort",),
            krm_key="agent-port", argocd="agent-port", title="Agent port", tooltip="Service port of the agents."),
    Setting("gateway_url", "url", DEFAULT_GATEWAY_URL, "--ai-gateway-url",
            "AI gateway URL; {name}, {namespace}, {port} are filled in.", ("aiGateway", "url"),
            annotation=ANNOTATION_GATEWAY_URL, krm_key="ai-gateway-url", argocd="ai-gateway-url",
            title="AI gateway URL template", tooltip="Empty: http://{name}.{namespace}.svc.cluster.local:{port}.",
            announced=""),
    Setting("gateway_port", "port", DEFAULT_GATEWAY_PORT, "--ai-gateway-port",
            "AI gateway service port (the AiGateway's spec.port) [80].", ("aiGateway", "port"),
            annotation=ANNOTATION_GATEWAY_PORT, krm_key="ai-gateway-port", argocd="ai-gateway-port",
            title="AI gateway port", tooltip="Service port of the AI gateway (the AiGateway's spec.port)."),
    Setting("include_experiment", "switch", False, "--include-experiment", "Also emit the Experiments themselves.",
            krm_key="include-experiment", argocd="include-experiment", title="Include the Experiments",
            tooltip="Also apply the Experiment resources (needs the Experiment CRD in the cluster)."),
    Setting("argocd_sync_waves", "tristate", False, "--argocd-sync-waves",
            "Annotate objects with Argo CD sync waves: ConfigMap, then TestWorkflow, then TestTrigger.",
            ("argocdSyncWaves",), krm_key="argocd-sync-waves", argocd="argocd-sync-waves", title="Sync waves",
            tooltip="Annotate objects with sync waves: ConfigMap, then TestWorkflow, then TestTrigger."),
    Setting("defaults_file", "file", None, "--defaults",
            "A RenderDefaults file (default: the nearest testbench-defaults.yaml next to each Experiment).",
            argocd="defaults-file", title="RenderDefaults file",
            tooltip="A RenderDefaults file relative to the Application's path; empty: the nearest "
                    "testbench-defaults.yaml."),
    Setting("no_defaults", "switch", False, "--no-defaults", "Do not look for testbench-defaults.yaml files."),
    Setting("strict", "switch", False, "--strict", "Refuse to render when there are warnings.", krm_key="strict",
            argocd="strict", title="Strict", tooltip="Refuse to render when there are warnings."),
    Setting("allow_empty", "switch", False, argocd="allow-empty", title="Allow no Experiments",
            tooltip="Render nothing instead of failing when no Experiment is found (Argo CD would prune everything)."),
    Setting("gateway_name", "text", None, defaults_key=("aiGateway", "name")),
    Setting("gateway_namespace", "namespace", DEFAULT_GATEWAY_NAMESPACE, defaults_key=("aiGateway", "namespace")),
    Setting("gateway_api_key_secret", "secret", None, defaults_key=("aiGateway", "apiKeySecretRef"), read=_secret),
    Setting("env", "env", (), defaults_key=("env",), read=_env),
)
"""In the order of the command-line options, the Argo CD parameters and (within each kind) the KRM keys."""

BY_NAME = {s.name: s for s in SETTINGS}
CLI_SETTINGS = tuple(s for s in SETTINGS if s.flag)
"""The options every rendering command takes, in ``--help`` order."""
FLAG_SETTINGS = tuple(BY_NAME[n] for n in ("testkube_namespace", "agent_url", "agent_port", "gateway_url",
                                           "gateway_port", "include_experiment", "argocd_sync_waves"))
"""The settings a command line (or the KRM function, or Argo CD) gives for every Experiment: render's ``Flags``."""
DEFAULTS_FILE_SETTINGS = tuple(s for s in SETTINGS if s.defaults_key)
"""What a RenderDefaults file may set: render's ``Defaults``."""
KRM_SETTINGS = tuple(s for s in SETTINGS if s.krm_key)
ARGOCD_SETTINGS = tuple(s for s in SETTINGS if s.argocd)


def plugin_parameters() -> list[dict[str, object]]:
    """``spec.parameters.static`` of the Argo CD plugin (integrations/argocd/plugin.yaml), made from the table.

    Generated text belongs with the other generators (``kubectl_testbench/generate/``, issue 30); it lives here
    until that package exists."""
    return [s.announcement() for s in ARGOCD_SETTINGS]
