"""The values behind ``valueFrom`` and ``contentFrom`` references, from Secrets and ConfigMaps given as data.

In a cluster, Kubernetes fills ``secretKeyRef``/``configMapKeyRef`` from objects in the namespace the workflow
runs in. Here the caller gives those objects (``kubectl get secret NAME -o yaml``; the tests their own) and
explicit values by variable name (``--env NAME=VALUE``, which wins). A reference that finds nothing is an error
naming the variable, the object and the way out, unless it is ``optional``: then the variable stays unset, as
the kubelet leaves it. ``fieldRef`` and ``resourceFieldRef`` describe a pod that does not exist here: refused.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn


class ValuesError(Exception):
    """A reference that cannot be looked up (one line, with the way out)."""


class Values:
    """Secrets and ConfigMaps by name (the workflow's namespace is the only one its references reach), plus
    values given by variable name."""

    def __init__(self, objects: Iterable[Mapping[str, Any]] = (), given: Mapping[str, str] | None = None) -> None:
        self.given = dict(given or {})
        self.secrets: dict[str, dict[str, bytes]] = {}
        self.configmaps: dict[str, dict[str, bytes]] = {}
        for obj in objects:
            named = (obj.get("metadata") or {}).get("name")
            if not named or obj.get("apiVersion") != "v1":
                continue  # a reference names a v1 Secret or ConfigMap: nothing else can answer it
            kind, name = obj.get("kind"), str(named)
            if kind == "Secret":
                self.secrets[name] = _secret_data(obj, name)
            elif kind == "ConfigMap":
                data = {k: str(v).encode() for k, v in (obj.get("data") or {}).items()}
                data.update({k: _b64(v, f"ConfigMap {name} binaryData.{k}")
                             for k, v in (obj.get("binaryData") or {}).items()})
                self.configmaps[name] = data

    def env(self, name: str, value_from: Mapping[str, Any]) -> str | None:
        """The value of variable ``name`` set from ``value_from``; None when an optional reference finds nothing."""
        if name in self.given:
            return self.given[name]
        for kind, store, what in (("secretKeyRef", self.secrets, "Secret"),
                                  ("configMapKeyRef", self.configmaps, "ConfigMap")):
            ref = value_from.get(kind)
            if isinstance(ref, Mapping):
                found = store.get(str(ref.get("name"))) or {}
                key = str(ref.get("key"))
                if key in found:
                    return found[key].decode(errors="replace")  # UTF-8, as Python decodes by default
                if ref.get("optional") is True:
                    return None
                return self._missing(name, f"{kind} {ref.get('name')}/{key}", what, str(ref.get("name")))
        shown = ", ".join(sorted(value_from)) or "an empty valueFrom"
        raise ValuesError(f"env {name} comes from {shown}, which only a pod in the cluster has: give it with "
                          f"--env {name}=VALUE")

    def file(self, path: str, source: Mapping[str, Any]) -> bytes:
        """The content of a mounted file whose content was not rendered (a Secret's)."""
        for kind, store, what in (("secretKeyRef", self.secrets, "Secret"),
                                  ("configMapKeyRef", self.configmaps, "ConfigMap")):
            ref = source.get(kind)
            if isinstance(ref, Mapping):
                found = store.get(str(ref.get("name"))) or {}
                if str(ref.get("key")) in found:
                    return found[str(ref.get("key"))]
                raise ValuesError(f"file {path} comes from {kind} {ref.get('name')}/{ref.get('key')}: give the "
                                  f"{what} with --values-from FILE (kubectl get {what.lower()} {ref.get('name')} "
                                  "-o yaml)")
        raise ValuesError(f"file {path}: its content is not known ({', '.join(sorted(source))})")

    def _missing(self, name: str, ref: str, what: str, obj: str) -> NoReturn:
        raise ValuesError(f"env {name} comes from {ref}, which is not among the given values: give it with "
                          f"--env {name}=VALUE, or the {what} with --values-from FILE "
                          f"(kubectl get {what.lower()} {obj} -o yaml)")


def _b64(text: Any, where: str) -> bytes:
    try:
        return base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        raise ValuesError(f"{where}: not base64") from None


def _secret_data(obj: Mapping[str, Any], name: str) -> dict[str, bytes]:
    """``data`` (base64) with ``stringData`` on top, as the API server merges them."""
    data = {k: _b64(v, f"Secret {name} data.{k}") for k, v in (obj.get("data") or {}).items()}
    data.update({k: str(v).encode() for k, v in (obj.get("stringData") or {}).items()})
    return data
