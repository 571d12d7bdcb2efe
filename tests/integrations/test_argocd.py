"""The Argo CD config-management plugin, run the way the repo-server sidecar runs it.

plugin.yaml's commands are executed exactly as written (``kubectl-testbench`` resolved on PATH) with the
environment Argo CD builds: build variables, ``ARGOCD_ENV_*`` for plugin env, ``ARGOCD_APP_PARAMETERS``
plus ``PARAM_*`` for parameters (escaped as Argo CD escapes them).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.integrations.argocd import (
    PARAMETERS,
    ParameterError,
    escaped,
    exec_timeout,
    settings_from_env,
    time_limit,
    unknown_env,
)
from kubectl_testbench.layout import TESTKUBE_NAMESPACE
from kubectl_testbench.model.render_settings import DEFAULT_AGENT_PORT, DEFAULT_GATEWAY_PORT
from tests.conftest import EXAMPLES, ROOT, kubectl, run_cli
from tests.integrations.helpers import console_script, env_with_path, run_bounded

PLUGIN = ROOT / "integrations" / "argocd" / "plugin.yaml"
MARKER = ".testbench.yaml"
NO_NAMESPACE = """\
apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: smoke
spec:
  agentRef:
    name: shop-agent
  aiGatewayRef:
    name: gateway
  dataset:
    url: https://datasets.example.com/smoke/experiment.json
"""


def plugin() -> dict[str, Any]:
    doc = yaml.safe_load(PLUGIN.read_text())
    assert isinstance(doc, dict)
    return doc


def plugin_command(section: dict[str, Any]) -> list[str]:
    """``command`` + ``args``, as the CMP server joins them."""
    return [*section["command"], *section.get("args", [])]


def argo_escape(name: str) -> str:
    """Argo CD's own rule, written out independently of the code under test."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name.upper())


def argocd_env(bin_dir: Path, app_namespace: str = "team-a", parameters: list[dict[str, Any]] | None = None,
               plugin_env: dict[str, str] | None = None, with_json: bool = True) -> dict[str, str]:
    """The environment the repo-server gives plugin commands for one Application."""
    env = env_with_path(bin_dir, ARGOCD_APP_NAME="experiments", ARGOCD_APP_NAMESPACE=app_namespace,
                        ARGOCD_APP_REVISION="0123456789abcdef", ARGOCD_APP_REVISION_SHORT="0123456",
                        ARGOCD_APP_SOURCE_PATH="apps/experiments", ARGOCD_APP_SOURCE_REPO_URL="https://git.example/x",
                        ARGOCD_APP_SOURCE_TARGET_REVISION="main", KUBE_VERSION="1.32.4",
                        KUBE_API_VERSIONS="v1,apps/v1,testworkflows.testkube.io/v1")
    for name, value in (plugin_env or {}).items():
        env[f"ARGOCD_ENV_{name}"] = value
    if parameters is None and plugin_env is not None and with_json:
        env["ARGOCD_APP_PARAMETERS"] = "null"  # a plugin section without parameters: Argo CD marshals the nil list
    if parameters is not None:
        if with_json:
            env["ARGOCD_APP_PARAMETERS"] = json.dumps(parameters)
        for param in parameters:
            base = "PARAM_" + argo_escape(param["name"])
            if "string" in param:
                env[base] = param["string"]
            for i, item in enumerate(param.get("array", [])):
                env[f"{base}_{i}"] = item
            for key, value in param.get("map", {}).items():
                env[f"{base}_{argo_escape(key)}"] = value
    return env


def run_generate(app_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = plugin_command(plugin()["spec"]["generate"])
    return subprocess.run(command, cwd=app_dir, env=env, capture_output=True, text=True, timeout=90, check=False)


def run_discover(app_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The ``argocd discover`` helper command (not used by plugin.yaml any more)."""
    return subprocess.run(["kubectl-testbench", "argocd", "discover"], cwd=app_dir, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def argo_cd_claims(app_dir: Path, env: dict[str, str]) -> bool:
    """Argo CD's MatchRepository for this plugin.yaml, rule by rule as cmpserver/plugin/plugin.go applies them.

    1. ``discover.fileName``: ``filepath.Glob(filepath.Join(appPath, fileName))``, any match claims (Go's
       Glob: ``*`` also matches names starting with a dot); 2. ``find.glob`` (zglob, ``**``); 3. otherwise
       ``find.command`` runs in the app path and claims on exit 0 with non-empty stdout. No discover
       section: never claimed automatically.
    """
    discover = plugin()["spec"].get("discover")
    if not discover:
        return False
    if discover.get("fileName"):
        return bool(glob.glob(os.path.join(app_dir, discover["fileName"]), include_hidden=True))
    find = discover.get("find", {})
    if find.get("glob"):
        return bool(glob.glob(os.path.join(app_dir, find["glob"]), recursive=True, include_hidden=True))
    proc = subprocess.run(plugin_command(find), cwd=app_dir, env=env, capture_output=True, text=True, check=False)
    return proc.returncode == 0 and proc.stdout.strip() != ""


def manifests_only(stdout: str) -> list[dict[str, Any]]:
    """Every document is a Kubernetes object (what the repo-server's YAML splitter needs)."""
    docs = [d for d in yaml.safe_load_all(stdout) if d is not None]
    assert docs, "no manifests on stdout"
    for doc in docs:
        assert isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind"), doc
        assert doc["metadata"]["name"]
    return docs


@pytest.fixture()
def app_dir(tmp_path: Path) -> Path:
    """An Application directory: the example Experiments, one without a namespace, and files that are not ours."""
    app = tmp_path / "repo" / "apps" / "experiments"
    shutil.copytree(EXAMPLES / "experiments", app)
    (app / "kustomization.yaml").unlink()  # a plain directory; the kustomize case has its own tests
    (app / "smoke.yaml").write_text(NO_NAMESPACE)
    (app / "README.md").write_text("# experiments\n")
    (app / "values.json").write_text('{"replicas": 2}\n')
    return app


@pytest.fixture()
def bin_dir(tmp_path: Path) -> Path:
    return console_script(tmp_path / "bin")


# --- plugin.yaml ------------------------------------------------------------------------------------------


def test_plugin_yaml_is_a_sidecar_cmp_whose_commands_are_our_cli() -> None:
    doc = plugin()
    assert doc["apiVersion"] == "argoproj.io/v1alpha1" and doc["kind"] == "ConfigManagementPlugin"
    assert doc["metadata"]["name"] == "kubectl-testbench" and "version" not in doc["spec"]
    assert plugin_command(doc["spec"]["generate"]) == ["kubectl-testbench", "argocd", "generate"]
    assert doc["spec"]["discover"] == {"fileName": MARKER}  # opt-in only: no find command claiming any path
    assert doc["spec"]["preserveFileMode"] is False and "init" not in doc["spec"]


def test_announced_parameters_are_the_ones_the_plugin_applies() -> None:
    static = plugin()["spec"]["parameters"]["static"]
    assert static == [p.announcement() for p in PARAMETERS], \
        "plugin.yaml parameters.static differs from kubectl_testbench/integrations/argocd.py PARAMETERS"
    defaults = {p["name"]: p.get("string", p.get("array")) for p in static}
    assert defaults["testkube-namespace"] == TESTKUBE_NAMESPACE
    assert defaults["agent-port"] == str(DEFAULT_AGENT_PORT)
    assert defaults["ai-gateway-port"] == str(DEFAULT_GATEWAY_PORT)
    assert defaults["paths"] == ["."]
    for param in static:  # Argo CD's UI needs collectionType for anything that is not a string
        assert ("array" in param) == (param.get("collectionType") == "array")
        assert escaped(param["name"]) == argo_escape(param["name"])


# --- generate, exactly as written -----------------------------------------------------------------------


def test_generate_prints_only_manifests_with_parameters_and_env_applied(app_dir: Path, bin_dir: Path) -> None:
    params = [{"name": "ai-gateway-port", "string": "4000"}, {"name": "argocd-sync-waves", "string": "true"},
              {"name": "paths", "array": ["."]}]
    env = argocd_env(bin_dir, "team-a", params, {"TESTKUBE_NAMESPACE": "qa-testkube"})
    proc = run_generate(app_dir, env)
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    assert {d["kind"] for d in docs} == {"ConfigMap", "TestWorkflow", "TestTrigger"}
    assert {d["metadata"]["namespace"] for d in docs} == {"qa-testkube"}  # ARGOCD_ENV_TESTKUBE_NAMESPACE
    assert all(d["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for d in docs)
    smoke = next(d for d in docs if d["metadata"]["name"] == "smoke-team-a-workflow")  # ARGOCD_APP_NAMESPACE
    evaluate = next(u for u in smoke["spec"]["use"] if u["name"] == "evaluate-template")
    assert evaluate["config"]["openAiBasePath"] == "http://gateway.team-a.svc.cluster.local.:4000"
    # exactly what `render` prints with the same settings: the plugin adds nothing and drops nothing
    expected = run_cli("render", str(app_dir), "-n", "team-a", "--testkube-namespace", "qa-testkube",
                       "--ai-gateway-port", "4000", "--argocd-sync-waves")
    assert expected.exit_code == 0 and proc.stdout == expected.stdout
    assert "apiVersion" not in proc.stderr
    assert proc.stderr.startswith("kubectl-testbench: experiments: 8 objects (8 compiled from 5 Experiments, "
                                  "0 passed through) in . ")


def test_announced_defaults_apply_when_argo_cd_sends_nothing(app_dir: Path, bin_dir: Path) -> None:
    proc = run_generate(app_dir, argocd_env(bin_dir, "team-b"))
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    assert {d["metadata"]["namespace"] for d in docs} == {"testkube"}
    assert not any("annotations" in d["metadata"] for d in docs)  # argocd-sync-waves defaults to false
    expected = run_cli("render", str(app_dir), "-n", "team-b")
    assert proc.stdout == expected.stdout


def test_param_variables_alone_work_like_the_json(app_dir: Path, bin_dir: Path) -> None:
    params = [{"name": "testkube-namespace", "string": "tk"}, {"name": "paths", "array": ["smoke.yaml"]}]
    with_json = run_generate(app_dir, argocd_env(bin_dir, parameters=params))
    without = run_generate(app_dir, argocd_env(bin_dir, parameters=params, with_json=False))
    assert with_json.returncode == without.returncode == 0, with_json.stderr + without.stderr
    assert with_json.stdout == without.stdout
    assert [d["metadata"]["name"] for d in manifests_only(with_json.stdout)] == ["smoke-team-a-workflow"]


def test_parameters_win_over_plugin_env(app_dir: Path, bin_dir: Path) -> None:
    env = argocd_env(bin_dir, parameters=[{"name": "testkube-namespace", "string": "from-param"}],
                     plugin_env={"TESTKUBE_NAMESPACE": "from-env"})
    proc = run_generate(app_dir, env)
    assert {d["metadata"]["namespace"] for d in manifests_only(proc.stdout)} == {"from-param"}
    assert "testkube-namespace from parameter" in proc.stderr


def test_an_invalid_experiment_fails_with_the_error_on_stderr_and_nothing_on_stdout(app_dir: Path,
                                                                                   bin_dir: Path) -> None:
    bad = app_dir / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    proc = run_generate(app_dir, argocd_env(bin_dir, parameters=[]))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert re.search(r"weather-inline\.yaml:\d+:\d+: error\[schema/maximum\] "
                     r"spec\.dataset\.inline\.defaultThreshold: Invalid value: 1\.5", proc.stderr)
    assert "error: nothing generated: 7 files, 5 experiments: 4 valid, 1 invalid" in proc.stderr
    assert proc.stderr.startswith("./weather-inline.yaml:24:25: error[schema/maximum]")


def test_malformed_yaml_exits_1(app_dir: Path, bin_dir: Path) -> None:
    (app_dir / "broken.yaml").write_text("kind: [\n")
    proc = run_generate(app_dir, argocd_env(bin_dir))
    assert proc.returncode == 1 and proc.stdout == ""
    assert "broken.yaml:2:1: error[yaml/syntax]" in proc.stderr


def test_bad_parameters_are_all_reported_and_nothing_is_rendered(app_dir: Path, bin_dir: Path) -> None:
    params = [{"name": "testkube-namspace", "string": "x"}, {"name": "paths", "array": ["../../etc", "/etc"]},
              {"name": "agent-port", "string": "http"}, {"name": "strict", "string": "maybe"}]
    proc = run_generate(app_dir, argocd_env(bin_dir, parameters=params))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: unknown parameter 'testkube-namspace' (known: paths, testkube-namespace, agent-url, agent-port, "
        "ai-gateway-url, ai-gateway-port, include-experiment, argocd-sync-waves, defaults-file, strict, allow-empty)",
        "error: parameter 'paths': '../../etc' leaves the Application's path",
        "error: parameter 'paths': '/etc' must be a relative path",
        "error: parameter 'agent-port': 'http' is not a port number (1-65535)",
        "error: parameter 'strict': 'maybe' is not true or false",
    ]


def test_a_symlink_out_of_the_application_is_refused(app_dir: Path, bin_dir: Path, tmp_path: Path) -> None:
    (app_dir / "escape").symlink_to(tmp_path)
    proc = run_generate(app_dir, argocd_env(bin_dir, parameters=[{"name": "paths", "array": ["escape"]}]))
    assert proc.returncode == 2 and "error: parameter 'paths': 'escape' leaves the Application's path" in proc.stderr


def test_an_empty_result_is_an_error_unless_allowed(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "empty-app"
    app.mkdir()
    (app / "notes.yaml").write_text("just: some settings\n")
    refused = run_generate(app, argocd_env(bin_dir))
    assert refused.returncode == 1 and refused.stdout == ""
    assert "no manifests and no Experiments found in .; refusing to emit nothing" in refused.stderr
    allowed = run_generate(app, argocd_env(bin_dir, parameters=[{"name": "allow-empty", "string": "true"}]))
    assert allowed.returncode == 0 and allowed.stdout == ""


def test_a_path_without_experiments_passes_its_manifests_through_with_a_warning(tmp_path: Path,
                                                                                bin_dir: Path) -> None:
    app = tmp_path / "plain-app"
    app.mkdir()
    (app / "configmap.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    assert "warning: no Experiments found in .: passing the other manifests through unchanged" in proc.stderr


def test_include_experiment_and_defaults_file_parameters(app_dir: Path, bin_dir: Path) -> None:
    (app_dir / "cluster-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n  testkubeNamespace: tk2\n")
    params = [{"name": "include-experiment", "string": "true"}, {"name": "defaults-file",
                                                                 "string": "cluster-defaults.yaml"}]
    proc = run_generate(app_dir, argocd_env(bin_dir, parameters=params))
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    assert sum(d["kind"] == "Experiment" for d in docs) == 5
    assert {d["metadata"]["namespace"] for d in docs if d["kind"] == "TestWorkflow"} == {"tk2"}
    smoke = next(d for d in docs if d["kind"] == "Experiment" and d["metadata"]["name"] == "smoke")
    assert smoke["metadata"]["namespace"] == "team-a"


def test_the_example_application_renders_with_its_own_parameters(bin_dir: Path) -> None:
    app = yaml.safe_load((ROOT / "examples" / "gitops" / "argocd" / "application.yaml").read_text())
    source = app["spec"]["source"]
    assert source["plugin"]["name"] == plugin()["metadata"]["name"]
    announced = {p.name for p in PARAMETERS}
    assert {p["name"] for p in source["plugin"]["parameters"]} <= announced
    env = argocd_env(bin_dir, app["spec"]["destination"]["namespace"], source["plugin"]["parameters"],
                     {e["name"]: e["value"] for e in source["plugin"]["env"]})
    assert argo_cd_claims(ROOT / source["path"], env)  # the example opts in with its .testbench.yaml
    proc = run_generate(ROOT / source["path"], env)  # its kustomization.yaml is built with kubectl kustomize
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    workflows = [d for d in docs if d["kind"] == "TestWorkflow"]
    assert len(workflows) == 4
    assert "http://ai-gateway.ai-gateway.svc.cluster.local.:4000" in proc.stdout
    assert {d["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for d in docs} == {"0", "1", "2"}


# --- the whole Application: pass-through, kustomize, Helm -----------------------------------------------------

DEPLOYMENT = """\
# the agent, scaled by the kustomization's patch
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-agent
  labels: {app: shop-agent}
spec:
  replicas: 1
  selector:
    matchLabels: {app: shop-agent}
  template:
    metadata:
      labels: {app: shop-agent}
    spec:
      containers:
        - name: agent
          image: "ghcr.io/example/shop-agent:1.2.3"
          args: ["--port", "8000", "--verbose=on"]
"""
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: shop-agent-key
type: Opaque
stringData:
  OPENAI_API_KEY: "sk-not-a-real-key"
  enabled: "yes"
"""


def _app_with_kustomization(tmp_path: Path) -> Path:
    """Experiments, a Deployment, a Secret and a kustomization.yaml patching the Deployment."""
    app = tmp_path / "repo" / "apps" / "shop"
    app.mkdir(parents=True)
    (app / MARKER).write_text("")
    for name in ("weather-inline.yaml", "rag-s3-nightly.yaml"):
        shutil.copy(EXAMPLES / "experiments" / name, app / name)
    (app / "smoke.yaml").write_text(NO_NAMESPACE)
    (app / "deployment.yaml").write_text(DEPLOYMENT)
    (app / "secret.yaml").write_text(SECRET)
    (app / "replicas.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop-agent\n"
                                       "spec:\n  replicas: 3\n")
    (app / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources: [deployment.yaml, secret.yaml, weather-inline.yaml, rag-s3-nightly.yaml, smoke.yaml]\n"
        "patches:\n  - path: replicas.yaml\n")
    return app


def test_generate_keeps_every_manifest_of_a_kustomization_and_compiles_its_experiments(tmp_path: Path,
                                                                                    bin_dir: Path) -> None:
    """The issue's acceptance test: nothing Argo CD would prune goes missing, the patch is applied."""
    binary = kubectl()
    app = _app_with_kustomization(tmp_path)
    params = [{"name": "ai-gateway-port", "string": "4000"}]
    env = argocd_env(bin_dir, "team-a", params, {"TESTKUBE_NAMESPACE": "qa-testkube"})
    assert shutil.which("kustomize", path=env["PATH"]) is None  # so this runs the real `kubectl kustomize`
    assert argo_cd_claims(app, env)
    proc = run_generate(app, env)
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        by_kind.setdefault(doc["kind"], []).append(doc)
    assert "Experiment" not in by_kind and "Kustomization" not in by_kind
    (deployment,) = by_kind["Deployment"]
    assert deployment["spec"]["replicas"] == 3  # the kustomization's patch
    assert deployment["spec"]["template"]["spec"]["containers"][0]["args"] == ["--port", "8000", "--verbose=on"]
    (secret,) = by_kind["Secret"]
    assert secret["stringData"] == {"OPENAI_API_KEY": "sk-not-a-real-key", "enabled": "yes"}
    # the other objects exactly as kubectl kustomize printed them
    built = subprocess.run([binary, "kustomize", str(app)], capture_output=True, text=True, check=True).stdout
    foreign = [d for d in yaml.safe_load_all(built) if d["apiVersion"].split("/")[0] != "testbench.agentic-layer.ai"]
    assert [d for d in docs if d["kind"] in ("Deployment", "Secret")] == sorted(foreign, key=lambda d: d["kind"])
    # the compiled objects exactly as `render` makes them from the same Experiments
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("weather-inline.yaml", "rag-s3-nightly.yaml", "smoke.yaml"):
        shutil.copy(app / name, plain / name)
    expected = run_cli("render", str(plain), "-n", "team-a", "--testkube-namespace", "qa-testkube",
                       "--ai-gateway-port", "4000")
    assert expected.exit_code == 0, expected.output
    compiled = [d for d in docs if d["kind"] not in ("Deployment", "Secret")]
    assert compiled == [d for d in yaml.safe_load_all(expected.stdout) if d]
    assert sorted(d["kind"] for d in compiled) == ["ConfigMap", "TestWorkflow", "TestWorkflow", "TestWorkflow"]
    assert "(4 compiled from 3 Experiments, 2 passed through)" in proc.stderr
    assert "built with kubectl kustomize ." in proc.stderr


def test_plain_directory_manifests_pass_through_as_written(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "app"
    (app / "agents").mkdir(parents=True)
    shutil.copy(EXAMPLES / "experiments" / "weather-inline.yaml", app / "weather.yaml")
    (app / "agents" / "stack.yaml").write_text(DEPLOYMENT + "---\n" + SECRET)
    (app / "agents" / "list.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "agent"}},
            json.loads(json.dumps(yaml.safe_load(NO_NAMESPACE)))]}))
    (app / "values.yaml").write_text("replicas: 2\n")  # not a Kubernetes object: Argo CD ignores it too
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 0, proc.stderr
    documents = proc.stdout.split("---\n")
    assert DEPLOYMENT in documents and SECRET in documents  # comments, flow style and quotes untouched
    docs = manifests_only(proc.stdout)
    kinds = [d["kind"] for d in docs]
    assert kinds.count("ServiceAccount") == 1 and "List" not in kinds and "Experiment" not in kinds
    assert {d["metadata"]["name"] for d in docs if d["kind"] == "TestWorkflow"} == {
        "weather-agent-smoke-testkube-workflow", "smoke-team-a-workflow"}
    assert "(3 compiled from 2 Experiments, 3 passed through)" in proc.stderr


OTHERS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "key"}, "stringData": {"k": "v"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"k": "v"}},
    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "agent"}},
]


def _stream(layout: str) -> str:
    """An Experiment and three other objects in one file, written the ways kubectl reads such a file."""
    docs = [yaml.safe_load(NO_NAMESPACE), *OTHERS]
    if layout == "json-lines":
        return "".join(json.dumps(d) + "\n" for d in docs)
    if layout == "json-concatenated":  # kubectl's JSON decoder needs no separator between values
        return "".join(json.dumps(d) for d in docs)
    if layout == "json-pretty":
        return "\n".join(json.dumps(d, indent=2) for d in docs)
    return yaml.safe_dump_all(docs, sort_keys=False)


@pytest.mark.parametrize(("name", "layout"), [("stream.json", "json-lines"), ("stream.json", "json-concatenated"),
                                              ("stream.json", "json-pretty"), ("stream.yaml", "yaml")])
def test_every_object_of_a_stream_is_compiled_or_passed_through(tmp_path: Path, bin_dir: Path, name: str,
                                                                layout: str) -> None:
    """As validate and kubectl read them: a JSON stream is every value, not its first one (Argo CD would prune
    the others)."""
    app = tmp_path / "app"
    app.mkdir()
    (app / name).write_text(_stream(layout))
    validated = run_cli("validate", str(app / name))
    assert "(3 other documents skipped)" in validated.output
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 0, proc.stderr
    docs = manifests_only(proc.stdout)
    assert sorted((d["kind"], d["metadata"]["name"]) for d in docs) == [
        ("ConfigMap", "settings"), ("Secret", "key"), ("ServiceAccount", "agent"),
        ("TestWorkflow", "smoke-team-a-workflow")]
    assert {d["kind"]: d for d in docs if d["kind"] != "TestWorkflow"} == {d["kind"]: d for d in OTHERS}
    assert "1 compiled from 1 Experiments, 3 passed through" in proc.stderr


def test_a_json_array_is_refused_as_kubectl_refuses_it(tmp_path: Path, bin_dir: Path) -> None:
    """A file starting with '[' is YAML to kubectl: one document holding a list, not an object (kubectl apply:
    cannot unmarshal array). Nothing is generated rather than some of it."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "array.json").write_text(json.dumps([yaml.safe_load(NO_NAMESPACE), *OTHERS]))
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 1 and proc.stdout == ""
    assert "array.json:1:1: error[yaml/not-an-object]" in proc.stderr


def test_a_file_nested_100k_levels_deep_is_a_located_error_within_budget(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "exp.yaml").write_text(NO_NAMESPACE)
    (app / "deep.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    (app / "deep.yaml").write_text("[" * 100_000 + "]" * 100_000)
    proc = run_bounded("argocd", "generate", cwd=app, env=argocd_env(bin_dir))
    stderr = proc.stderr.decode()
    assert proc.returncode == 1 and proc.stdout == b"", stderr
    assert stderr.startswith("./deep.json:1:1281: error[yaml/too-deep] nesting deeper than 256 levels (raise with "
                             "--max-depth)\n./deep.yaml:1:257: error[yaml/too-deep] nesting deeper than 256 levels")
    assert "Traceback" not in stderr


def _alias_experiment() -> str:
    """A valid 1 MiB Experiment whose first step's input is an anchor on 1 MiB of text that 1,000 more steps
    alias: 1 GiB of text once expanded."""
    step = "            - input: {text}\n              metrics: [{{metricName: AgentGoalAccuracyWithoutReference}}]\n"
    steps = step.format(text="&big " + "x" * (1024 * 1024)) + step.format(text="*big") * 1000
    return NO_NAMESPACE.replace("  dataset:\n    url: https://datasets.example.com/smoke/experiment.json\n",
                                "  dataset:\n    inline:\n      llmAsAJudgeModel: gpt-4o-mini\n      scenarios:\n"
                                "        - name: S\n          steps:\n" + steps)


def test_an_alias_that_expands_to_a_gibibyte_fails_fast_with_the_alias_limit(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "exp.yaml").write_text(_alias_experiment())
    assert (app / "exp.yaml").read_text().count("*big") == 1000
    proc = run_bounded("argocd", "generate", cwd=app, env=argocd_env(bin_dir))
    assert proc.returncode == 1 and proc.stdout == b"", proc.stderr[-2000:]
    assert "./exp.yaml:" in proc.stderr.decode() and "error[yaml/alias-limit]" in proc.stderr.decode()


def test_a_rendered_copy_in_the_path_is_kept_once_and_a_stale_one_is_refused(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy(EXAMPLES / "experiments" / "weather-inline.yaml", app / "weather.yaml")
    assert run_cli("render", str(app), "--output-dir", str(app / "rendered")).exit_code == 0
    fresh = run_generate(app, argocd_env(bin_dir, "default"))
    assert fresh.returncode == 0, fresh.stderr
    assert [d["kind"] for d in manifests_only(fresh.stdout)] == ["ConfigMap", "TestWorkflow"]
    workflow = next((app / "rendered").glob("testworkflow_*.yaml"))
    workflow.write_text(workflow.read_text().replace("weather-agent.", "stale-agent."))
    stale = run_generate(app, argocd_env(bin_dir, "default"))
    assert stale.returncode == 1 and stale.stdout == ""
    assert "error[render/duplicate]" in stale.stderr and "with different content" in stale.stderr


def test_a_helm_chart_is_refused_with_the_reason(tmp_path: Path, bin_dir: Path) -> None:
    app = tmp_path / "chart"
    (app / "templates").mkdir(parents=True)
    (app / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (app / "templates" / "exp.yaml").write_text(NO_NAMESPACE.replace("name: smoke", "name: {{ .Release.Name }}"))
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].startswith(
        "error: ./Chart.yaml: Helm charts are out of scope for the kubectl-testbench plugin")


def test_a_kustomization_without_kustomize_or_kubectl_is_a_clear_error(tmp_path: Path, bin_dir: Path) -> None:
    app = _app_with_kustomization(tmp_path)
    env = argocd_env(bin_dir)
    env["PATH"] = str(bin_dir)  # the console script runs the interpreter by its absolute path
    proc = run_generate(app, env)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: ./kustomization.yaml needs kustomize, but neither kustomize nor kubectl is on "
                           "PATH (the sidecar image ships kustomize)\n")


def test_a_failing_kustomize_build_reports_kustomizes_message(tmp_path: Path, bin_dir: Path) -> None:
    kubectl()
    app = _app_with_kustomization(tmp_path)
    (app / "secret.yaml").unlink()
    proc = run_generate(app, argocd_env(bin_dir))
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: kubectl kustomize . failed (exit 1): ") and "secret.yaml" in line


def test_unknown_plugin_env_names_are_warned_about(app_dir: Path, bin_dir: Path) -> None:
    env = argocd_env(bin_dir, plugin_env={"testkube_namespace": "x", "TESTKUBE_NAMSPACE": "y", "COLOUR": "red",
                                          "AGENT_PORT": "9000"})
    proc = run_generate(app_dir, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[:3] == [
        "warning: plugin env 'COLOUR' (ARGOCD_ENV_COLOUR) is not a kubectl-testbench setting and is ignored; "
        "known: PATHS, TESTKUBE_NAMESPACE, AGENT_URL, AGENT_PORT, AI_GATEWAY_URL, AI_GATEWAY_PORT, "
        "INCLUDE_EXPERIMENT, ARGOCD_SYNC_WAVES, DEFAULTS_FILE, STRICT, ALLOW_EMPTY",
        "warning: plugin env 'TESTKUBE_NAMSPACE' (ARGOCD_ENV_TESTKUBE_NAMSPACE) is not a kubectl-testbench setting "
        "and is ignored; did you mean TESTKUBE_NAMESPACE?",
        "warning: plugin env 'testkube_namespace' (ARGOCD_ENV_testkube_namespace) is not a kubectl-testbench "
        "setting and is ignored; env names are case-sensitive: name it TESTKUBE_NAMESPACE (or use the parameter "
        "'testkube-namespace')",
    ]
    assert "http://weather-agent.sample-agents:9000" in proc.stdout  # the known one still applies
    assert unknown_env({"ARGOCD_ENV_STRICT": "true", "ARGOCD_APP_NAME": "x"}) == []


def test_discover_claims_only_applications_that_opt_in(tmp_path: Path, bin_dir: Path) -> None:
    """An existing Kustomize/Directory Application that happens to hold Experiments is left to Argo CD."""
    env = argocd_env(bin_dir)
    existing = tmp_path / "existing"
    shutil.copytree(EXAMPLES / "experiments", existing / "overlays" / "prod")
    (existing / "kustomization.yaml").write_text("resources: [overlays/prod]\n")
    shutil.copy(EXAMPLES / "experiments" / "weather-inline.yaml", existing / "weather.yaml")
    (existing / "overlays" / "prod" / MARKER).unlink()
    assert not argo_cd_claims(existing, env)
    assert not argo_cd_claims(existing / "overlays" / "prod", env)
    (existing / MARKER).write_text("")
    assert argo_cd_claims(existing, env)


def test_time_limit_is_argo_cds_real_one() -> None:
    assert time_limit({}) == 60.0  # the repo-server RPC timeout, below ARGOCD_EXEC_TIMEOUT's 90 s
    assert time_limit({"ARGOCD_EXEC_TIMEOUT": "30s"}) == 30.0
    assert time_limit({"ARGOCD_EXEC_TIMEOUT": "3m", "KUBECTL_TESTBENCH_RPC_TIMEOUT": "120"}) == 120.0
    assert time_limit({"ARGOCD_EXEC_TIMEOUT": "180", "KUBECTL_TESTBENCH_RPC_TIMEOUT": "300"}) == 90.0


# --- discover ------------------------------------------------------------------------------------------------


def test_discover_claims_directories_with_experiments_only(tmp_path: Path, bin_dir: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "experiments", repo / "teams" / "a")
    (repo / "teams" / "b").mkdir(parents=True)
    (repo / "teams" / "b" / "exp.json").write_text(json.dumps(yaml.safe_load(NO_NAMESPACE)))
    chart = repo / "chart" / "templates"
    chart.mkdir(parents=True)
    (chart / "deployment.yaml").write_text("{{- if .Values.enabled }}\nkind: Deployment\n{{- end }}\n")
    (repo / "defaults").mkdir()
    (repo / "defaults" / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec: {}\n")
    (repo / ".git").mkdir()
    (repo / ".git" / "exp.yaml").write_text(NO_NAMESPACE)
    env = argocd_env(bin_dir)
    proc = run_discover(repo, env)
    assert proc.returncode == 0 and proc.stdout.splitlines() == ["teams/a", "teams/b"]
    none = run_discover(repo / "chart", env)
    assert none.returncode == 0 and none.stdout == "" and none.stderr == ""


def test_discover_claims_a_broken_experiment_so_generate_can_report_it(tmp_path: Path, bin_dir: Path) -> None:
    (tmp_path / "exp.yaml").write_text(NO_NAMESPACE.replace("  name: smoke", "  name: [smoke"))
    proc = run_discover(tmp_path, argocd_env(bin_dir))
    assert proc.stdout == ".\n"


def test_discover_is_fast_on_a_large_repository(tmp_path: Path, bin_dir: Path) -> None:
    for i in range(2000):
        (tmp_path / f"cm-{i:04d}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "exp.yaml").write_text(NO_NAMESPACE)
    start = time.monotonic()
    proc = run_discover(tmp_path, argocd_env(bin_dir))
    assert proc.stdout == "zz\n"
    assert time.monotonic() - start < 5


# --- parameter parsing and the deadline -------------------------------------------------------------------


def test_parameter_problems_are_collected() -> None:
    with pytest.raises(ParameterError) as err:
        settings_from_env({"ARGOCD_APP_PARAMETERS": json.dumps([
            {"name": "paths", "map": {"a": "b"}}, {"name": "agent-url", "array": ["x"]}, {"nope": 1}])})
    problems = err.value.problems
    assert problems[0] == "parameter 'paths' takes a list, not a map"
    assert "parameter 'agent-url' takes a single value, not a list" in problems
    assert 'ARGOCD_APP_PARAMETERS: an entry without a name: {"nope": 1}' in problems
    with pytest.raises(ParameterError, match="not valid JSON"):
        settings_from_env({"ARGOCD_APP_PARAMETERS": "[{"})


def test_a_testkube_namespace_that_is_no_dns_label_is_a_parameter_problem(tmp_path: Path) -> None:
    """It becomes metadata.namespace of every TestWorkflow: Argo CD would fail the sync on each of them."""
    for env in ({"ARGOCD_ENV_TESTKUBE_NAMESPACE": "../x"},
                {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "testkube-namespace", "string": "../x"}])}):
        with pytest.raises(ParameterError) as err:
            settings_from_env(env, str(tmp_path))
        assert err.value.problems == [
            "parameter 'testkube-namespace': '../x' is not a valid namespace: a lowercase RFC 1123 label must consist "
            "of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
            "(e.g. 'my-name')"]


def test_settings_from_env_defaults_and_env(tmp_path: Path) -> None:
    (tmp_path / "exps").mkdir()
    settings = settings_from_env({"ARGOCD_APP_NAMESPACE": "ns1", "ARGOCD_ENV_AGENT_PORT": "9000",
                                  "ARGOCD_ENV_PATHS": "exps, .", "PARAM_STRICT": "TRUE"}, str(tmp_path))
    assert settings.paths == ("exps", ".")
    assert settings.flags.namespace == "ns1" and settings.flags.agent_port == 9000
    assert settings.flags.testkube_namespace is None and settings.flags.gateway_port is None
    assert settings.flags.argocd_sync_waves is None and settings.strict is True
    assert settings.sources == {"agent-port": "env", "paths": "env", "strict": "parameter"}
    assert settings_from_env({}, str(tmp_path)).flags.namespace == "default"


def test_an_application_with_a_plugin_section_but_no_parameters(tmp_path: Path) -> None:
    """Argo CD marshals the Application's absent ``plugin.parameters`` (a nil list) as JSON ``null``: an
    Application that names the plugin or sets only plugin env gets ``ARGOCD_APP_PARAMETERS=null``
    (v1alpha1.ApplicationSourcePluginParameters.Environ; test_argocd_cmp_server.py runs it)."""
    settings = settings_from_env({"ARGOCD_APP_PARAMETERS": "null", "ARGOCD_ENV_TESTKUBE_NAMESPACE": "tk"},
                                 str(tmp_path))
    assert settings.paths == (".",) and settings.flags.testkube_namespace == "tk"
    assert settings.sources == {"testkube-namespace": "env"}
    with pytest.raises(ParameterError, match="must be a JSON list of parameters"):
        settings_from_env({"ARGOCD_APP_PARAMETERS": '{"name": "strict"}'}, str(tmp_path))


@pytest.mark.parametrize(("text", "seconds"), [("", 90.0), ("90s", 90.0), ("2m30s", 150.0), ("1h", 3600.0),
                                               ("500ms", 0.5), ("1.5m", 90.0), ("soon", 90.0), ("90", 90.0)])
def test_exec_timeout_reads_go_durations(text: str, seconds: float) -> None:
    assert exec_timeout({"ARGOCD_EXEC_TIMEOUT": text}) == seconds


def test_generate_stops_with_a_message_before_argo_cd_kills_it(app_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kubectl_testbench.integrations.argocd_app as argocd_app

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(10)
        raise AssertionError("the deadline did not fire")

    monkeypatch.setattr(argocd_app, "generate", slow)
    monkeypatch.chdir(app_dir)
    for key in [k for k in os.environ if k.startswith(("ARGOCD_", "PARAM_"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("ARGOCD_EXEC_TIMEOUT", "6s")
    start = time.monotonic()
    result = run_cli("argocd", "generate")
    assert time.monotonic() - start < 5
    assert result.exit_code == 3
    assert "generating did not finish within 1 s (Argo CD allows 6 s: the smaller of ARGOCD_EXEC_TIMEOUT and the " \
           "repo-server timeout)" in result.output


# --- the sidecar ------------------------------------------------------------------------------------------


REPO_SERVER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: argocd-repo-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: argocd-repo-server}
    spec:
      containers:
        - name: argocd-repo-server
          image: quay.io/argoproj/argocd:v3.0.0
          volumeMounts:
            - {name: var-files, mountPath: /var/run/argocd}
            - {name: plugins, mountPath: /home/argocd/cmp-server/plugins}
      volumes:
        - {name: var-files, emptyDir: {}}
        - {name: plugins, emptyDir: {}}
"""


def test_sidecar_component_patches_the_repo_server(tmp_path: Path) -> None:
    binary = kubectl()
    install = tmp_path / "argocd"
    install.mkdir()
    (install / "repo-server.yaml").write_text(REPO_SERVER)
    component = Path(os.path.relpath(ROOT / "integrations" / "argocd", install))
    (install / "kustomization.yaml").write_text(
        f"namespace: argocd\nresources: [repo-server.yaml]\ncomponents: [{component}]\n")
    built = subprocess.run([binary, "kustomize", str(install)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    docs = {d["kind"]: d for d in yaml.safe_load_all(built.stdout)}
    configmap, deployment = docs["ConfigMap"], docs["Deployment"]
    assert configmap["metadata"]["name"].startswith("kubectl-testbench-plugin-")
    assert configmap["metadata"]["namespace"] == "argocd"
    assert configmap["data"]["plugin.yaml"] == PLUGIN.read_text()
    pod = deployment["spec"]["template"]["spec"]
    sidecar = next(c for c in pod["containers"] if c["name"] == "kubectl-testbench")
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    env = {e["name"]: e["value"] for e in sidecar["env"]}
    assert time_limit(env) == 60.0  # what Argo CD really allows with these settings and its defaults
    assert env == {"ARGOCD_EXEC_TIMEOUT": "90s", "KUBECTL_TESTBENCH_RPC_TIMEOUT": "60"}
    assert sidecar["securityContext"]["runAsUser"] == 999 and sidecar["securityContext"]["runAsNonRoot"] is True
    mounts = {m["mountPath"]: m for m in sidecar["volumeMounts"]}
    assert mounts["/home/argocd/cmp-server/config/plugin.yaml"]["subPath"] == "plugin.yaml"
    assert mounts["/var/run/argocd"]["name"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"]["name"] == "plugins"
    assert mounts["/tmp"]["name"] != "tmp"  # never the repo-server's own /tmp
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes[mounts["/home/argocd/cmp-server/config/plugin.yaml"]["name"]]["configMap"]["name"] == \
        configmap["metadata"]["name"]
    assert [c["name"] for c in pod["containers"]].count("argocd-repo-server") == 1


def test_dockerfile_installs_the_cli_runs_as_999_and_bakes_plugin_yaml() -> None:
    text = (ROOT / "integrations" / "argocd" / "Dockerfile").read_text()
    instructions = [line.split(None, 1) for line in text.splitlines() if line and not line.startswith("#")
                    and not line.startswith(" ")]
    assert instructions[-2] == ["USER", "999"]
    args = dict(line[1].split("=", 1) for line in instructions if line[0] == "ARG")
    for image in args.values():  # every base image pinned by digest
        assert re.fullmatch(r"[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}", image), image
    assert [line[1] for line in instructions if line[0] == "FROM"] == ["${KUSTOMIZE_IMAGE} AS kustomize",
                                                                      "${PYTHON_IMAGE}"]
    assert "COPY --from=kustomize /app/kustomize /usr/local/bin/kustomize" in text  # argocd generate builds with it
    assert "pip install --constraint /src/constraints.txt /src" in text and "kustomize version" in text
    assert "COPY integrations/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml\n".rstrip() in text
    assert "--uid 999" in text and "kubectl-testbench version" in text
    for source in re.findall(r"^COPY (?!--from)(\S+)", text, flags=re.M):
        assert (ROOT / source).exists(), source


def test_constraints_pin_every_runtime_dependency() -> None:
    """The sidecar's lock: each distribution kubectl-testbench needs at run time has an exact pin."""
    import importlib.metadata as md

    from packaging.requirements import Requirement

    pins = {}
    for line in (ROOT / "integrations" / "argocd" / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    pyproject = (ROOT / "pyproject.toml").read_text()
    block = pyproject[pyproject.index("dependencies = [") : pyproject.index("]", pyproject.index("dependencies = ["))]
    direct = [Requirement(r) for r in re.findall(r'^\s*"([^"]+)"', block, flags=re.M)]
    assert direct
    for req in direct:
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        assert key in pins, f"{req.name} is missing from constraints.txt"
        assert req.specifier.contains(pins[key]), f"{req.name}=={pins[key]} does not satisfy {req}"
    missing = []
    todo = [r.name for r in direct]
    seen: set[str] = set()
    while todo:  # the installed closure of the runtime dependencies
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        if name not in pins:
            missing.append(name)
        try:
            requires = md.distribution(name).requires or []
        except md.PackageNotFoundError:
            continue
        todo += [Requirement(r).name for r in requires
                 if not Requirement(r).marker or Requirement(r).marker.evaluate({"extra": ""})]  # type: ignore[union-attr]
    assert missing == [], f"not pinned in integrations/argocd/constraints.txt: {missing}"


def test_the_summary_names_the_namespace_the_kustomization_gave_the_experiments(tmp_path: Path,
                                                                                bin_dir: Path) -> None:
    """Issue 33 item 7: a kustomization's ``namespace: team-a`` is where the Experiments go, not the
    Application's destination (``default`` when Argo CD sends none)."""
    kubectl()
    app = tmp_path / "repo" / "apps" / "bot"
    app.mkdir(parents=True)
    (app / "smoke.yaml").write_text(NO_NAMESPACE)
    (app / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                            "namespace: team-a\nresources: [smoke.yaml]\n")
    env = argocd_env(bin_dir, "")
    proc = run_generate(app, env)
    assert proc.returncode == 0, proc.stderr
    summary = proc.stderr.splitlines()[-1]
    assert summary.startswith("kubectl-testbench: experiments: 1 objects (1 compiled from 1 Experiments, 0 passed "
                              "through) in . (Experiments in namespace team-a; built with kubectl kustomize .")
    assert "default" not in summary
    workflow = next(d for d in manifests_only(proc.stdout) if d["kind"] == "TestWorkflow")
    assert workflow["metadata"]["name"] == "smoke-team-a-workflow"  # what the summary says is what was compiled
