"""Without the upstream reference data (TESTBENCH_REFERENCE), the tests that need it skip, and the session says
so in one line at the end, with how to fix it, instead of a row of silent 's' (the suite runs with -q)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_the_session_ends_with_the_reason_for_the_reference_skips(tmp_path: object) -> None:
    env = {**os.environ, "TESTBENCH_REFERENCE": "/nonexistent/reference"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "tests/render/test_testkube_schema.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    summary = [line for line in lines if "upstream reference data" in line]
    assert len(summary) == 1
    assert summary[0].endswith("tests skipped: the upstream reference data is not at /nonexistent/reference (set "
                               "TESTBENCH_REFERENCE to a copy of it; docs/testing.md)")
    assert int(summary[0].split()[0]) >= 2


def test_other_skip_reasons_are_listed_once_each() -> None:
    from tests.conftest import skip_summary

    reasons = ["reference data not found at /x (set TESTBENCH_REFERENCE)"] * 3 + ["kpt is not installed"] * 2 + [
        "fish is not installed here"]
    lines = skip_summary(reasons)
    assert lines[1:] == ["1 test skipped: fish is not installed here", "2 tests skipped: kpt is not installed"]
    assert lines[0].startswith("3 tests skipped: the upstream reference data is not at ")
    assert skip_summary([]) == []
