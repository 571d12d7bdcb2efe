"""Where the TestWorkflowTemplates and ConfigMaps for a resolve come from: our ``install``, or a directory
holding a cluster's own templates (``kubectl get testworkflowtemplates -n testkube -o yaml > dir/t.yaml``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TEMPLATE_API = "testworkflows.testkube.io/v1"


class TemplatesError(Exception):
    """A templates directory that cannot be used: one line with the file (and line)."""


def installed_templates(namespace: str, image: str | None = None) -> dict[str, dict[str, Any]]:
    """The TestWorkflowTemplates ``kubectl testbench install`` ships (the same in both modes), by name."""
    from kubectl_testbench.install.templates import default_image, templates

    return {t["metadata"]["name"]: t for t in templates(image or default_image(), namespace)}


def templates_in(objects: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The TestWorkflowTemplates among ``objects``, by name (a later one of the same name wins)."""
    return {o["metadata"]["name"]: o for o in objects
            if o.get("kind") == "TestWorkflowTemplate" and o.get("apiVersion") == TEMPLATE_API
            and isinstance(o.get("metadata"), dict) and isinstance(o["metadata"].get("name"), str)}


def configmaps_in(objects: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """ConfigMaps among ``objects``, by (namespace, name)."""
    return {(str(o["metadata"].get("namespace", "")), str(o["metadata"].get("name", ""))): o for o in objects
            if o.get("kind") == "ConfigMap" and o.get("apiVersion") == "v1" and isinstance(o.get("metadata"), dict)}


def load_objects(paths: Iterable[str]) -> list[dict[str, Any]]:
    """Every object in the YAML/JSON files under ``paths`` (v1 Lists unpacked); raises :class:`TemplatesError`."""
    from kubectl_testbench.load.builder import build
    from kubectl_testbench.load.decode import DecodeError, decode
    from kubectl_testbench.load.limits import DEFAULT_LIMITS
    from kubectl_testbench.load.positions import plain
    from kubectl_testbench.load.sources import SourceError, expand, read_bytes
    from kubectl_testbench.load.split import split_documents

    objects: list[dict[str, Any]] = []
    for source in expand(tuple(paths)):
        if isinstance(source, SourceError):
            raise TemplatesError(f"{source.path}: {source.message}")
        try:
            text = decode(read_bytes(source, DEFAULT_LIMITS))
        except (SourceError, DecodeError) as err:
            raise TemplatesError(f"{source.path}: {err.message}") from None
        for chunk in split_documents(text):
            built = build(chunk.text, chunk.start_line)
            if built.error is not None:
                raise TemplatesError(f"{source.path}:{built.error.mark[0]}:{built.error.mark[1]}: "
                                     f"{built.error.message}")
            data = plain(built.data)
            items = data.get("items") if isinstance(data, dict) and data.get("kind") == "List" else [data]
            objects += [item for item in items or () if isinstance(item, dict)]
    return objects
