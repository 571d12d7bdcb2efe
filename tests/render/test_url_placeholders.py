"""A misspelt placeholder in a URL template ({nme}) never reaches a workflow: on the command line, in Argo CD's
and the KRM function's parameters it is a usage error (exit 2); in an annotation or a defaults file it is a
located finding. Every message lists the known placeholders."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_testbench.integrations.argocd import ParameterError, settings_from_env
from tests.conftest import run_cli, run_process
from tests.integrations.test_krm import EXPERIMENT, resource_list, run_krm
from tests.validate.helpers import VALID

KNOWN = "(known: {name}, {namespace}, {port})"


@pytest.mark.parametrize(("template", "problem"), [
    ("http://{nme}.{namespace}:{port}", "unknown placeholder {nme} " + KNOWN + "; did you mean {name}?"),
    ("http://{name}.{ns}:{Port}", "unknown placeholders {ns}, {Port} " + KNOWN + "; did you mean {port} for {Port}?"),
    ("http://{ name }:8000", "unknown placeholder { name } " + KNOWN + "; did you mean {name}?"),
    ("http://{}/", "unknown placeholder {} " + KNOWN),
    ("http://{n_a}/", "unknown placeholder {n_a} " + KNOWN + "; did you mean {name}?"),  # close enough: 0.57
    ("http://{nme}:{prt}", "unknown placeholders {nme}, {prt} " + KNOWN + "; did you mean {name} for {nme}, "
                           "{port} for {prt}?"),
    ("http://{name}.{namespace}.svc:{port}/a2a", None),
    ("http://{{ config.host }}:{port}", None),  # Testkube syntax is text to us: escaped later, not a placeholder
])
def test_template_problem(template: str, problem: str | None) -> None:
    from kubectl_testbench.model.url_templates import template_problem

    assert template_problem(template) == problem


@pytest.mark.parametrize("flag", ["--agent-url", "--ai-gateway-url"])
@pytest.mark.parametrize("command", ["render", "apply", "diff", "prune"])
def test_a_misspelt_flag_placeholder_is_a_usage_error_on_every_render_command(tmp_path: Path, flag: str,
                                                                             command: str) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    proc = run_process(command, str(exp), flag, "http://{nme}.{namespace}:{port}")
    assert proc.returncode == 2 and proc.stdout == b""
    assert (f"Error: Invalid value for '{flag}': 'http://{{nme}}.{{namespace}}:{{port}}': unknown placeholder "
            "{nme} (known: {name}, {namespace}, {port}); did you mean {name}?").encode() in proc.stderr


def test_known_placeholders_still_render(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    result = run_cli("render", str(exp), "--agent-url", "https://{name}.{namespace}.svc:{port}/a2a")
    assert result.exit_code == 0, result.output
    assert "agentUrl: https://weather-agent.agents.svc:8000/a2a" in result.stdout


def test_an_annotation_with_an_unknown_placeholder_is_a_located_error(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID.replace("  namespace: agents\n", "  namespace: agents\n  annotations:\n"
                                 "    testbench.agentic-layer.ai/agent-url: http://{nme}:{port}\n", 1))
    for command in ("validate", "render"):
        result = run_cli(command, str(exp))
        assert result.exit_code == 1
        assert (f"{exp}:7:43: error[semantic/url-placeholder] metadata.annotations[testbench.agentic-layer.ai/"
                'agent-url]: Invalid value: "http://{nme}:{port}": unknown placeholder {nme} (known: {name}, '
                "{namespace}, {port}); did you mean {name}?") in result.output


def test_a_defaults_file_with_an_unknown_placeholder_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(VALID)
    defaults = tmp_path / "testbench-defaults.yaml"
    defaults.write_text("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n"
                        "  agentUrl: http://{name}.{namespace}:{prot}\n  aiGateway:\n    name: gw\n"
                        "    url: http://{name}:{port}\n")
    for command in ("validate", "render"):
        result = run_cli(command, str(tmp_path))
        assert result.exit_code == 1, result.output
        assert (f"{defaults}:4:13: error[semantic/url-placeholder] spec.agentUrl: Invalid value: "
                '"http://{name}.{namespace}:{prot}": unknown placeholder {prot} (known: {name}, {namespace}, '
                "{port}); did you mean {port}?") in result.output
        assert "spec.aiGateway.url" not in result.output


def test_argocd_parameters_with_an_unknown_placeholder_are_refused(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(VALID)
    env = {"PARAM_AGENT_URL": "http://{nme}:{port}", "PARAM_AI_GATEWAY_URL": "http://{gw}"}
    with pytest.raises(ParameterError) as raised:
        settings_from_env(env, str(tmp_path))
    assert raised.value.problems == [
        "parameter 'agent-url': 'http://{nme}:{port}': unknown placeholder {nme} (known: {name}, {namespace}, "
        "{port}); did you mean {name}?",
        "parameter 'ai-gateway-url': 'http://{gw}': unknown placeholder {gw} (known: {name}, {namespace}, {port})"]


def test_krm_function_config_with_an_unknown_placeholder_is_refused() -> None:
    code, out, _ = run_krm(resource_list(EXPERIMENT, data={"agent-url": "http://{agent}:{port}"}))
    assert code == 1
    (config,) = [r for r in out["results"] if r["tags"]["rule"] == "krm/config"]
    assert config["field"]["path"] == "data.agent-url"
    assert config["message"] == ("agent-url 'http://{agent}:{port}': unknown placeholder {agent} (known: {name}, "
                                 "{namespace}, {port})")
