"""RBAC as docs/cluster.md documents it, decided by kube-apiserver's own authorizer (1.35).

A user the server authenticates, ``tb-user`` (a client certificate signed by the control plane's CA, not in
``system:masters``), is bound to exactly the Role and ClusterRole the docs give (read from the docs' YAML, so the
two cannot drift apart), and every command is shown to work with them. Then, for each command, each permission
it needs is taken away in turn: the command fails with one ``error:`` line naming the verb, the resource and the
namespace, exit code 3, never a traceback. An optional permission taken away gives a ``note:`` and success.
"""

from __future__ import annotations

import base64
import re
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.controlplane.cluster import EXPERIMENTS, Cluster, Result

USER = "tb-user"
DOCS = ROOT / "docs" / "cluster.md"
CM, WF, TT = "configmaps", "testworkflows.testworkflows.testkube.io", "testtriggers.tests.testkube.io"
TWE, EXP = "testworkflowexecutions.testworkflows.testkube.io", "experiments.testbench.agentic-layer.ai"
HINT = "ask for a Role that grants it (see docs/cluster.md)"


def documented_roles() -> dict[str, dict[str, Any]]:
    """The Role and the ClusterRole of docs/cluster.md's RBAC section, by kind."""
    text = DOCS.read_text()
    section = text[text.index("\n## RBAC\n"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    docs = [d for block in blocks for d in yaml.safe_load_all(block) if d]
    roles = {d["kind"]: d for d in docs if d["kind"] in ("Role", "ClusterRole")}
    assert set(roles) == {"Role", "ClusterRole"}, docs
    return roles


def mint_user(cluster: Cluster, d: Path, namespace: str) -> Path:
    """A kubeconfig for ``tb-user``: a client certificate from the control plane's CA (``ca.crt``/``ca.key`` in its
    DIR), the admin kubeconfig's server and CA, the context's namespace ``namespace``."""
    ca = cluster.plane.dir
    for args in (["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "user.key"],
                 ["req", "-new", "-key", "user.key", "-subj", f"/CN={USER}", "-out", "user.csr"]):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)
    (d / "user.ext").write_text("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                                "extendedKeyUsage=clientAuth\n")
    subprocess.run(["openssl", "x509", "-req", "-in", "user.csr", "-CA", str(ca / "ca.crt"), "-CAkey",
                    str(ca / "ca.key"), "-set_serial", str(uuid.uuid4().int >> 64), "-days", "1", "-sha256",
                    "-extfile", "user.ext", "-out", "user.crt"], cwd=d, check=True, capture_output=True)
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    b64 = {name: base64.b64encode((d / name).read_bytes()).decode() for name in ("user.crt", "user.key")}
    config = {"apiVersion": "v1", "kind": "Config", "current-context": USER,
              "clusters": admin["clusters"],
              "contexts": [{"name": USER, "context": {"cluster": admin["clusters"][0]["name"], "user": USER,
                                                      "namespace": namespace}}],
              "users": [{"name": USER, "user": {"client-certificate-data": b64["user.crt"],
                                                "client-key-data": b64["user.key"]}}]}
    path = d / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


@dataclass
class Rbac:
    """tb-user, bound to the documented roles in namespaces of this module; :meth:`without` takes a permission
    away (``None``: the documented roles as they are)."""

    cluster: Cluster
    kubeconfig: Path
    testkube: str
    namespace: str
    src: Path
    removed: tuple[str, str] | None = None
    roles: dict[str, dict[str, Any]] = field(default_factory=documented_roles)

    def flags(self) -> list[str]:
        return ["--testkube-namespace", self.testkube]

    def cli(self, *args: str) -> Result:
        return self.cluster.cli(*args, kubeconfig=self.kubeconfig)

    def without(self, removed: tuple[str, str] | None) -> None:
        """The documented roles minus ``(verb, resource)``, applied; returns once the authorizer agrees."""
        role, cluster_role = (yaml.safe_load(yaml.safe_dump(self.roles[k])) for k in ("Role", "ClusterRole"))
        role["metadata"]["namespace"] = self.testkube
        cluster_role["metadata"]["name"] = f"{cluster_role['metadata']['name']}-{self.namespace}"
        for rule in (*role["rules"], *cluster_role["rules"]):
            resource = f"{rule['resources'][0]}.{rule['apiGroups'][0]}".rstrip(".")
            if removed and resource == removed[1]:
                rule["verbs"] = [v for v in rule["verbs"] if v != removed[0]]
        bindings = [(self.testkube, "Role", role["metadata"]["name"]),
                    (self.namespace, "ClusterRole", cluster_role["metadata"]["name"])]
        self.cluster.apply(yaml.safe_dump_all([role, cluster_role, *(
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": f"tb-user-{kind.lower()}", "namespace": ns},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": USER}]}
            for ns, kind, name in bindings)]), "--field-manager=test-rbac", "--force-conflicts")
        previous, self.removed = self.removed, removed
        if previous and previous != removed:
            self.until(previous, "yes")
        if removed:
            self.until(removed, "no")

    def until(self, permission: tuple[str, str], answer: str) -> None:
        verb, resource = permission
        ns = self.namespace if resource == EXP else self.testkube
        for _ in range(100):
            if self.cluster.kubectl("auth", "can-i", verb, resource, "-n", ns,
                                    kubeconfig=self.kubeconfig).stdout.strip() == answer:
                return
            time.sleep(0.1)
        pytest.fail(f"the authorizer never answered {answer} to {verb} {resource} in {ns}")

    def experiment(self, base: str = "weather") -> tuple[Path, str]:
        """A directory with one Experiment of a new name (so every object it renders to is new); (dir, name)."""
        name = f"{base}-{uuid.uuid4().hex[:6]}"
        d = self.src / name
        d.mkdir()
        (d / f"{base}.yaml").write_text((EXPERIMENTS / f"{base}.yaml").read_text().replace(
            f"name: {base}\n", f"name: {name}\n", 1))
        return d, name


@pytest.fixture(scope="module")
def rbac(testkube_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Rbac:
    c = testkube_cluster
    namespace, testkube = c.namespace("exp"), c.namespace("tk-rbac")
    d = tmp_path_factory.mktemp("rbac")
    r = Rbac(c, mint_user(c, d, namespace), testkube, namespace, tmp_path_factory.mktemp("experiments"))
    r.without(None)
    whoami = c.kubectl("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}", kubeconfig=r.kubeconfig)
    assert whoami.stdout == USER, whoami.stderr
    assert c.kubectl("auth", "can-i", "get", "configmaps", "-n", "default", kubeconfig=r.kubeconfig).stdout == "no\n"
    return r


def test_every_command_works_with_exactly_the_documented_roles(rbac: Rbac) -> None:
    rbac.without(None)
    src, name = rbac.experiment()
    ns, tk = rbac.namespace, rbac.testkube
    assert rbac.cli("diff", str(src), *rbac.flags(), "--include-experiment").code == 1
    applied = rbac.cli("apply", str(src), *rbac.flags(), "--include-experiment")
    assert applied.code == 0, applied.err
    for args in (["diff", str(src), "--include-experiment"], ["diff", str(src), "--local"],
                 ["diff", str(src), "--prune", "--prune-experiment-namespace", ns]):
        done = rbac.cli(*args, *rbac.flags())
        assert done.code == 0, (args, done.err)
    status = rbac.cli("status", *rbac.flags(), "-o", "json")
    assert status.code == 0 and "note:" not in status.err, status.err
    assert yaml.safe_load(status.out)["items"][0]["source"] == "experiment"
    assert rbac.cli("status", name, *rbac.flags()).code == 0
    run = rbac.cli("run", name, *rbac.flags())
    assert (run.code, run.lines()[0].split(" created ", 1)[1]) == (0, f"for TestWorkflow {tk}/{name}-{ns}-workflow "
                                                                      f"(Experiment {ns}/{name})"), run.err
    waited = rbac.cli("run", name, *rbac.flags(), "--wait", "--timeout", "0.3s", "--poll-interval", "0.1s")
    assert waited.code == 1 and "still pending after 0.3s (--timeout)" in waited.err, waited.err
    (src / "weather.yaml").unlink()
    pruned = rbac.cli("apply", str(src), *rbac.flags(), "--allow-empty", "--prune", "--prune-experiment-namespace", ns)
    assert pruned.code == 0, pruned.err
    assert len([line for line in pruned.lines() if " pruned (" in line]) == 3


def forbidden(verb: str, resource: str, namespace: str, hint: str = "") -> str:
    return (f'error: forbidden: RBAC does not allow user "{USER}" to {verb} {resource} in namespace "{namespace}"'
            f"{hint}; {HINT}")


CREATE_HINT = " (a server-side apply that creates an object needs create as well as patch)"
CASES = [  # (command, the permission taken away); the command needs it
    ("apply", ("patch", CM)), ("apply", ("patch", WF)), ("apply", ("patch", TT)),
    ("apply", ("create", CM)), ("apply", ("create", WF)), ("apply", ("create", TT)),
    ("apply --include-experiment", ("patch", EXP)), ("apply --include-experiment", ("create", EXP)),
    ("diff", ("get", CM)), ("diff", ("get", WF)), ("diff", ("get", TT)),
    ("diff", ("patch", WF)), ("diff", ("create", TT)), ("diff --local", ("get", WF)), ("diff --prune", ("list", CM)),
    ("prune", ("list", CM)), ("prune", ("list", WF)), ("prune", ("list", TT)),
    ("prune", ("delete", CM)), ("prune", ("delete", WF)), ("prune", ("delete", TT)),
    ("run", ("get", WF)), ("run", ("create", TWE)), ("run --wait", ("get", TWE)),
    ("status", ("list", WF)), ("status", ("list", TT)), ("status", ("list", TWE)),
]


@pytest.mark.parametrize(("command", "removed"), CASES, ids=[f"{c}-{v}-{r.split('.')[0]}" for c, (v, r) in CASES])
def test_without_a_permission_the_command_fails_in_one_line(rbac: Rbac, command: str,
                                                           removed: tuple[str, str]) -> None:
    verb, resource = removed
    src, name = rbac.experiment()
    if command == "prune":  # something to delete: the Experiment's objects, applied with every permission
        rbac.without(None)
        assert rbac.cli("apply", str(src), *rbac.flags()).code == 0
        (src / "weather.yaml").unlink()
    if command in ("run", "run --wait"):
        rbac.without(None)
        assert rbac.cli("apply", str(src), *rbac.flags()).code == 0
    rbac.without(removed)
    args = {"apply": ["apply", str(src)], "apply --include-experiment": ["apply", str(src), "--include-experiment"],
            "diff": ["diff", str(src)], "diff --local": ["diff", str(src), "--local"],
            "diff --prune": ["diff", str(src), "--prune", "--prune-experiment-namespace", rbac.namespace],
            "prune": ["prune", str(src), "--allow-empty", "--prune-experiment-namespace", rbac.namespace],
            "run": ["run", name], "run --wait": ["run", name, "--wait", "--poll-interval", "0.1s"],
            "status": ["status"]}[command]
    done = rbac.cli(*args, *rbac.flags())
    assert done.code == 3, done.err
    errors = [line for line in done.lines() if line.startswith("error: ")]
    namespace = rbac.namespace if resource == EXP else rbac.testkube
    hint = CREATE_HINT if verb == "create" and not command.startswith("run") else ""
    assert errors[0] == forbidden(verb, resource, namespace, hint), done.err
    assert all(line.startswith(("error: ", "testworkflowexecution.", "configmap/", "testworkflow.", "testtrigger."))
               for line in done.lines()), done.err


def test_optional_permissions_give_a_note(rbac: Rbac) -> None:
    """Without ``get`` on Experiments, ``run`` finds the workflow by the name render gives it; without ``list``,
    ``status`` shows the rows from the workflows."""
    rbac.without(None)
    src, name = rbac.experiment()
    assert rbac.cli("apply", str(src), *rbac.flags()).code == 0
    rbac.without(("get", EXP))
    run = rbac.cli("run", name, *rbac.flags())
    assert run.code == 0, run.err
    assert run.lines()[0] == (f"note: {forbidden('get', EXP, rbac.namespace)[len('error: '):]}: the workflow is the "
                              f"one render names, {name}-{rbac.namespace}-workflow")
    rbac.without(("list", EXP))
    status = rbac.cli("status", *rbac.flags())
    assert status.code == 0, status.err
    assert status.lines() == [f"note: Experiments not listed: {forbidden('list', EXP, rbac.namespace)[7:]}"]
    assert f"{name}  " in status.out and status.out.splitlines()[1].rstrip().endswith("workflow")
