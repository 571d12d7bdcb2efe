"""``kubectl testbench install`` and the kustomize overlays against a real kube-apiserver (1.35): every object of
every variant is accepted by a server-side apply with ``--dry-run=server`` (the server's schema validation, strict
field validation, defaulting and admission, without storing), and the CRD and the TestWorkflowTemplates are
really applied and read back.

A server dry run stores nothing, not even a Namespace, so the namespaces the objects go into are created first
(``install --create-namespaces`` would create the Testkube and dashboard ones in a real apply).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.controlplane.cluster import EXPERIMENT_CRD, Cluster

OVERLAYS = sorted(p for p in (ROOT / "kustomize" / "overlays").iterdir() if p.is_dir())


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def dry_run(cluster: Cluster, manifest: str) -> None:
    """Every object accepted by a server-side apply with dryRun=All, without a warning; the namespaces they name
    are created first."""
    objects = documents(manifest)
    for ns in sorted({o["metadata"].get("namespace") for o in objects} - {None}):
        cluster.apply(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n")
    proc = cluster.kubectl("apply", "--server-side", "--dry-run=server", "-f", "-", input=manifest)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no warning (unknown fields are errors under SSA's strict validation; deprecations)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(objects) and all(line.endswith(" serverside-applied (server dry run)") for line in lines)


@pytest.mark.parametrize("mode", ["operator", "gitops"])
def test_install_is_accepted_by_the_server(testkube_cluster: Cluster, mode: str) -> None:
    c = testkube_cluster
    done = c.cli("install", "--mode", mode, "--create-namespaces")
    assert done.code == 0, done.err
    kinds = {o["kind"] for o in documents(done.out)}
    assert {"CustomResourceDefinition", "TestWorkflowTemplate", "ConfigMap", "Namespace"} <= kinds
    assert ("Deployment" in kinds) == (mode == "operator")
    dry_run(c, done.out)


def test_install_output_dir_is_accepted_by_the_server(testkube_cluster: Cluster, tmp_path: Path) -> None:
    """What ``--output-dir`` writes, built by kustomize as a GitOps tool would."""
    c = testkube_cluster
    assert c.cli("install", "--mode", "gitops", "--output-dir", str(tmp_path / "deploy")).code == 0
    dry_run(c, c.ok("kustomize", str(tmp_path / "deploy")))


@pytest.mark.parametrize("overlay", [ROOT / "kustomize" / "base", *OVERLAYS], ids=lambda p: p.name)
def test_kustomize_overlay_is_accepted_by_the_server(testkube_cluster: Cluster, overlay: Path) -> None:
    dry_run(testkube_cluster, testkube_cluster.ok("kustomize", str(overlay)))


def test_crd_and_templates_really_apply(testkube_cluster: Cluster) -> None:
    """The CRD and the five phase templates, applied for real into a Testkube namespace of this test, are stored as
    sent: the server pruned no field of a template (its schema knows them all)."""
    c = testkube_cluster
    testkube = c.namespace("tk-install")
    done = c.cli("install", "--mode", "gitops", "--testkube-namespace", testkube)
    assert done.code == 0, done.err
    wanted = [o for o in documents(done.out) if o["kind"] in ("CustomResourceDefinition", "TestWorkflowTemplate")]
    assert len(wanted) == 6
    c.apply(yaml.safe_dump_all(wanted))
    c.ok("wait", "--for=condition=Established", "--timeout=60s", f"customresourcedefinition/{EXPERIMENT_CRD}")
    for template in (o for o in wanted if o["kind"] == "TestWorkflowTemplate"):
        live = c.get("testworkflowtemplate", testkube, template["metadata"]["name"])
        assert live is not None
        assert live["spec"] == template["spec"], template["metadata"]["name"]
