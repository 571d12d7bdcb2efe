"""Write constraints.txt: the exact installed versions of kubectl-testbench's runtime dependency closure.

Run in an environment where kubectl-testbench is installed (``pip install -e .``):
    python integrations/argocd/lock.py > integrations/argocd/constraints.txt
"""

from __future__ import annotations

import importlib.metadata as md
import re

from packaging.requirements import Requirement

HEADER = """\
# Exact versions of kubectl-testbench's runtime dependencies for the Argo CD sidecar image, so that
# every build of one checkout installs the same packages (pip install --constraint). Regenerate after
# changing pyproject.toml's dependencies (python integrations/argocd/lock.py > integrations/argocd/constraints.txt):
# a test checks that every runtime dependency is pinned here."""


def closure(name: str, seen: dict[str, str]) -> None:
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return
    dist = md.distribution(name)
    seen[key] = dist.version
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            closure(req.name, seen)


def main() -> None:
    seen: dict[str, str] = {}
    closure("kubectl-testbench", seen)
    seen.pop("kubectl-testbench")
    print(HEADER)
    for key, version in sorted(seen.items()):
        print(f"{key}=={version}")


if __name__ == "__main__":
    main()
