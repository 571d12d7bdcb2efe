"""Text from input files never becomes a CI log command, a terminal escape or invalid XML, in any output.

GitHub's runner (actions/runner ``ActionCommand.TryParseV2``) trims leading whitespace from each log line
and treats one starting with ``::`` as a workflow command: ``\\n::error …`` in a value forges an
annotation, ``\\n::stop-commands::tok`` switches command processing off. Failing that, it looks for the
older form ``##[command]`` anywhere in the line (``ActionCommand.TryParse``). Every output format is fed
forged values and control characters here; the only lines allowed to start with ``::`` are the
annotations ``-o github`` writes itself, and no line holds ``##[``. JUnit must parse with both libxml2
(lxml) and expat.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import xml.parsers.expat
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings

from tests.conftest import EXAMPLES, kubectl, run_process
from tests.integrations.helpers import console_script, env_with_path

FORGED = ("x\n::error file=README.md,line=1::forged\r::stop-commands::tok\n  ::warning::indented"
          " ##[error]legacy ##[set-output name=x;]y")
CONTROL = "bell\x07 esc\x1b[31m nul-free\x0b vt\x0c ff\x85 nel\u2028 ls\u202e rlo\ufffe"
EVIL = FORGED + CONTROL
OUR_ANNOTATION = re.compile(r"^::(error|warning|notice) (file=[^,:\r\n]*,line=\d+,col=\d+,)?(file=[^,:\r\n]*,)?"
                            r"title=[^:\r\n]*::[^\r\n]*$")
CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\ufffe\uffff]")


def assert_safe(text: str, annotations_allowed: int = 0, what: str = "", json_data: bool = False) -> None:
    """No forged command on any line (as the runner splits and trims them), no control character.

    JSON output is data and keeps values exactly: JSON escapes C0 controls and line breaks itself, so
    only those are checked there (other characters are legal JSON string content, not log lines).
    """
    lines = re.split(r"\r\n|\r|\n", text)
    legacy = [line for line in lines if "##[" in line]
    assert not legacy, f"{what}: legacy workflow commands {legacy[:3]}"
    commands = [line for line in lines if line.lstrip().startswith("::")]
    assert len(commands) <= annotations_allowed, f"{what}: forged commands {commands[:3]}"
    for line in commands:
        assert OUR_ANNOTATION.match(line), f"{what}: not one of our annotations: {line!r}"
    assert not any("stop-commands" in line.split("::", 2)[1] for line in commands if line.count("::") >= 2)
    stray = (re.compile("[\x00-\x08\x0b-\x1f]") if json_data else CONTROL_CHARS).search(text)
    assert stray is None, f"{what}: raw control character {stray.group()!r} in the output"


def assert_xml_parses(text: str, what: str) -> None:
    ET.fromstring(text.encode())
    parser = xml.parsers.expat.ParserCreate()
    parser.Parse(text.encode(), True)
    lxml = pytest.importorskip("lxml.etree", reason="lxml is a test dependency: pip install '.[test]'")
    lxml.fromstring(text.encode(), parser=lxml.XMLParser(recover=False))
    assert what


def experiment(name_suffix: str = "") -> str:
    """A file whose every user-controlled string carries forged commands and control characters."""
    doc = yaml.safe_load((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    doc["metadata"]["name"] = "evil" + EVIL
    doc["metadata"]["namespace"] = "ns" + FORGED
    doc["metadata"]["labels"] = {"team": EVIL}
    doc["spec"]["agentRef"]["name"] = "agent" + EVIL
    doc["spec"]["env"] = [{"name": "TOKEN" + FORGED, "value": "sk-" + EVIL}]
    step = doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]
    step["input"] = "prompt" + EVIL
    step["metrics"][0]["metricName"] = "Made" + FORGED
    doc["spec"]["unknown" + FORGED] = 1
    return json.dumps(doc)


@pytest.fixture()
def hostile(tmp_path: Path) -> Path:
    exps = tmp_path / "exps"
    exps.mkdir()
    (exps / "evil.yaml").write_text(experiment())
    (exps / "::error::named.yaml").write_text(experiment())  # the file name itself is a command
    (exps / "broken\x07.yaml").write_text("kind: [\n" + FORGED)
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_validate_output_formats_carry_no_forged_command(hostile: Path, fmt: str) -> None:
    summary = hostile / "summary.md"
    proc = run_process("validate", "-o", fmt, "exps", cwd=hostile,
                       env={"GITHUB_WORKSPACE": str(hostile), "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode in (1, 2), proc.stderr
    out, err = proc.stdout.decode(), proc.stderr.decode()
    allowed = len([line for line in out.splitlines() if line.startswith("::")]) if fmt == "github" else 0
    if fmt == "github":
        assert allowed >= 3  # our own annotations are there, and only they
    assert_safe(out, allowed, f"validate -o {fmt} stdout")
    assert_safe(err, 0, f"validate -o {fmt} stderr")
    assert "\\n::error file=README.md" in out + err or fmt in ("json", "sarif")  # escaped, still readable
    if fmt == "github":
        assert_safe(summary.read_text(), 0, "job summary")
        assert "::error::named.yaml" in summary.read_text()
    if fmt == "junit":
        assert_xml_parses(out, "validate junit")
    if fmt in ("json", "sarif"):
        json.loads(out)


def test_a_file_named_like_a_command_starts_no_log_line(hostile: Path) -> None:
    proc = run_process("validate", "exps", cwd=hostile)
    lines = proc.stdout.decode().splitlines()
    assert any(line.startswith("./exps/::error::named.yaml:") for line in lines) or \
        any(line.startswith("exps/::error::named.yaml:") for line in lines)
    proc = run_process("validate", "::error::named.yaml", cwd=hostile / "exps")
    assert proc.stdout.decode().startswith("./::error::named.yaml:")


def _results_file(tmp_path: Path) -> Path:
    doc = {"default_threshold": 0.9, "scenarios": [{"name": "scenario" + EVIL, "steps": [{
        "input": "input" + EVIL, "metrics": [{"metric_name": "M" + FORGED}],
        "evaluations": [{"metric": {"metric_name": "M" + FORGED},
                         "result": {"score": 0.1, "details": "details" + EVIL}}]}, {
        "input": "second" + FORGED, "metrics": [{"metric_name": "N"}],
        "evaluations": [{"metric": {"metric_name": "N"}, "result": {"error": "boom" + EVIL}}]}]}]}
    path = tmp_path / "evaluated_experiment.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "json"])
def test_results_formats_carry_no_forged_command(tmp_path: Path, fmt: str) -> None:
    path = _results_file(tmp_path)
    proc = run_process("results", str(path), "-o", fmt, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout.decode()
    assert "input" in out
    assert_safe(out, 0, f"results -o {fmt}", json_data=fmt == "json")
    assert_safe(proc.stderr.decode(), 0, f"results -o {fmt} stderr")
    if fmt == "junit":
        assert_xml_parses(out, "results junit")


def test_compare_formats_carry_no_forged_command(tmp_path: Path) -> None:
    base = _results_file(tmp_path)
    candidate = tmp_path / "candidate.json"
    candidate.write_text(base.read_text().replace('"score": 0.1', '"score": 0.95'))
    for fmt in ("table", "markdown", "junit"):
        proc = run_process("compare", str(base), str(candidate), "-o", fmt, cwd=tmp_path)
        out = proc.stdout.decode()
        assert out, proc.stderr
        assert_safe(out, 0, f"compare -o {fmt}")
        if fmt == "junit":
            assert_xml_parses(out, "compare junit")


def test_render_stdout_and_check_diff_carry_no_forged_command(tmp_path: Path) -> None:
    """A valid Experiment whose prompt holds forged lines; a committed rendered file tampered with too."""
    doc = yaml.safe_load((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    step = doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]
    step["input"] = "line one\n::error file=x::forged\n  ::stop-commands::tok\nlast"
    exps = tmp_path / "exps"
    exps.mkdir()
    (exps / "ok.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    rendered = run_process("render", "exps", cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    assert_safe(rendered.stdout.decode(), 0, "render stdout")
    assert yaml.safe_load_all(rendered.stdout.decode())  # still the same data
    assert run_process("render", "exps", "--output-dir", "out", cwd=tmp_path).returncode == 0
    workflow = next((tmp_path / "out").glob("configmap_*.yaml"))
    workflow.write_text(workflow.read_text() + "#   ::error::from a tampered file\r::warning::cr\n"
                        + "    ::error::indented context\n")
    doc["spec"]["agentRef"]["name"] = "other-agent"
    (exps / "ok.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    check = run_process("render", "exps", "--output-dir", "out", "--check", cwd=tmp_path)
    assert check.returncode == 1
    assert "tampered" in check.stdout.decode()
    assert_safe(check.stdout.decode(), 0, "render --check diff")
    assert_safe(check.stderr.decode(), 0, "render --check stderr")


def test_fix_summary_and_diff_carry_no_forged_command(hostile: Path) -> None:
    """fix prints file names, findings left, blocked reasons and (--diff) lines of the files themselves."""
    text = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text() + (
        "  schedule:\n    cron: 0 3 * * *\n    timezone: |-\n      ::error file=x::forged in a block scalar\n"
        "        ::stop-commands::tok\n  trigger:\n    enabled: true\n    concurrencyPolicy: allow\n")
    (hostile / "exps" / "fixable::error::x.yaml").write_text(text)
    for args in (("--diff",), ("--check",), ()):
        proc = run_process("fix", *args, "exps", cwd=hostile)
        assert proc.returncode in (1, 2), proc.stderr
        out, err = proc.stdout.decode(), proc.stderr.decode()
        if args == ("--diff",):
            assert "+    concurrencyPolicy: Allow\n" in out and "stop-commands::tok" in out  # a context line
        assert_safe(out, 0, f"fix {' '.join(args)} stdout")
        assert_safe(err, 0, f"fix {' '.join(args)} stderr")
        assert "fixable::error::x.yaml" in err


def test_argocd_and_krm_messages_carry_no_forged_command(tmp_path: Path) -> None:
    bin_dir = console_script(tmp_path / "bin")
    app = tmp_path / "app"
    app.mkdir()
    (app / "evil.yaml").write_text(experiment())
    env = env_with_path(bin_dir, ARGOCD_APP_NAME="app" + FORGED, ARGOCD_APP_NAMESPACE="team-a",
                        ARGOCD_APP_PARAMETERS=json.dumps([{"name": "testkube-namespace" + FORGED, "string": "x"}]))
    env["ARGOCD_ENV_COLOUR" + "x"] = EVIL
    proc = subprocess.run(["kubectl-testbench", "argocd", "generate"], cwd=app, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert_safe(proc.stderr, 0, "argocd generate (bad parameters)")
    del env["ARGOCD_APP_PARAMETERS"]
    proc = subprocess.run(["kubectl-testbench", "argocd", "generate"], cwd=app, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "error[metadata/name]" in proc.stderr
    assert_safe(proc.stderr, 0, "argocd generate (invalid Experiment)")

    item = json.loads(experiment())
    item["metadata"]["annotations"] = {"internal.config.kubernetes.io/path": "::error::p.yaml\n::warning::x"}
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [item]}
    krm = run_process("krm", input=json.dumps(resource_list).encode())
    assert krm.returncode == 1
    assert_safe(krm.stderr.decode(), 0, "krm stderr")
    for result in yaml.safe_load(krm.stdout)["results"]:
        assert_safe(result["message"], 0, "krm result message")
        assert_safe(json.dumps(result), 0, "krm result")


def test_kpt_prints_krm_results_without_forged_commands(tmp_path: Path) -> None:
    binary = shutil.which("kpt")
    if binary is None:
        pytest.skip("kpt is not installed: the kpt fn eval --exec test needs it")
    kubectl()  # kpt itself needs no kubectl; keeps the skip reasons of this module uniform
    env = env_with_path(console_script(tmp_path / "bin"))
    package = tmp_path / "package"
    package.mkdir()
    (package / "evil.yaml").write_text(yaml.safe_dump(json.loads(experiment()), sort_keys=False))
    krm = Path(__file__).resolve().parents[2] / "examples" / "gitops" / "krm" / "exec" / "kubectl-testbench-krm"
    proc = subprocess.run([binary, "fn", "eval", str(package), "--exec", str(krm)], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert proc.returncode != 0
    assert "[error]" in proc.stderr
    assert_safe(proc.stdout + proc.stderr, 0, "kpt fn eval output")


# --- property: any mix of command forms, line breaks and escapes, in values and file names ----------------------

_PIECES = ["::", "::error::x", "##[", "##[error]x", "##[set-output name=y;]z", "#", "[", ":", "\n", "\r", "\r\n",
           "\x1b[31m", "\x85", "\u2028", "\x07", " ", "  ", "a", ",", "%", "é"]
hostile_text = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join)
file_stem = hostile_text.map(lambda text: text.replace("/", "_")[:60])
LINE_PIECES = [p for p in _PIECES if p.isprintable()]
hostile_line = st.lists(st.sampled_from(LINE_PIECES), min_size=1, max_size=6).map("".join).filter(str.strip)


def _hostile_experiment(text: str, name: str) -> dict[str, Any]:
    """A valid Experiment carrying ``text`` where any string goes: the prompt, the reference and an env value."""
    doc: dict[str, Any] = yaml.safe_load((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    doc["metadata"]["name"] = name
    step = doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]
    step["input"] = "prompt " + text
    step["reference"]["topics"] = [text]
    doc["spec"]["env"].append({"name": "NOTE", "value": text})
    return doc


def _broken_experiment(text: str, lines: list[str]) -> str:
    """An invalid Experiment with ``text`` in every kind of field, a fixable finding, and ``lines`` as raw file lines
    (a block scalar beside the fix, so that ``fix --diff`` shows them as context)."""
    doc = _hostile_experiment(text, "broken")
    doc["metadata"]["labels"] = {"team": text}
    doc["spec"]["agentRef"]["name"] = text
    doc["spec"]["unknown" + text] = text
    doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]["metrics"][0]["metricName"] = text
    block = "".join(f"\n      {line}" for line in lines)  # |2-: a first line that starts with spaces keeps them
    return (yaml.safe_dump(doc, sort_keys=False) + "  schedule:\n    cron: 0 3 * * *\n    timezone: |2-" + block
            + "\n  trigger:\n    enabled: true\n    concurrencyPolicy: allow\n")


def _cli(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from kubectl_testbench.cli.main import cli

    result = CliRunner().invoke(cli, args, prog_name="kubectl testbench", env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile_text, stem=file_stem, lines=st.lists(hostile_line, min_size=1, max_size=3))
@example(text="::", stem="::", lines=[" ::", "::"])  # a first raw line that starts with a space (found once)
def test_no_output_of_any_command_holds_a_workflow_command(text: str, stem: str, lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        exps = root / "exps"
        exps.mkdir()
        broken = exps / f"{stem}.yaml"
        broken.write_text(_broken_experiment(text, lines))
        ok_dir = root / "ok"
        ok_dir.mkdir()
        (ok_dir / f"{stem}-ok.yaml").write_text(yaml.safe_dump(_hostile_experiment(text, "ok"), sort_keys=False))
        env = {"GITHUB_WORKSPACE": tmp, "GITHUB_STEP_SUMMARY": str(root / "summary.md")}
        for fmt in ("text", "json", "github", "sarif", "junit"):
            code, out, err = _cli(["validate", "-j", "1", "-o", fmt, str(exps), str(ok_dir)], env)
            assert code == 1, err
            ours = len([line for line in out.splitlines() if line.startswith("::")]) if fmt == "github" else 0
            assert_safe(out, ours, f"validate -o {fmt}", json_data=fmt == "json")
            assert_safe(err, 0, f"validate -o {fmt} stderr")
        assert_safe((root / "summary.md").read_text(), 0, "job summary")
        for fmt in ("yaml", "json"):
            code, out, err = _cli(["render", "-j", "1", "-o", fmt, str(ok_dir)])
            assert code == 0, err
            assert_safe(out, 0, f"render -o {fmt}", json_data=fmt == "json")
            assert_safe(err, 0, f"render -o {fmt} stderr")
            assert (yaml.safe_load_all(out) if fmt == "yaml" else [json.loads(out)])  # still parses
        assert _cli(["render", "-j", "1", str(ok_dir), "--output-dir", str(root / "out")])[0] == 0
        tampered = next((root / "out").glob("configmap_*.yaml"))
        tampered.write_text(tampered.read_text() + "".join(f"# {line}\n{line}\n" for line in lines))
        code, out, err = _cli(["render", "-j", "1", str(ok_dir), "--output-dir", str(root / "out"), "--check"])
        assert code == 1 and out, err
        assert_safe(out, 0, "render --check diff")
        assert_safe(err, 0, "render --check stderr")
        code, out, err = _cli(["fix", "--diff", str(exps)])
        assert "+    concurrencyPolicy: Allow" in out, err
        assert_safe(out, 0, "fix --diff")
        assert_safe(err, 0, "fix --diff stderr")
        results = _results_with(root, text)
        for fmt in ("table", "markdown", "junit", "json"):
            code, out, err = _cli(["results", str(results), "-o", fmt])
            assert out, err
            assert_safe(out, 0, f"results -o {fmt}", json_data=fmt == "json")
            assert_safe(err, 0, f"results -o {fmt} stderr")


def _results_with(root: Path, text: str) -> Path:
    doc = {"default_threshold": 0.9, "scenarios": [{"name": "scenario" + text, "steps": [{
        "input": "input" + text, "metrics": [{"metric_name": "M" + text}],
        "evaluations": [{"metric": {"metric_name": "M" + text}, "result": {"score": 0.1, "details": text}}]}]}]}
    path = root / "evaluated_experiment.json"
    path.write_text(json.dumps(doc))
    return path


def test_render_resolve_failures_carry_no_forged_command(tmp_path: Path) -> None:
    """A workflow that does not resolve is named with the file it came from: a file name is user text."""
    experiment = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    (tmp_path / "##[error]e\n::error::x.yaml").write_text(experiment)
    (tmp_path / "templates.yaml").write_text("apiVersion: testworkflows.testkube.io/v1\nkind: TestWorkflowTemplate\n"
                                             "metadata: {name: unrelated, namespace: testkube}\n"
                                             "spec: {steps: [{run: {image: x}}]}\n")
    proc = run_process("render", "--resolve", "--templates", "templates.yaml", "--no-defaults", ".", cwd=tmp_path)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith("./##\\x5berror]e\\n::error::x.yaml:4: error[render/resolve] TestWorkflow ")
    assert_safe(err, 0, "render --resolve failures")


def test_usage_errors_quote_arguments_safely(tmp_path: Path) -> None:
    """click's own messages quote arguments (``Path '…' does not exist``); CI passes changed files as arguments."""
    proc = run_process("render", "--resolve", "--templates", "##[error]t\n::error::y", "x", cwd=tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "Error: Invalid value for '--templates': Path '##\\x5berror]t" in err
    assert_safe(err, 0, "usage error")
