"""The committed Kustomize base: ``kustomize/base/install.yaml`` is ``kubectl testbench install`` output.

``python -m kubectl_testbench.install.artifacts --write`` regenerates it; a test fails when it drifts (after a
change to the templates, the dashboard, the operator objects or the CRD).
"""

from __future__ import annotations

import sys
from pathlib import Path

from kubectl_testbench.crd.artifacts import REPO
from kubectl_testbench.emit.yamlout import dump

BASE = REPO / "kustomize" / "base"
FIX = "python -m kubectl_testbench.install.artifacts --write"


def base_kustomization() -> str:
    doc = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": ["install.yaml"]}
    return f"# Generated; do not edit. Regenerate with:\n#   {FIX}\n" + dump(doc)


def expected_files() -> dict[Path, str]:
    """Every generated file under kustomize/ and the content it must have (the default install)."""
    from kubectl_testbench.install.bundle import Options, yaml_text

    return {BASE / "install.yaml": yaml_text(Options()), BASE / "kustomization.yaml": base_kustomization()}


def stale_files() -> list[Path]:
    return [p for p, text in expected_files().items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def main(argv: list[str]) -> int:
    """Without ``--write``: list stale files (exit 1 if any). With it: rewrite them."""
    if "--write" in argv:
        from kubectl_testbench.emit.files import write_atomic

        for path, text in expected_files().items():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        return 0
    stale = stale_files()
    for path in stale:
        print(f"stale: {path} (run: {FIX})", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
