"""Names of the Experiment API, importable without pydantic (the validator's start-up path)."""

from __future__ import annotations

GROUP = "testbench.agentic-layer.ai"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
KIND = "Experiment"
PLURAL = "experiments"
SINGULAR = "experiment"
SHORT_NAMES = ("exp",)
CRON_PATTERN = r"^(\S+\s){4}\S+$"
DEFAULT_NAMESPACE = "default"
"""Kubernetes' namespace of an object that names none, where no -n, kubeconfig or defaults file says otherwise."""
DEFAULTS_KIND = "RenderDefaults"
"""The kind of a RenderDefaults document (model/defaults.py holds its pydantic model)."""
DEFAULT_JUDGE_MODEL = "gemini-2.5-flash-lite"
"""The LLM judge model ``init`` writes, ``import`` falls back to and the no-judge-model hint suggests: one
name, so a hint never disagrees with the file a command wrote."""

ANNOTATION_AGENT_URL = f"{GROUP}/agent-url"
ANNOTATION_GATEWAY_URL = f"{GROUP}/ai-gateway-url"
ANNOTATION_GATEWAY_PORT = f"{GROUP}/ai-gateway-port"
"""Render settings an Experiment can carry (see render/settings.py); here so validation need not import it."""
