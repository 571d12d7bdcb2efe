"""``kustomize/base``: the default ``kubectl testbench install`` output, committed for Kustomize users."""

from __future__ import annotations

from kubectl_testbench.emit.yamlout import dump
from kubectl_testbench.generate import REPO

BASE = REPO / "kustomize" / "base"
REGENERATE = "python -m kubectl_testbench.install.artifacts --write"
"""The command the committed kustomization.yaml names (it still works: it forwards to this package)."""


def base_kustomization() -> str:
    doc = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": ["install.yaml"]}
    return f"# Generated; do not edit. Regenerate with:\n#   {REGENERATE}\n" + dump(doc)


def install_yaml() -> str:
    from kubectl_testbench.install.bundle import Options, yaml_text

    return yaml_text(Options())
