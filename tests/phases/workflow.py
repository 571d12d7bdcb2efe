"""From our rendered TestWorkflow to the PhaseSteps the harness runs, until ``render --resolve`` does it.

Only the small part of Testkube's resolution that our templates use today is done here, and anything else is
an error (so a template change cannot be silently mis-run): each ``use`` entry becomes its template's step from
``install/templates.py`` (the args and env we ship), ``{{ config.x }}`` / ``{{ config.x || "default" }}`` take
the use's config or the parameter's default, ``{{ execution.id|number }}`` the given execution, the workflow's
``spec.container.env`` comes first and the template step's env wins (docs/install.md's precedence), and
``content.files`` are mounted. In-cluster origins are then replaced by the stand-ins' (``origins``), and
``valueFrom`` env by the given ``refs``. The working directory is the templates' ``/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.install.templates import PHASES
from tests.conftest import run_cli
from tests.phases.harness import PhaseStep

_EXPRESSION = re.compile(r"\{\{\s*(.*?)\s*\}\}", re.DOTALL)
_CONFIG = re.compile(r'config\.(\w+)(?:\s*\|\|\s*"([^"]*)")?')


def render(path: str, *args: str) -> list[dict[str, Any]]:
    """``kubectl testbench render PATH -o json``: the manifests exactly as our CLI writes them."""
    result = run_cli("render", path, "-o", "json", *args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    items = data["items"] if isinstance(data, dict) else data
    return list(items)


def dataset_json(manifests: list[dict[str, Any]]) -> bytes:
    """The experiment.json of the rendered dataset ConfigMap (inline datasets)."""
    [configmap] = [m for m in manifests if m["kind"] == "ConfigMap"]
    return str(configmap["data"]["experiment.json"]).encode()


def workflow(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    [found] = [m for m in manifests if m["kind"] == "TestWorkflow"]
    return found


def _substitute(text: str, config: Mapping[str, str], execution: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("execution."):
            return execution[expression.removeprefix("execution.")]
        config_match = _CONFIG.fullmatch(expression)
        if config_match is None:
            raise ValueError(f"expression {{{{ {expression} }}}} is beyond this stand-in resolver: "
                             "use render --resolve")
        value, default = config.get(config_match.group(1), ""), config_match.group(2)
        return value if default is None else (value or default)

    return _EXPRESSION.sub(one, text)


def _swap_origins(value: str, origins: Mapping[str, str]) -> str:
    for original, replacement in origins.items():
        if value.startswith(original):
            return replacement + value[len(original):]
    return value


def phase_steps(manifests: list[dict[str, Any]], *, origins: Mapping[str, str],
                refs: Mapping[tuple[str, str], str] | None = None, files: Mapping[str, bytes] | None = None,
                execution_id: str = "stand-in-execution", execution_number: str = "1",
                step_env: Mapping[str, Mapping[str, str]] | None = None) -> list[PhaseStep]:
    """The steps the rendered workflow runs. ``files`` holds the bytes of each ``content.files`` entry by path
    (default: the rendered dataset ConfigMap); ``step_env`` overrides env per template (e.g. the API key fix)."""
    wf = workflow(manifests)
    spec = wf["spec"]
    container_env: dict[str, str] = {}
    for entry in (spec.get("container") or {}).get("env", []):
        if "value" in entry:
            container_env[entry["name"]] = _swap_origins(entry["value"], origins)
        else:
            source = entry["valueFrom"].get("secretKeyRef") or entry["valueFrom"].get("configMapKeyRef")
            container_env[entry["name"]] = (refs or {})[(source["name"], source["key"])]
    mounted: dict[str, bytes] = {}
    for entry in (spec.get("content") or {}).get("files", []):
        mounted[entry["path"]] = (files or {}).get(entry["path"]) or dataset_json(manifests)
    execution = {"id": execution_id, "number": execution_number}
    steps: list[PhaseStep] = []
    for use in spec["use"]:
        phase = PHASES[use["name"]]
        config = {p.name: p.default for p in phase.parameters if p.default is not None}
        config.update({k: str(v) for k, v in (use.get("config") or {}).items()})
        undeclared = set(use.get("config") or {}) - {p.name for p in phase.parameters}
        if undeclared:
            raise ValueError(f"{use['name']} does not declare {sorted(undeclared)}")
        args = tuple(_swap_origins(_substitute(a, config, execution), origins) for a in phase.args)
        env = {**container_env, **{k: _swap_origins(_substitute(v, config, execution), origins)
                                   for k, v in phase.env}}
        env.update((step_env or {}).get(use["name"], {}))
        steps.append(PhaseStep(name=phase.step, argv=args, env=env, working_dir=layout.WORKING_DIR,
                               files=mounted))
    return steps


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def in_cluster_origins(manifests: list[dict[str, Any]]) -> dict[str, str]:
    """The in-cluster (and dataset) origins the rendered workflow reaches, by role: agent, judge, otlp, s3, url."""
    spec = workflow(manifests)["spec"]
    found: dict[str, str] = {}
    for use in spec["use"]:
        config = use.get("config") or {}
        for key, role in (("agentUrl", "agent"), ("openAiBasePath", "judge"), ("url", "url")):
            if key in config:
                found[role] = origin(config[key])
    for entry in (spec.get("container") or {}).get("env", []):
        for name, role in (("OTEL_EXPORTER_OTLP_ENDPOINT", "otlp"), ("MINIO_ENDPOINT", "s3")):
            if entry["name"] == name and "value" in entry:
                found[role] = origin(entry["value"])
    return found
