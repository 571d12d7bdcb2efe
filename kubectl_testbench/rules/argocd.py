"""argocd: the Argo CD plugin's own findings (``kubectl testbench argocd generate``).

Reported by ``integrations/argocd_app.py``; findings about the Experiments it reads carry the validate rules.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

ARGOCD_KUSTOMIZATION_NOT_BUILT = Rule(
    "argocd/kustomization-not-built", Severity.WARNING,
    "A kustomization below a path the plugin reads is read as plain files, not built.",
    "The plugin builds a directory with kustomize only when that directory is the Application's path or one of "
    "the entries of its 'paths' parameter. A kustomization.yaml deeper down is read like any other YAML file, "
    "so its patches, generators and name prefixes are not applied; the warning says so instead of rendering "
    "something else than kustomize would.",
    hint="name the directory in the 'paths' parameter to build it with kustomize",
    check="kubectl_testbench.integrations.argocd_app:_take_source",
)
