"""The ``--help`` text of the commands whose options come from the render settings, pinned by digest.

Issue 30 builds these options from one table of render settings; the golden test of every output
(tests/test_output_golden.py) does not run ``--help``, so this one pins it: the table must produce the
same flags, metavars, types and help texts, byte for byte. A deliberate change of a help text is recorded
with ``UPDATE_GOLDEN=1`` as there.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli

GOLDEN = Path(__file__).parent / "golden" / "help.json"
COMMANDS = (("render",), ("apply",), ("diff",), ("prune",), ("validate",), ("krm",), ("argocd", "generate"),
            ("dataset",), ("dataset", "export"), ("dataset", "validate"), ("dataset", "push"))


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_is_unchanged(command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # click wraps help at the terminal's width
    result = run_cli(*command, "--help")
    assert result.exit_code == 0, result.output
    got = hashlib.sha256(result.stdout_bytes).hexdigest()
    case = " ".join(command)
    recorded = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if os.environ.get("UPDATE_GOLDEN") and recorded.get(case) != got:
        recorded[case] = got
        GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        pytest.fail(f"{case} --help: digest rewritten (UPDATE_GOLDEN): review the change, then run again without it")
    assert recorded.get(case) == got, f"{case} --help changed:\n{result.stdout}"
