"""Argo CD config-management plugin (CMP v2): the parameters an Application can set, read the way Argo CD sends them.

Argo CD runs ``generate`` in the Application's source directory with

* ``ARGOCD_APP_NAME``, ``ARGOCD_APP_NAMESPACE`` (the destination namespace) and the other build variables,
* ``ARGOCD_ENV_<NAME>`` for each ``spec.source.plugin.env`` entry,
* ``ARGOCD_APP_PARAMETERS`` (JSON) and ``PARAM_<NAME>`` / ``PARAM_<NAME>_<i>`` for ``spec.source.plugin.parameters``.

Announced parameters (``parameters.static`` in plugin.yaml) only inform the UI: their defaults are never
sent, so :data:`PARAMETERS` (made from the table of render settings, model/render_settings) is the one table
of defaults, and a test keeps plugin.yaml in step with it.
Precedence for each setting: parameter > ``ARGOCD_ENV_`` variable > announced default. A default of
``""`` (or a numeric default equal to render's built-in) leaves the setting to render's own layering,
so a ``testbench-defaults.yaml`` next to the Experiments still applies.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kubectl_testbench.k8snames import dns1123_label_error
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE
from kubectl_testbench.model.render_settings import ARGOCD_SETTINGS, PORT_RANGE, Setting, parse_port
from kubectl_testbench.model.url_templates import template_problem
from kubectl_testbench.render.settings import Flags


class ParameterError(Exception):
    """Parameters or environment that cannot be used; every problem is listed, one per line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Parameter:
    """One announced parameter: a render setting as the Application names it (model/render_settings)."""

    setting: Setting

    @property
    def name(self) -> str:
        assert self.setting.argocd is not None
        return self.setting.argocd

    @property
    def default(self) -> str | tuple[str, ...]:
        return self.setting.announced_default

    @property
    def collection(self) -> str:
        return "array" if isinstance(self.default, tuple) else "string"

    @property
    def env_name(self) -> str:
        """The suffix Argo CD uses for ``PARAM_…`` and we accept for ``ARGOCD_ENV_…``."""
        return escaped(self.name)

    def announcement(self) -> dict[str, object]:
        """This parameter as an entry of ``parameters.static`` in plugin.yaml."""
        return self.setting.announcement()


PARAMETERS: tuple[Parameter, ...] = tuple(Parameter(s) for s in ARGOCD_SETTINGS)
BY_NAME = {p.name: p for p in PARAMETERS}


def escaped(name: str) -> str:
    """Argo CD's parameter-name escaping for ``PARAM_`` variables: upper case, ``[^A-Z0-9_]`` to ``_``."""
    return re.sub(r"[^A-Z0-9_]", "_", name.upper())


@dataclass(frozen=True)
class Settings:
    """What one ``generate`` call renders, and how."""

    paths: tuple[str, ...]
    flags: Flags
    defaults_file: str | None = None
    strict: bool = False
    allow_empty: bool = False
    app_name: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    """For the log line: where each non-default setting came from (``parameter`` or ``env``)."""
    warnings: tuple[str, ...] = ()
    """Things that are ignored but probably meant something (an ``ARGOCD_ENV_`` name we do not know)."""


def raw_values(env: Mapping[str, str]) -> tuple[dict[str, str | list[str]], dict[str, str], list[str]]:
    """Parameter values as Argo CD sent them, which source each came from, and what was wrong with the rest.

    ``ARGOCD_APP_PARAMETERS`` is authoritative when present (Argo CD always sets it together with the
    ``PARAM_`` variables); the ``PARAM_`` variables are read only without it, e.g. when a user runs the
    command by hand. Its JSON ``null`` is no parameters: Argo CD marshals an Application's absent
    ``plugin.parameters`` (a nil list) so when the Application names the plugin or sets only its env.
    ``ARGOCD_ENV_<NAME>`` fills what no parameter set.
    """
    values: dict[str, str | list[str]] = {}
    origin: dict[str, str] = {}
    problems: list[str] = []
    text = env.get("ARGOCD_APP_PARAMETERS")
    if text is not None and text.strip():
        try:
            entries = json.loads(text)
        except ValueError as err:
            raise ParameterError([f"ARGOCD_APP_PARAMETERS is not valid JSON: {err}"]) from None
        if entries is None:
            entries = []
        if not isinstance(entries, list):
            raise ParameterError(["ARGOCD_APP_PARAMETERS must be a JSON list of parameters"])
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                problems.append(f"ARGOCD_APP_PARAMETERS: an entry without a name: {json.dumps(entry)}")
                continue
            name = entry["name"]
            if name not in BY_NAME:
                problems.append(f"unknown parameter {name!r} (known: {', '.join(BY_NAME)})")
                continue
            if "map" in entry:
                kind = "a list" if BY_NAME[name].collection == "array" else "a single value"
                problems.append(f"parameter {name!r} takes {kind}, not a map")
                continue
            value = entry.get("array") if "array" in entry else entry.get("string")
            if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                values[name] = value
                origin[name] = "parameter"
            elif value is not None:
                problems.append(f"parameter {name!r}: expected a string or a list of strings")
    else:
        for param in PARAMETERS:
            base = "PARAM_" + param.env_name
            if base in env:
                values[param.name] = env[base]
                origin[param.name] = "parameter"
            elif f"{base}_0" in env:
                items: list[str] = []
                while f"{base}_{len(items)}" in env:
                    items.append(env[f"{base}_{len(items)}"])
                values[param.name] = items
                origin[param.name] = "parameter"
    for param in PARAMETERS:
        key = "ARGOCD_ENV_" + param.env_name
        if param.name not in values and key in env:
            values[param.name] = env[key]
            origin[param.name] = "env"
    return values, origin, problems


def unknown_env(env: Mapping[str, str]) -> list[str]:
    """A warning for each ``ARGOCD_ENV_<NAME>`` that is not one of our settings.

    Argo CD passes ``spec.source.plugin.env`` names through verbatim (``testkube-namespace`` arrives as
    ``ARGOCD_ENV_testkube-namespace``), so a misspelt or lower-case name would otherwise be ignored without
    a word while the same mistake in a parameter is an error.
    """
    import difflib

    known = {p.env_name: p for p in PARAMETERS}
    out = []
    for key in sorted(k for k in env if k.startswith("ARGOCD_ENV_")):
        name = key[len("ARGOCD_ENV_"):]
        if name in known:
            continue
        exact = known.get(escaped(name))
        if exact is not None:
            advice = f"env names are case-sensitive: name it {exact.env_name} (or use the parameter {exact.name!r})"
        else:
            close = difflib.get_close_matches(escaped(name), list(known), n=1, cutoff=0.75)
            advice = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"
        out.append(f"plugin env {name!r} (ARGOCD_ENV_{name}) is not a kubectl-testbench setting and is ignored; "
                   + advice)
    return out


def settings_from_env(env: Mapping[str, str], app_dir: str = ".") -> Settings:
    """Resolve every parameter for one ``generate`` call; raises :class:`ParameterError` listing all problems."""
    values, origin, problems = raw_values(env)

    def text(name: str) -> str | None:
        value = values.get(name)
        if value is None:
            return None
        if isinstance(value, list):
            problems.append(f"parameter {name!r} takes a single value, not a list")
            return None
        return value.strip() or None

    def boolean(name: str) -> bool:
        value = text(name)
        default = BY_NAME[name].default == "true"
        if value is None:
            return default
        lowered = value.lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        problems.append(f"parameter {name!r}: {value!r} is not true or false")
        return default

    def port(name: str) -> int | None:
        value = text(name)
        if value is None:
            return None
        number = parse_port(value)
        if number is None:
            problems.append(f"parameter {name!r}: {value!r} is not a port number ({PORT_RANGE})")
        return number

    paths = _paths(values.get("paths"), app_dir, problems)
    defaults_file = text("defaults-file")
    if defaults_file is not None:
        checked = _inside(defaults_file, app_dir, "defaults-file", problems)
        if checked is not None and not os.path.isfile(os.path.join(app_dir, checked)):
            problems.append(f"parameter 'defaults-file': {defaults_file!r} is not a file in the Application's path")
        defaults_file = checked
    sync_waves = boolean("argocd-sync-waves") if "argocd-sync-waves" in values else None
    flags = Flags(
        namespace=(env.get("ARGOCD_APP_NAMESPACE") or "").strip() or DEFAULT_NAMESPACE,
        testkube_namespace=text("testkube-namespace"),
        agent_url=text("agent-url"),
        agent_port=port("agent-port"),
        gateway_url=text("ai-gateway-url"),
        gateway_port=port("ai-gateway-port"),
        include_experiment=boolean("include-experiment"),
        argocd_sync_waves=sync_waves,
    )
    namespace_error = dns1123_label_error(flags.testkube_namespace) if flags.testkube_namespace else None
    if namespace_error is not None:
        problems.append(f"parameter 'testkube-namespace': {flags.testkube_namespace!r} is not a valid namespace: "
                        f"{namespace_error}")
    for name, template in (("agent-url", flags.agent_url), ("ai-gateway-url", flags.gateway_url)):
        problem = template_problem(template) if template is not None else None
        if problem is not None:
            problems.append(f"parameter {name!r}: {template!r}: {problem}")
    settings = Settings(paths=paths, flags=flags, defaults_file=defaults_file, strict=boolean("strict"),
                        allow_empty=boolean("allow-empty"), app_name=env.get("ARGOCD_APP_NAME", ""),
                        sources=dict(sorted(origin.items())), warnings=tuple(unknown_env(env)))
    if problems:
        raise ParameterError(problems)
    return settings


def _paths(value: str | list[str] | None, app_dir: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        items = list(BY_NAME["paths"].default)
    elif isinstance(value, str):
        items = [p.strip() for p in value.split(",") if p.strip()]
    else:
        items = [p.strip() for p in value if p.strip()]
    if not items:
        problems.append("parameter 'paths' is empty")
    out = []
    for item in items:
        checked = _inside(item, app_dir, "paths", problems)
        if checked is None:
            continue
        if not os.path.exists(os.path.join(app_dir, checked)):
            problems.append(f"parameter 'paths': {item!r} does not exist in the Application's path")
            continue
        out.append(checked)
    return tuple(out)


def _inside(path: str, app_dir: str, name: str, problems: list[str]) -> str | None:
    """``path`` normalised, if it stays inside the Application's directory (also through symlinks)."""
    if os.path.isabs(path) or path.startswith("-"):
        problems.append(f"parameter {name!r}: {path!r} must be a relative path")
        return None
    normal = os.path.normpath(path)
    root = os.path.realpath(app_dir)
    real = os.path.realpath(os.path.join(app_dir, normal))
    if normal == ".." or normal.startswith(".." + os.sep) or os.path.commonpath([root, real]) != root:
        problems.append(f"parameter {name!r}: {path!r} leaves the Application's path")
        return None
    return normal


EXEC_TIMEOUT_DEFAULT = 90.0
"""Argo CD's default for ``ARGOCD_EXEC_TIMEOUT``, which also bounds each CMP command in the sidecar."""
RPC_TIMEOUT_DEFAULT = 60.0
"""Argo CD's default repo-server RPC timeout (``controller.repo.server.timeout.seconds`` and
``server.repo.server.timeout.seconds``), which the CMP server also respects: the real limit by default."""
RPC_TIMEOUT_ENV = "KUBECTL_TESTBENCH_RPC_TIMEOUT"
"""Ours, set on the sidecar: the repo-server RPC timeout in seconds when it was raised above 60 (the sidecar
cannot see Argo CD's own setting)."""


def exec_timeout(env: Mapping[str, str], default: float = EXEC_TIMEOUT_DEFAULT) -> float:
    """``ARGOCD_EXEC_TIMEOUT`` in seconds: a Go duration (``90s``, ``2m30s``); like Argo CD's own parser, a
    value without a unit is invalid and means the default."""
    text = (env.get("ARGOCD_EXEC_TIMEOUT") or "").strip()
    if not text:
        return default
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return default
    return sum(float(n) * units[u] for n, u in parts)


def time_limit(env: Mapping[str, str]) -> float:
    """The time Argo CD really gives ``generate``: the smaller of the exec timeout and the RPC timeout.

    Argo CD's CMP docs: the CMP server respects the repo-server timeouts (default 60 s), and each command
    also times out on the sidecar's ``ARGOCD_EXEC_TIMEOUT`` (default 90 s).
    """
    text = (env.get(RPC_TIMEOUT_ENV) or "").strip()
    try:
        rpc = float(text) if text else RPC_TIMEOUT_DEFAULT
    except ValueError:
        rpc = RPC_TIMEOUT_DEFAULT
    return min(exec_timeout(env), rpc if rpc > 0 else RPC_TIMEOUT_DEFAULT)
