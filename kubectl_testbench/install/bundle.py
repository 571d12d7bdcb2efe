"""The install bundle: options in, an ordered list of manifests out, and its YAML/JSON/directory forms.

Order is what lets ``kubectl apply -f install.yaml`` succeed in one pass: Namespaces and the CRD before
anything that lives in them or depends on them, ServiceAccount and RBAC before the Deployment that uses
them; within a kind, by namespace and then name. The TestWorkflowTemplate CRD is Testkube's, so Testkube
must be installed first (docs/install.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from kubectl_testbench import layout
from kubectl_testbench.emit.headers import INSTALL_HEADER_MARK
from kubectl_testbench.emit.order import KIND_ORDER as KIND_ORDER
from kubectl_testbench.emit.order import sort_key as sort_key
from kubectl_testbench.emit.yamlout import dump, dump_all
from kubectl_testbench.install import dashboard_configmap, operator, templates
from kubectl_testbench.k8snames import dns1123_label_error

Mode = Literal["operator", "gitops"]
MODES: tuple[Mode, ...] = ("operator", "gitops")

HEADER_MARK = INSTALL_HEADER_MARK
HEADER_LINE = f"{HEADER_MARK}; do not edit. Reproduce with:"
"""First line of every generated install.yaml, kustomization.yaml and YAML object file; ``--output-dir``
recognises the files it owns by it (see :mod:`kubectl_testbench.emit.directory`)."""

_TAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
KEEP_ANNOTATIONS = {
    "argocd.argoproj.io/sync-options": "Delete=false,Prune=false",
    "kustomize.toolkit.fluxcd.io/prune": "disabled",
}
"""On namespaces created only because ``--create-namespaces`` asked: GitOps tools must never delete them
(they hold Testkube or Grafana, which this manifest does not own)."""


class InstallError(ValueError):
    """Options that cannot give a valid manifest; the message names the flag."""


@dataclass(frozen=True, slots=True)
class Options:
    """Everything ``install`` can vary; defaults reproduce the upstream release layout."""

    mode: Mode = "operator"
    image_tag: str = layout.DEFAULT_IMAGE_TAG
    testworkflow_image: str | None = None
    operator_image: str | None = None
    testkube_namespace: str = layout.TESTKUBE_NAMESPACE
    dashboard_namespace: str = dashboard_configmap.DEFAULT_NAMESPACE
    operator_namespace: str = operator.NAMESPACE
    create_namespaces: bool = False

    @property
    def phase_image(self) -> str:
        return self.testworkflow_image or templates.default_image(self.image_tag)

    @property
    def controller_image(self) -> str:
        return self.operator_image or operator.default_image(self.image_tag)

    def check(self) -> None:
        """Raise InstallError for the first unusable option."""
        if self.mode not in MODES:
            raise InstallError(f"--mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not tag_is_valid(self.image_tag):
            raise InstallError(f"--image-tag {self.image_tag!r} is not a valid image tag (letters, digits, '_', "
                               "'.', '-'; at most 128 characters; not starting with '.' or '-')")
        for flag, ref in (("--testworkflow-image", self.testworkflow_image), ("--operator-image", self.operator_image)):
            if ref is not None and not reference_is_plausible(ref):
                raise InstallError(f"{flag} {ref!r} is not an image reference (e.g. registry/name:tag)")
        for flag, ns in (("--testkube-namespace", self.testkube_namespace),
                         ("--dashboard-namespace", self.dashboard_namespace),
                         ("--operator-namespace", self.operator_namespace)):
            err = dns1123_label_error(ns)
            if err:
                raise InstallError(f"{flag} {ns!r} is not a valid namespace name: {err}")

    def command_line(self) -> str:
        """The ``install`` invocation that reproduces this bundle (only the flags that differ)."""
        default = Options()
        args = ["kubectl testbench install"]
        for flag, value, base in (
            ("--mode", self.mode, default.mode),
            ("--image-tag", self.image_tag, default.image_tag),
            ("--testworkflow-image", self.testworkflow_image, None),
            ("--operator-image", self.operator_image, None),
            ("--testkube-namespace", self.testkube_namespace, default.testkube_namespace),
            ("--dashboard-namespace", self.dashboard_namespace, default.dashboard_namespace),
            ("--operator-namespace", self.operator_namespace, default.operator_namespace),
        ):
            if value != base and value is not None:
                args.append(f"{flag} {value}")
        if self.create_namespaces:
            args.append("--create-namespaces")
        return " ".join(args)


def tag_is_valid(tag: str) -> bool:
    """The OCI distribution tag grammar: ``[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}``."""
    return 0 < len(tag) <= 128 and tag[0] not in ".-" and set(tag) <= _TAG_CHARS


def reference_is_plausible(ref: str) -> bool:
    """A cheap check that catches typos (spaces, empty parts, a trailing ``:``) without a registry."""
    if not ref or any(c.isspace() for c in ref) or ref != ref.strip("/:@"):
        return False
    name, _, digest = ref.partition("@")
    if digest and ":" not in digest:
        return False
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        repo, _, tag = last.partition(":")
        return bool(repo) and tag_is_valid(tag)
    return bool(last)


def ordered(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply order (shared with render, :mod:`kubectl_testbench.emit.order`): kind rank, then namespace,
    then name."""
    return sorted(objects, key=sort_key)


def _foreign_namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "annotations": dict(KEEP_ANNOTATIONS)}}


def foreign_namespaces(options: Options) -> list[str]:
    """Namespaces the manifest puts objects in but does not own (Testkube's, Grafana's)."""
    owned = {options.operator_namespace} if options.mode == "operator" else set()
    return sorted({options.testkube_namespace, options.dashboard_namespace} - owned)


def objects(options: Options) -> list[dict[str, Any]]:
    """Every manifest of the bundle, in apply order."""
    from kubectl_testbench.crd.document import crd_document

    options.check()
    objs: list[dict[str, Any]] = [crd_document(), dashboard_configmap.configmap(options.dashboard_namespace)]
    objs += templates.templates(options.phase_image, options.testkube_namespace)
    if options.mode == "operator":
        objs += operator.objects(options.controller_image, options.operator_namespace)
    if options.create_namespaces:
        objs += [_foreign_namespace(ns) for ns in foreign_namespaces(options)]
    return ordered(objs)


def header(options: Options) -> str:
    return f"{HEADER_LINE}\n#   {options.command_line()}\n"


def yaml_text(options: Options) -> str:
    """``---``-separated YAML stream, as ``kubectl apply -f`` reads it."""
    return header(options) + "---\n" + dump_all(objects(options))


def json_text(options: Options) -> str:
    """A ``v1 List``, the way ``kubectl get -o json`` prints several objects."""
    doc = {"apiVersion": "v1", "items": objects(options), "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def directory_files(options: Options, fmt: Literal["yaml", "json"] = "yaml") -> dict[str, str]:
    """One file per object, named as render names its files (``<kind>_<namespace>_<name>.yaml``: stable when
    objects come and go, unlike numbers), plus a ``kustomization.yaml`` that lists them in apply order."""
    from kubectl_testbench.emit.directory import kustomization, with_header
    from kubectl_testbench.emit.order import file_name

    files: dict[str, str] = {}
    for obj in objects(options):
        name = file_name(obj, fmt)
        text = json.dumps(obj, indent=2, ensure_ascii=False) + "\n" if fmt == "json" else dump(obj)
        files[name] = with_header(text, HEADER_LINE, name)
    files["kustomization.yaml"] = kustomization(list(files), HEADER_LINE,
                                                extra_header=f"#   {options.command_line()}\n")
    return files
