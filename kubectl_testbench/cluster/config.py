"""Which cluster, as whom, in which namespace: resolved once, the way kubectl resolves it.

Precedence (one function, :func:`connect`):

1. ``--kubeconfig FILE`` (the file must exist), else the files in ``$KUBECONFIG`` (``:``-separated,
   missing ones ignored), else ``~/.kube/config`` if it exists, else the in-cluster service account
   (``KUBERNETES_SERVICE_HOST`` and the mounted token), else an error.
2. Context: ``--context``, else the first ``current-context`` in the kubeconfig files (kubectl's
   "first file wins" merge rule).
3. Namespace: ``-n/--namespace``, else the context's namespace, else the service account's namespace
   in a pod, else ``default``.

Reading contexts needs only PyYAML, so shell completion can list them without importing ``kubernetes``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubectl_testbench.cluster.errors import ConfigError
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE

DEFAULT_REQUEST_TIMEOUT = 30.0
"""Seconds; kubectl's default is no timeout, which turns a black-holed server into a hung CI job."""
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    """The cluster flags as given (None: not given)."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT
    """Seconds per request; None waits forever (``--request-timeout=0``)."""


@dataclass(slots=True)
class Connection:
    """A loaded client configuration plus what we resolved on the way (for messages)."""

    configuration: Any
    """``kubernetes.client.Configuration``."""
    server: str
    context: str | None
    """None in a pod (in-cluster configuration)."""
    namespace: str
    request_timeout: float | None


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from a Go duration (``90s``, ``2m``, ``1h30m``) or a bare number of seconds, as kubectl reads
    ``--request-timeout``; raises ValueError otherwise."""
    text = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    pos, total = 0, 0.0
    for match in _DURATION.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise ValueError(f"invalid duration {text!r}: use a number with a unit, e.g. 30s, 5m, 1h30m")
    return total


def kubeconfig_paths(flag: str | None) -> list[Path]:
    """The kubeconfig files to merge, in kubectl's order; empty when there are none."""
    if flag:
        path = Path(flag).expanduser()
        if not path.is_file():
            raise ConfigError(f"kubeconfig {flag} not found (--kubeconfig)")
        return [path]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [p for p in (Path(s).expanduser() for s in env.split(os.pathsep) if s) if p.is_file()]
    default = Path("~/.kube/config").expanduser()
    return [default] if default.is_file() else []


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        reason = getattr(err, "strerror", None) or type(err).__name__
        raise ConfigError(f"cannot read kubeconfig {path}: {reason}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"kubeconfig {path} is not a kubeconfig (expected a mapping)")
    return data


@dataclass(frozen=True, slots=True)
class KubeconfigView:
    """The merged contexts of a set of kubeconfig files (first definition of a name wins)."""

    paths: tuple[Path, ...]
    contexts: dict[str, dict[str, Any]]
    current: str | None


def read_kubeconfig(paths: list[Path]) -> KubeconfigView:
    contexts: dict[str, dict[str, Any]] = {}
    current: str | None = None
    for path in paths:
        data = _read(path)
        for entry in data.get("contexts") or []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                contexts.setdefault(entry["name"], entry.get("context") or {})
        if current is None and data.get("current-context"):
            current = str(data["current-context"])
    return KubeconfigView(tuple(paths), contexts, current)


def context_names(kubeconfig: str | None = None) -> list[str]:
    """Context names for completion; empty on any problem."""
    try:
        return sorted(read_kubeconfig(kubeconfig_paths(kubeconfig)).contexts)
    except ConfigError:
        return []


def in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and (SERVICE_ACCOUNT_DIR / "token").is_file()


def connect(options: ClusterOptions) -> Connection:
    """Resolve kubeconfig, context and namespace and load a client configuration (imports ``kubernetes``)."""
    paths = kubeconfig_paths(options.kubeconfig)
    if paths:
        return _from_kubeconfig(paths, options)
    if in_cluster():
        if options.context:
            raise ConfigError(f"--context {options.context} needs a kubeconfig, and none was found "
                              "(running in a pod with the in-cluster service account)")
        return _from_service_account(options)
    raise ConfigError("no kubeconfig found: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config "
                      "or run inside a cluster")


def _from_kubeconfig(paths: list[Path], options: ClusterOptions) -> Connection:
    view = read_kubeconfig(paths)
    where = ", ".join(str(p) for p in paths)
    name = options.context or view.current
    if not name:
        raise ConfigError(f"no current-context in {where}: pass --context ({_available(view)})")
    if name not in view.contexts:
        flag = "--context" if options.context else "current-context"
        raise ConfigError(f'context "{name}" ({flag}) is not defined in {where} ({_available(view)})')
    from kubernetes import client, config

    configuration = client.Configuration()
    load: Any = config.load_kube_config
    try:
        load(config_file=os.pathsep.join(str(p) for p in paths), context=name,
                                client_configuration=configuration, persist_config=False)
    except Exception as err:  # the loader raises ConfigException, OSError, ValueError, exec-plugin errors…
        raise ConfigError(f'cannot load context "{name}" from {where}: {_reason(err)}') from None
    namespace = options.namespace or view.contexts[name].get("namespace") or DEFAULT_NAMESPACE
    return Connection(configuration, str(configuration.host), name, str(namespace), options.request_timeout)


def _from_service_account(options: ClusterOptions) -> Connection:
    from kubernetes import client, config

    configuration = client.Configuration()
    load: Any = config.load_incluster_config
    try:
        load(client_configuration=configuration)
    except Exception as err:
        raise ConfigError(f"cannot load the in-cluster configuration: {_reason(err)}") from None
    namespace = options.namespace
    if not namespace:
        try:
            namespace = (SERVICE_ACCOUNT_DIR / "namespace").read_text(encoding="utf-8").strip() or DEFAULT_NAMESPACE
        except OSError:
            namespace = DEFAULT_NAMESPACE
    return Connection(configuration, str(configuration.host), None, namespace, options.request_timeout)


def _available(view: KubeconfigView) -> str:
    names = sorted(view.contexts)
    return "available: " + ", ".join(names) if names else "it defines no contexts"


def _reason(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0] if text else type(err).__name__
