"""Kubeconfig, context, namespace and in-cluster resolution; durations; the lazy kubernetes import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kubectl_testbench.cli.cluster_options import default_namespace
from kubectl_testbench.cluster import config
from kubectl_testbench.cluster.config import ClusterOptions, connect, parse_duration
from kubectl_testbench.cluster.errors import ConfigError
from tests.cluster.fakeapi import FakeApiServer
from tests.conftest import ROOT

pytestmark = pytest.mark.fake_api(
    "a request that must wait without a timeout: the stand-in holds its answer on demand")


def write(path: Path, current: str | None, contexts: dict[str, str | None], server: str) -> Path:
    data: dict[str, object] = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u", **({"namespace": ns} if ns else {})}}
                     for n, ns in contexts.items()],
    }
    if current:
        data["current-context"] = current
    path.write_text(yaml.safe_dump(data))
    return path


def test_kubeconfig_flag_wins_over_the_environment(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = write(isolated / "a", "ctx-a", {"ctx-a": "ns-a"}, "https://a.example:6443")
    b = write(isolated / "b", "ctx-b", {"ctx-b": "ns-b"}, "https://b.example:6443")
    monkeypatch.setenv("KUBECONFIG", str(a))
    conn = connect(ClusterOptions(kubeconfig=str(b)))
    assert (conn.server, conn.context, conn.namespace) == ("https://b.example:6443", "ctx-b", "ns-b")


def test_kubeconfig_list_first_current_context_wins(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kubectl merges KUBECONFIG files with "first wins"; the Python client alone would take the last."""
    a = write(isolated / "a", "ctx-a", {"ctx-a": "ns-a"}, "https://a.example:6443")
    b = write(isolated / "b", "ctx-b", {"ctx-b": "ns-b"}, "https://b.example:6443")
    monkeypatch.setenv("KUBECONFIG", f"{isolated / 'missing'}:{a}:{b}")
    conn = connect(ClusterOptions())
    assert (conn.context, conn.namespace) == ("ctx-a", "ns-a")
    conn = connect(ClusterOptions(context="ctx-b"))
    assert (conn.context, conn.namespace) == ("ctx-b", "ns-b")


def test_home_kubeconfig_is_the_fallback(isolated: Path) -> None:
    (isolated / ".kube").mkdir()
    write(isolated / ".kube" / "config", "home", {"home": None}, "https://home.example:6443")
    conn = connect(ClusterOptions(namespace="explicit"))
    assert (conn.server, conn.namespace) == ("https://home.example:6443", "explicit")
    assert connect(ClusterOptions()).namespace == "default"


def test_no_current_context(isolated: Path) -> None:
    path = write(isolated / "kc", None, {"x": None}, "https://x.example")
    with pytest.raises(ConfigError, match=r"no current-context in .*: pass --context \(available: x\)"):
        connect(ClusterOptions(kubeconfig=str(path)))


def test_broken_credentials_are_a_config_error(isolated: Path) -> None:
    path = isolated / "kc"
    path.write_text(yaml.safe_dump({
        "clusters": [{"name": "c", "cluster": {"server": "https://x", "certificate-authority": "/nope/ca.crt"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}], "current-context": "x"}))
    with pytest.raises(ConfigError, match='cannot load context "x" from'):
        connect(ClusterOptions(kubeconfig=str(path)))


def test_in_cluster_service_account(isolated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("pod-token")
    (sa / "ca.crt").write_text("not read until the first request")
    (sa / "namespace").write_text("ci-runner\n")
    monkeypatch.setattr(config, "SERVICE_ACCOUNT_DIR", sa)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    import kubernetes.config.incluster_config as incluster

    monkeypatch.setattr(incluster, "SERVICE_TOKEN_FILENAME", str(sa / "token"))
    monkeypatch.setattr(incluster, "SERVICE_CERT_FILENAME", str(sa / "ca.crt"))
    conn = connect(ClusterOptions())
    assert (conn.server, conn.context, conn.namespace) == ("https://10.0.0.1:443", None, "ci-runner")
    assert default_namespace(ClusterOptions()) == "ci-runner"
    with pytest.raises(ConfigError, match="--context other needs a kubeconfig"):
        connect(ClusterOptions(context="other"))


def test_default_namespace_without_connecting(kubeconfig: Path, isolated: Path) -> None:
    assert default_namespace(ClusterOptions()) == "team-a"
    assert default_namespace(ClusterOptions(context="other")) == "other-ns"
    assert default_namespace(ClusterOptions(namespace="x")) == "x"
    assert default_namespace(ClusterOptions(kubeconfig=str(isolated / "missing"))) == "default"


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30), ("2m", 120), ("1h30m", 5400), ("0", 0), ("1.5", 1.5),
                                               ("250ms", 0.25), ("1m0.5s", 60.5)])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5 m", "m5", "1d", "-1s", "1s2"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


def test_request_timeout_zero_means_no_timeout(api: FakeApiServer, kubeconfig: Path) -> None:
    from tests.cluster.conftest import cli

    assert cli("status", "--request-timeout", "0").exit_code == 0


def test_kubernetes_is_imported_only_by_cluster_commands(tmp_path: Path) -> None:
    """Start-up: the CLI module, validate, render and --help must not import the kubernetes client."""
    exp = ROOT / "tests" / "cluster" / "fixtures" / "news.yaml"
    code = f"""
import sys
import kubectl_testbench.cli.main as m
assert 'kubernetes' not in sys.modules, 'import of cli.main'
for argv in (['validate', {str(exp)!r}], ['render', {str(exp)!r}], ['apply', '--help'], ['--help'],
             ['apply', {str(exp)!r}, '--dry-run=client']):
    try:
        m.cli.main(args=argv, prog_name='kubectl testbench', standalone_mode=False)
    except SystemExit:
        pass
    assert 'kubernetes' not in sys.modules, argv
from kubectl_testbench.cli.kubectl_complete import completions

completions(['apply', '--'])
assert 'kubernetes' not in sys.modules, 'completion of flags'
print('ok')
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")
