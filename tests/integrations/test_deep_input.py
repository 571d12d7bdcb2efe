"""``argocd discover`` and ``krm`` on 100,000 levels of nesting, on PyYAML 6.0.3 and on the pinned PyYAML.

They read with PyYAML's C loader before, whose composer recurses once per level: on 6.0.3 (a libyaml without a
nesting limit of its own) the process died of a segmentation fault. They now read as validate reads (integrations
.documents), so the depth limit decides on every PyYAML, at its place. The versions are installed as
tests/load/test_pyyaml_versions installs them (once, into the user cache dir).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.integrations.helpers import _hostile_limits
from tests.load.test_pyyaml_versions import VERSIONS, _target

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module", params=VERSIONS)
def pyyaml_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment that puts PyYAML ``request.param`` first."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join((str(_target(str(request.param))), str(ROOT)))}


def _run(env: dict[str, str], *args: str, cwd: Path | None = None,
         stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "kubectl_testbench", *args], input=stdin, cwd=cwd, env=env,
                          capture_output=True, timeout=120, preexec_fn=_hostile_limits, check=False)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_discover_warns_about_a_file_nested_too_deeply_and_lists_the_others(pyyaml_env: dict[str, str],
                                                                           tmp_path: Path) -> None:
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "values.yaml").write_text("# testbench.agentic-layer.ai\n" + DEEP + "\n")
    (tmp_path / "claimed").mkdir()
    (tmp_path / "claimed" / "experiment.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: x\nspec: " + DEEP)
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "exp.yaml").write_text("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\n")
    proc = _run(pyyaml_env, "argocd", "discover", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "claimed\nok\n"  # claimed: its kind line says it is an Experiment, generate reports why not
    too_deep = "warning[yaml/too-deep] nesting deeper than 256 levels (raise with --max-depth)\n"
    assert proc.stderr == f"./claimed/experiment.yaml:5:262: {too_deep}./deep/values.yaml:2:257: {too_deep}"


def test_krm_answers_with_an_error_result(pyyaml_env: dict[str, str]) -> None:
    stdin = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: " + DEEP + "\n"
    proc = _run(pyyaml_env, "krm", stdin=stdin.encode())
    assert proc.returncode == 1, proc.stderr
    (result,) = yaml.safe_load(proc.stdout)["results"]
    assert result == {"message": "stdin:3:263: nesting deeper than 256 levels (raise with --max-depth)",
                      "severity": "error", "tags": {"rule": "yaml/too-deep"}}
