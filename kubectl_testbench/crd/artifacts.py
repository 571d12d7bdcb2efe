"""``python -m kubectl_testbench.crd.artifacts [--write]``: the former name of
``python -m kubectl_testbench.generate --check|--write crd defaults rules``.

Kept only because the committed ``_generated/cel-parser.json`` and ``cel-rules.json`` name this command
(their bytes are pinned); nothing imports this module.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from kubectl_testbench.generate.__main__ import main

    sys.exit(main(["--write" if "--write" in sys.argv[1:] else "--check", "crd", "defaults", "rules"]))
