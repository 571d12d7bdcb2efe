"""Our config-management plugin inside Argo CD's real ``argocd-cmp-server``, called by Argo CD's repo-server code.

test_argocd.py runs plugin.yaml's command with the environment Argo CD builds, as this project reads Argo CD's
sources. Here Argo CD's own code does every step (tests/integrations/cmp_server.py): the sidecar's server reads
plugin.yaml, answers discovery with its glob, unpacks the repository the client streams to it, runs
``kubectl-testbench argocd generate`` with the environment the repo-server sends and splits the output; the
client discovers the plugin, builds that environment from the Application's ``spec.source.plugin`` and reads
the manifests back. A mismatch between Argo CD and our reading of it shows up here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT, USER_CACHE_HOME, run_cli
from tests.go_toolchain import KUSTOMIZE, NO_GO, go_binary, go_tool
from tests.integrations import cmp_server
from tests.integrations.cmp_server import PLUGIN, Server
from tests.integrations.helpers import console_script
from tests.integrations.test_argocd import NO_NAMESPACE

SMOKE = NO_NAMESPACE  # an Experiment that names no namespace: ARGOCD_APP_NAMESPACE decides
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: shop-agent-key
type: Opaque
stringData:
  enabled: "yes"
"""
APP = "apps/experiments"
KUBE = {"kubeVersion": "v1.32.4+k3s1", "apiVersions": ["v1", "apps/v1", "testworkflows.testkube.io/v1"]}


@pytest.fixture(scope="module")
def binary() -> Path:
    """The server-and-client binary; a machine that cannot build it skips with the reason."""
    built = cmp_server.build()
    if isinstance(built, str):
        pytest.skip(f"Argo CD {cmp_server.ARGOCD_VERSION}'s argocd-cmp-server cannot be built here: {built}")
    return built


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A checkout: ``apps/experiments`` opts in (the examples' Experiments, their .testbench.yaml, one Experiment
    without a namespace, a Secret), ``apps/plain`` holds an Experiment but no marker."""
    root = tmp_path / "repo"
    app = root / APP
    shutil.copytree(EXAMPLES / "experiments", app)
    (app / "kustomization.yaml").unlink()  # a plain directory: no kustomize needed on this machine
    (app / "smoke.yaml").write_text(SMOKE)
    (app / "secret.yaml").write_text(SECRET)
    plain = root / "apps" / "plain"
    plain.mkdir(parents=True)
    (plain / "smoke.yaml").write_text(SMOKE)
    return root


@pytest.fixture()
def bin_dir(tmp_path: Path) -> Path:
    return console_script(tmp_path / "bin")


@pytest.fixture()
def server(binary: Path, tmp_path: Path, bin_dir: Path) -> Iterator[Server]:
    with cmp_server.cmp_server(binary, tmp_path / "sidecar", bin_dir) as running:
        yield running


def rendered(app: Path, *flags: str) -> list[dict[str, Any]]:
    """What ``kubectl-testbench render`` makes of ``app``, as objects (JSON, as Argo CD holds them)."""
    result = run_cli("render", str(app), *flags)
    assert result.exit_code == 0, result.output
    return [json.loads(json.dumps(d)) for d in yaml.safe_load_all(result.stdout) if d is not None]


def application(namespace: str = "team-a", **plugin: Any) -> dict[str, Any]:
    """The request fields of one Application (its spec.source.plugin, destination namespace, revision…)."""
    return {"appName": "experiments", "namespace": namespace, "project": "default",
            "repoURL": "https://git.example/repo.git", "sourcePath": APP, "targetRevision": "main",
            "revision": "0123456789abcdef0123456789abcdef01234567", "plugin": plugin or None, **KUBE}


def test_discovery_claims_the_path_with_the_marker_only(server: Server, repo: Path) -> None:
    claimed = server.call("match", repo, repo / APP, **application())
    assert claimed == {"detected": True, "isSupported": True, "isDiscoveryEnabled": True}
    unmarked = server.call("match", repo, repo / "apps" / "plain", **application())
    assert unmarked == {"detected": False, "isSupported": False, "isDiscoveryEnabled": True}
    # naming the plugin does not bypass discovery while plugin.yaml has a discover section (docs/gitops.md)
    named = server.call("match", repo, repo / "apps" / "plain", **application(name="kubectl-testbench"))
    assert named == {"detected": False, "isSupported": False, "isDiscoveryEnabled": True}
    # generate on the unmarked path fails in discovery, before our command runs
    refused = server.call("generate", repo, repo / "apps" / "plain", **application(name="kubectl-testbench"))
    assert refused["error"].startswith('could not find cmp-server plugin with name "kubectl-testbench" supporting')
    assert "argocd generate" not in server.log_text()


def test_the_ui_gets_plugin_yamls_static_parameters(server: Server, repo: Path) -> None:
    answer = server.call("parameters", repo, repo / APP, **application())
    static = yaml.safe_load(PLUGIN.read_text())["spec"]["parameters"]["static"]
    # proto3 has no empty string apart from "unset": a default of "" travels as no default, which the UI shows as ""
    assert answer["announcements"] == [{k: v for k, v in p.items() if v != ""} for p in static]
    assert sum(1 for p in static if p.get("string") == "") == 3
    assert [p["name"] for p in answer["announcements"]][:2] == ["paths", "testkube-namespace"]


def test_generate_returns_the_rendered_objects_with_parameters_env_and_namespace(server: Server,
                                                                               repo: Path) -> None:
    answer = server.call("generate", repo, repo / APP, **application(
        "team-a", env=[{"name": "TESTKUBE_NAMESPACE", "value": "$ARGOCD_APP_NAMESPACE-testkube"}],
        parameters=[{"name": "ai-gateway-port", "string": "4000"}, {"name": "argocd-sync-waves", "string": "true"},
                    {"name": "paths", "array": ["."]}]))
    assert "error" not in answer, answer["error"]
    # what the repo-server sent: Argo CD's substitution in plugin env, the parameters as JSON and PARAM_ variables
    sent = dict(entry.split("=", 1) for entry in answer["env"])
    assert sent["ARGOCD_ENV_TESTKUBE_NAMESPACE"] == "team-a-testkube"
    assert json.loads(sent["ARGOCD_APP_PARAMETERS"])[2] == {"name": "paths", "array": ["."]}
    assert sent["PARAM_AI_GATEWAY_PORT"] == "4000" and sent["PARAM_PATHS_0"] == "."
    assert sent["ARGOCD_APP_NAMESPACE"] == "team-a" and sent["KUBE_VERSION"] == "1.32.4"
    objects = answer["objects"]
    assert len(answer["manifests"]) == len(objects) == 9  # one manifest per object, as Argo CD splits them
    compiled = [o for o in objects if o["kind"] != "Secret"]
    assert compiled == rendered(repo / APP, "-n", "team-a", "--testkube-namespace", "team-a-testkube",
                                "--ai-gateway-port", "4000", "--argocd-sync-waves")
    smoke = next(o for o in objects if o["metadata"]["name"] == "smoke-team-a-workflow")  # ARGOCD_APP_NAMESPACE
    assert smoke["metadata"]["namespace"] == "team-a-testkube"
    assert "http://gateway.team-a.svc.cluster.local.:4000" in json.dumps(smoke)
    secret = next(o for o in objects if o["kind"] == "Secret")
    assert secret["stringData"] == {"enabled": "yes"}  # passed through, its quoting kept


def test_generate_without_parameters_applies_the_announced_defaults(server: Server, repo: Path) -> None:
    answer = server.call("generate", repo, repo / APP, **application("team-b"))
    assert "error" not in answer, answer["error"]
    assert "ARGOCD_APP_PARAMETERS" not in "".join(answer["env"])
    compiled = [o for o in answer["objects"] if o["kind"] != "Secret"]
    assert len(compiled) == len(answer["objects"]) - 1 == 8
    assert compiled == rendered(repo / APP, "-n", "team-b")
    assert {o["metadata"]["namespace"] for o in compiled} == {"testkube"}


def test_the_example_application_through_argo_cd(binary: Path, tmp_path: Path, bin_dir: Path) -> None:
    """examples/gitops/argocd/application.yaml as Argo CD would sync it: its path (the example Experiments, a
    kustomization.yaml, the .testbench.yaml marker) in a checkout, its plugin env and parameters, and a standalone
    kustomize on the sidecar's PATH as the image has one."""
    kustomize = go_tool(*KUSTOMIZE)
    if isinstance(kustomize, str):
        pytest.skip(f"the example's kustomization.yaml needs kustomize in the sidecar: {kustomize}")
    (bin_dir / "kustomize").symlink_to(kustomize)
    spec = yaml.safe_load((ROOT / "examples" / "gitops" / "argocd" / "application.yaml").read_text())["spec"]
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / spec["source"]["path"], repo / spec["source"]["path"])
    fields = {**application(spec["destination"]["namespace"], **spec["source"]["plugin"]),
              "sourcePath": spec["source"]["path"], "repoURL": spec["source"]["repoURL"]}
    with cmp_server.cmp_server(binary, tmp_path / "sidecar", bin_dir) as server:
        claimed = server.call("match", repo, repo / spec["source"]["path"], **fields)
        answer = server.call("generate", repo, repo / spec["source"]["path"], **fields)
    assert claimed["detected"] and claimed["isSupported"]
    assert "error" not in answer, answer["error"]
    # the kustomize build's Experiments compiled: what render makes of the same files with the same settings
    assert answer["objects"] == rendered(repo / spec["source"]["path"], "-n", "testkube", "--testkube-namespace",
                                         "testkube", "--ai-gateway-port", "4000", "--argocd-sync-waves")
    assert len([o for o in answer["objects"] if o["kind"] == "TestWorkflow"]) == 4
    assert {o["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for o in answer["objects"]} == {"0", "1",
                                                                                                           "2"}


@pytest.mark.parametrize("plugin", [{"name": "kubectl-testbench"},
                                    {"env": [{"name": "TESTKUBE_NAMESPACE", "value": "from-env"}]}])
def test_an_application_whose_plugin_section_has_no_parameters(server: Server, repo: Path,
                                                               plugin: dict[str, Any]) -> None:
    """Argo CD sends ``ARGOCD_APP_PARAMETERS=null`` then (a nil list marshalled): no parameters, not an error."""
    answer = server.call("generate", repo, repo / APP, **application("team-c", **plugin))
    assert "ARGOCD_APP_PARAMETERS=null" in answer["env"]
    assert "error" not in answer, answer["error"]
    namespace = "from-env" if "env" in plugin else "testkube"
    compiled = [o for o in answer["objects"] if o["kind"] != "Secret"]
    assert compiled == rendered(repo / APP, "-n", "team-c", "--testkube-namespace", namespace)


def test_the_warnings_of_a_successful_generate_reach_the_sidecar_log_only(server: Server, repo: Path) -> None:
    """Argo CD passes a failed command's stderr to the Application and logs a successful one's in the sidecar: a
    misspelt plugin env name is seen in ``kubectl logs … -c kubectl-testbench`` only (docs/gitops.md)."""
    answer = server.call("generate", repo, repo / APP,
                         **application(env=[{"name": "TESTKUBE_NAMSPACE", "value": "qa"}]))
    assert "error" not in answer, answer["error"]
    assert {o["metadata"]["namespace"] for o in answer["objects"] if o["kind"] != "Secret"} == {"testkube"}
    assert "TESTKUBE_NAMSPACE" not in json.dumps({k: v for k, v in answer.items() if k != "env"})
    log = server.log_text()
    assert "Plugin command successful" in log and "did you mean TESTKUBE_NAMESPACE?" in log


def test_an_invalid_experiment_is_a_grpc_error_with_our_message(server: Server, repo: Path) -> None:
    bad = repo / APP / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    answer = server.call("generate", repo, repo / APP, **application())
    assert answer["code"] == "Unknown" and "manifests" not in answer and "objects" not in answer
    error = answer["error"]
    assert error.startswith("error generating manifests in cmp: rpc error: code = Unknown desc = error generating "
                            "manifests: `kubectl-testbench argocd generate` failed exit status 1: ")
    assert "weather-inline.yaml:24:25: error[schema/maximum] spec.dataset.inline.defaultThreshold: " \
           "Invalid value: 1.5" in error
    assert "error: nothing generated: 7 files, 5 experiments: 4 valid, 1 invalid" in error


def slow_kustomize(repo: Path, bin_dir: Path) -> Path:
    """A kustomization in the Application and a ``kustomize`` on the sidecar's PATH that never finishes; the
    file it writes its process id to."""
    (repo / APP / "kustomization.yaml").write_text("resources: [smoke.yaml]\n")
    pid_file = bin_dir / "kustomize.pid"
    script = bin_dir / "kustomize"
    script.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n")
    script.chmod(0o755)
    return pid_file


def running(pid_file: Path) -> bool:
    """Whether the process is alive (a zombie waiting for a parent that does not reap it is not)."""
    try:
        stat = Path(f"/proc/{int(pid_file.read_text())}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize(("sidecar_env", "deadline", "budget"), [
    ({"ARGOCD_EXEC_TIMEOUT": "7s"}, 60.0, 2),  # the sidecar's exec timeout, lower than the RPC deadline
    ({"KUBECTL_TESTBENCH_RPC_TIMEOUT": "8"}, 8.0, 3),  # the repo-server's deadline, told to the sidecar
])
def test_out_of_time_our_message_reaches_the_repo_server(binary: Path, tmp_path: Path, repo: Path, bin_dir: Path,
                                                        sidecar_env: dict[str, str], deadline: float,
                                                        budget: int) -> None:
    pid_file = slow_kustomize(repo, bin_dir)
    with cmp_server.cmp_server(binary, tmp_path / "sidecar", bin_dir, env=sidecar_env) as server:
        start = time.monotonic()
        answer = server.call("generate", repo, repo / APP, timeout=deadline, **application())
        took = time.monotonic() - start
    assert answer["code"] == "Unknown", answer
    # generate's own deadline (exit 3) or, when it is the first to fire, kustomize's timeout (exit 2): both at budget
    pattern = rf"`kubectl-testbench argocd generate` failed exit status [23]: .*did not finish within {budget} s"
    assert re.search(pattern, answer["error"]), answer["error"]
    assert budget <= took < deadline - 1
    assert not running(pid_file)  # our kustomize run ended with generate


def test_at_argo_cds_own_deadline_the_command_is_killed_without_a_message(binary: Path, tmp_path: Path, repo: Path,
                                                                         bin_dir: Path) -> None:
    """Why ``generate`` stops itself: a repo-server deadline the sidecar was not told about (here 4 s, our budget
    55 s) ends the command 100 ms before the deadline: cmpserver/plugin/plugin.go sends SIGTERM to its process
    group when the request context ends and SIGKILL 5 s later, which leaves Argo CD nothing to show but
    ``signal: terminated`` (or ``signal: killed``, when the process outlived the SIGTERM)."""
    pid_file = slow_kustomize(repo, bin_dir)
    with cmp_server.cmp_server(binary, tmp_path / "sidecar", bin_dir) as server:
        start = time.monotonic()
        answer = server.call("generate", repo, repo / APP, timeout=4.0, **application())
        took = time.monotonic() - start
        time.sleep(0.5)
        assert not running(pid_file)  # Argo CD signals the command's whole process group
    assert answer["code"] == "Unknown", answer
    assert answer["error"].endswith(("`kubectl-testbench argocd generate` failed signal: terminated",
                                     "`kubectl-testbench argocd generate` failed signal: killed"))
    assert 3.5 < took < 5.0


SLOW_PLUGIN = """\
apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: slow
spec:
  discover:
    fileName: .testbench.yaml
  generate:
    command: [sh, -c, "sleep 3; echo 'kind: Namespace'; echo 'apiVersion: v1'; echo 'metadata: {name: x}'"]
"""


def test_argo_cds_server_bounds_a_command_by_the_request_deadline_only(binary: Path, tmp_path: Path, repo: Path,
                                                                       bin_dir: Path) -> None:
    """What docs/gitops.md says about time limits: Argo CD's documentation has each CMP command also time out on
    the sidecar's ``ARGOCD_EXEC_TIMEOUT``, but the pinned server runs it under the request's deadline alone. Our
    ``generate`` still stops before the smaller of the two, which is never later than Argo CD's limit."""
    with cmp_server.cmp_server(binary, tmp_path / "sidecar", bin_dir, plugin_yaml=SLOW_PLUGIN,
                               env={"ARGOCD_EXEC_TIMEOUT": "1s"}) as server:
        answer = server.call("generate", repo, repo / APP, timeout=30.0, **application())
    assert "error" not in answer, answer["error"]
    assert answer["objects"] == [{"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "x"}}]


def replaces(go_mod: str) -> dict[str, str]:
    """A go.mod's replace directives, module to target (single lines and blocks alike)."""
    return dict(re.findall(r"^(?:replace )?\s*(\S+) => (\S+(?: v\S+)?)$", go_mod, re.MULTILINE))


def test_go_mod_carries_argo_cds_own_replaces_and_the_docs_name_the_version() -> None:
    """A dependency's replace lines do not apply to a module that requires it: ours repeats Argo CD's, so the
    server is built from the modules Argo CD's release is built from; only ./gitops-engine has to be a version."""
    go = go_binary()
    if go is None:
        pytest.skip(NO_GO)
    env = {**os.environ, "GOWORK": "off", "GOFLAGS": "-mod=mod", "XDG_CACHE_HOME": str(USER_CACHE_HOME)}
    module = f"github.com/argoproj/argo-cd/v3@{cmp_server.ARGOCD_VERSION}"
    proc = subprocess.run([go, "mod", "download", "-json", module], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    theirs = replaces(Path(json.loads(proc.stdout)["GoMod"]).read_text())
    ours = replaces((cmp_server.HERE / "go.mod").read_text())
    engine = "github.com/argoproj/argo-cd/gitops-engine"
    assert theirs.pop(engine) == "./gitops-engine" and len(theirs) > 30
    assert ours.pop(engine).startswith(engine + " v0.0.0-")
    assert ours == theirs
    assert f"Argo CD {cmp_server.ARGOCD_VERSION}" in (ROOT / "docs" / "gitops.md").read_text()
