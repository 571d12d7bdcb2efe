"""The configuration file (.testbench.yaml, pyproject.toml's [tool.kubectl-testbench]): how it is found, what it
holds, its precedence, and that every front-end reads it (validate, render, fix, the LSP, the KRM function, Argo
CD's plugin; the pre-commit hooks in tests/integrations/test_precommit_config.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from kubectl_testbench.config import NO_CONFIG, ConfigError, find_config, load_config
from kubectl_testbench.rules.selection import Selection
from tests.conftest import run_cli, run_process
from tests.validate.test_rule_selection import BAD_ZONE, GATEWAY, NO_GATEWAY, VALID, rules_of


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


# --- finding it ---------------------------------------------------------------------------------------------


def test_the_nearest_file_walking_up_from_the_input_applies(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "ignore: [semantic]\n", "a/b/exp.yaml": VALID,
                    "a/pyproject.toml": "[project]\nname = 'x'\n",  # no table: passed over, as ruff does
                    "c/pyproject.toml": "[tool.kubectl-testbench]\nselect = ['schema']\n",
                    "c/d/.testbench.yaml": "", "c/e/x.yaml": ""})
    assert find_config(str(tmp_path / "a" / "b" / "exp.yaml")) == str(tmp_path / ".testbench.yaml")
    assert find_config(str(tmp_path / "a" / "b")) == str(tmp_path / ".testbench.yaml")
    assert find_config(str(tmp_path / "c" / "e" / "x.yaml")) == str(tmp_path / "c" / "pyproject.toml")
    assert load_config(str(tmp_path / "c" / "e")).selection == Selection(("schema",))
    marker = str(tmp_path / "c" / "d" / ".testbench.yaml")
    assert load_config(str(tmp_path / "c" / "d")) == NO_CONFIG._replace(path=marker)


def test_testbench_yaml_wins_over_pyproject_in_one_directory(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "ignore: [yaml]\n",
                    "pyproject.toml": "[tool.kubectl-testbench]\nstrict = true\n"})
    config = load_config(str(tmp_path))
    assert config.selection.ignore == ("yaml",) and config.strict is False


def test_the_repositorys_own_pyproject_is_no_configuration() -> None:
    from tests.conftest import ROOT

    assert find_config(str(ROOT / "examples")) is None or not str(find_config(str(ROOT / "examples"))).startswith(
        str(ROOT))


@pytest.mark.parametrize(("name", "text", "message"), [
    (".testbench.yaml", "select: [semantic]\nignor: [yaml]\n",
     ".testbench.yaml:2:1: unknown setting 'ignor' (settings: select, ignore, extend-select, strict, defaults)"),
    (".testbench.yaml", "select: [semantic/no-gatway]\n",
     '.testbench.yaml:1:1: "semantic/no-gatway" is not a rule id or group (did you mean "semantic/no-gateway"?): '
     "kubectl testbench validate --list-rules lists them"),
    (".testbench.yaml", "strict: yes please\n", ".testbench.yaml:1:1: strict must be true or false"),
    (".testbench.yaml", "select: [\n", ".testbench.yaml:2:1: "),
    ("pyproject.toml", "[tool.kubectl-testbench]\nignore = 3\n",
     "pyproject.toml: [tool.kubectl-testbench] ignore: ignore must be a list of rule ids or groups"),
])
def test_a_bad_configuration_is_a_one_line_usage_error_with_its_location(tmp_path: Path, name: str, text: str,
                                                                         message: str) -> None:
    tree(tmp_path, {name: text, "exp.yaml": VALID})
    result = run_cli("validate", str(tmp_path / "exp.yaml"))
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {tmp_path}{os.sep}{message}") and result.output.count("\n") == 1
    with pytest.raises(ConfigError):
        load_config(str(tmp_path))


def test_an_empty_testbench_yaml_is_the_argo_cd_marker_and_a_valid_configuration(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "", "exp.yaml": VALID})
    assert run_cli("validate", str(tmp_path)).exit_code == 0


# --- precedence and validate --------------------------------------------------------------------------------


def test_validate_reads_the_selection_and_the_command_line_wins(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "select: [schema]\nignore: [semantic/timezone]\n",
                    "exp.yaml": BAD_ZONE.replace(GATEWAY, "")})
    path = str(tmp_path / "exp.yaml")
    assert run_cli("validate", path).exit_code == 0  # select: [schema]: no semantic rule reported
    assert rules_of(run_cli("validate", "--select", "semantic", path).output) == ["semantic/no-gateway"]
    assert rules_of(run_cli("validate", "--extend-select", "semantic", path).output) == ["semantic/no-gateway"]
    assert rules_of(run_cli("validate", "--select", "semantic", "--ignore", "semantic/no-gateway", path).output) == []


def test_strict_in_the_configuration_fails_warnings(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "strict: true\n", "exp.yaml": NO_GATEWAY})
    assert run_cli("validate", str(tmp_path / "exp.yaml")).exit_code == 1


def test_stdin_uses_the_working_directorys_configuration(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "[tool.kubectl-testbench]\nignore = ['semantic/no-gateway']\n"})
    proc = run_process("validate", "-", input=NO_GATEWAY.encode(), cwd=tmp_path)
    assert proc.returncode == 0 and b"no-gateway" not in proc.stdout, proc.stdout


# --- defaults, and render -----------------------------------------------------------------------------------


DEFAULTS = "defaults:\n  testkubeNamespace: qa-testkube\n  aiGateway:\n    name: litellm\n"


def test_render_uses_the_configurations_defaults_and_a_nearer_defaults_file_wins(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": DEFAULTS, "exps/exp.yaml": NO_GATEWAY})
    result = run_cli("render", str(tmp_path / "exps"))
    assert result.exit_code == 0, result.output
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    assert {d["metadata"]["namespace"] for d in docs} == {"qa-testkube"}
    assert "no-gateway" not in result.output  # the configured default gateway counts, as a defaults file's does
    assert run_cli("validate", str(tmp_path / "exps")).output.endswith("0 warnings\n")
    (tmp_path / "exps" / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n  testkubeNamespace: near\n")
    nearer = run_cli("render", str(tmp_path / "exps"))
    assert {d["metadata"]["namespace"] for d in yaml.safe_load_all(nearer.stdout) if d} == {"near"}
    flag = run_cli("render", str(tmp_path / "exps"), "--testkube-namespace", "flag")
    assert {d["metadata"]["namespace"] for d in yaml.safe_load_all(flag.stdout) if d} == {"flag"}


def test_bad_defaults_in_the_configuration_are_located_findings(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "defaults:\n  testkubeNamespace: Not_A_Label\n", "exp.yaml": VALID})
    result = run_cli("render", str(tmp_path / "exp.yaml"))
    assert result.exit_code == 1
    assert f"{tmp_path / '.testbench.yaml'}:2:22: error[semantic/dns-label]" in result.output


def test_render_reads_the_selection(tmp_path: Path) -> None:
    tree(tmp_path, {".testbench.yaml": "ignore: [semantic/timezone]\n", "exp.yaml": BAD_ZONE})
    result = run_cli("render", str(tmp_path / "exp.yaml"))
    assert result.exit_code == 0 and "TestWorkflow" in result.stdout


# --- fix, the LSP, KRM, Argo CD -----------------------------------------------------------------------------


def test_fix_does_not_fix_what_the_configuration_ignores(tmp_path: Path) -> None:
    text = VALID + "status:\n  conditions: []\n"
    tree(tmp_path, {".testbench.yaml": "ignore: [semantic/status-ignored]\n", "exp.yaml": text})
    assert run_cli("fix", str(tmp_path / "exp.yaml")).exit_code == 0
    assert (tmp_path / "exp.yaml").read_text() == text


def test_the_language_server_reads_the_configuration_of_the_buffers_file(tmp_path: Path) -> None:
    from kubectl_testbench.lsp.actions import fix_all
    from kubectl_testbench.lsp.check import DEFAULT_SETTINGS, check

    tree(tmp_path, {".testbench.yaml": "ignore: [semantic/no-gateway, semantic/status-ignored]\n"})
    path = str(tmp_path / "exp.yaml")
    assert [d.rule for d in check(NO_GATEWAY, "untitled:1", None)] == ["semantic/no-gateway"]
    assert check(NO_GATEWAY, path, str(tmp_path)) == []
    text = VALID + "status:\n  conditions: []\n"
    assert fix_all(text, path, str(tmp_path), DEFAULT_SETTINGS) == text


def test_the_krm_function_reads_the_working_directorys_configuration(tmp_path: Path) -> None:
    experiment = yaml.safe_load(NO_GATEWAY)
    resource_list = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                "items": [experiment],
                                "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                                                   "data": {"mode": "validate"}}})
    plain = run_process("krm", input=resource_list.encode(), cwd=tmp_path)
    assert "semantic/no-gateway" in plain.stdout.decode()
    tree(tmp_path, {".testbench.yaml": "ignore: [semantic/no-gateway]\n"})
    configured = run_process("krm", input=resource_list.encode(), cwd=tmp_path)
    assert configured.returncode == 0 and "semantic/no-gateway" not in configured.stdout.decode()


def test_the_argo_cd_plugin_reads_its_marker_file(tmp_path: Path) -> None:
    app = tree(tmp_path / "app", {".testbench.yaml": "ignore: [semantic/timezone]\n" + DEFAULTS, "exp.yaml": BAD_ZONE})
    env = {"ARGOCD_APP_NAME": "x", "ARGOCD_APP_NAMESPACE": "team-a"}
    proc = run_process("argocd", "generate", cwd=app, env=env)
    assert proc.returncode == 0, proc.stderr
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    assert {d["metadata"]["namespace"] for d in docs} == {"qa-testkube"}
    (app / ".testbench.yaml").write_text("")  # the marker alone: the finding stops it
    assert run_process("argocd", "generate", cwd=app, env=env).returncode == 1


def test_colour_quiet_and_the_configuration_are_documented() -> None:
    from tests.conftest import ROOT

    help_text = run_cli("validate", "--help").output
    for word in ("NO_COLOR", "FORCE_COLOR", "--quiet", "--select", "--ignore", "--extend-select", ".testbench.yaml",
                 "# testbench: ignore[RULE]"):
        assert word in help_text.replace("\n", " ").replace("  ", " "), word
    config_doc = (ROOT / "docs" / "config.md").read_text()
    for heading in ("## Selecting rules", "## Suppression comments", "## The configuration file", "### Precedence",
                    "## Colour", "## Quiet"):
        assert heading in config_doc
    assert "[docs/config.md](docs/config.md)" in (ROOT / "README.md").read_text()


def test_the_language_server_sees_a_configuration_file_created_while_it_runs(tmp_path: Path) -> None:
    from kubectl_testbench.lsp.check import check

    path = str(tmp_path / "exp.yaml")
    assert [d.rule for d in check(NO_GATEWAY, path, str(tmp_path))] == ["semantic/no-gateway"]
    tree(tmp_path, {".testbench.yaml": "ignore: [semantic/no-gateway]\n"})
    assert check(NO_GATEWAY, path, str(tmp_path)) == []


def test_pyproject_defaults_table_is_read_by_render(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "[tool.kubectl-testbench.defaults]\ntestkubeNamespace = 'from-toml'\n",
                    "exp.yaml": VALID})
    result = run_cli("render", str(tmp_path / "exp.yaml"))
    assert result.exit_code == 0, result.output
    assert {d["metadata"]["namespace"] for d in yaml.safe_load_all(result.stdout) if d} == {"from-toml"}
    assert run_cli("render", "--no-defaults", str(tmp_path / "exp.yaml")).stdout.count("namespace: from-toml") == 0
