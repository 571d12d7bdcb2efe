"""``python -m kubectl_testbench.install.artifacts [--write]``: the former name of
``python -m kubectl_testbench.generate --check|--write kustomize``.

Kept only because the committed ``kustomize/base/kustomization.yaml`` names this command (its bytes are
pinned); nothing imports this module.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from kubectl_testbench.generate.__main__ import main

    sys.exit(main(["--write" if "--write" in sys.argv[1:] else "--check", "kustomize"]))
