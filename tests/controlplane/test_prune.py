"""``kubectl testbench prune`` against a real kube-apiserver (1.35): it deletes only objects labelled as ours whose
Experiment is gone from the input (or no longer generates them), in the Testkube namespace it renders to; an
unlabelled ConfigMap, another manager's object with the same name and our objects elsewhere all survive."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.controlplane.cluster import Cluster, experiments

WF = "testworkflow.testworkflows.testkube.io"
OURS = "app.kubernetes.io/managed-by=kubectl-testbench"


@pytest.fixture(scope="module")
def testkube(testkube_cluster: Cluster) -> str:
    return testkube_cluster.namespace("tk-prune")


def flags(namespace: str, testkube: str) -> list[str]:
    return ["-n", namespace, "--testkube-namespace", testkube]


def foreign(cluster: Cluster, kind: str, api_version: str, name: str, namespace: str, labels: dict[str, str],
            manager: str) -> None:
    """An object another field manager applies (a TestWorkflow with an empty spec is valid)."""
    label_lines = "".join(f"    {k}: {v}\n" for k, v in labels.items())
    body = "data:\n  owner: someone-else\n" if kind == "ConfigMap" else "spec: {}\n"
    cluster.apply(f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
                  f"  labels:\n{label_lines}{body}", f"--field-manager={manager}")


def test_prune_deletes_only_our_objects_whose_experiment_is_gone(testkube_cluster: Cluster, testkube: str,
                                                                  tmp_path: Path) -> None:
    c = testkube_cluster
    a, b, elsewhere = c.namespace("exp"), c.namespace("exp"), c.namespace("elsewhere")
    src = experiments(tmp_path / "a", "weather", "news")
    assert c.cli("apply", str(src), *flags(a, testkube)).code == 0
    assert c.cli("apply", str(experiments(tmp_path / "b", "news")), *flags(b, testkube)).code == 0
    stale = f"news-{a}-workflow"
    experiment = {"testbench.agentic-layer.ai/experiment-name": "news",
                  "testbench.agentic-layer.ai/experiment-namespace": a}
    c.ok("create", "configmap", f"news-{a}-experiment", "-n", testkube, "--from-literal=owner=nobody")  # no labels
    foreign(c, "ConfigMap", "v1", stale, testkube, {**experiment, "app.kubernetes.io/managed-by": "someone-else"},
            "someone-else")  # our stale workflow's name, another manager's labels
    foreign(c, "TestWorkflow", "testworkflows.testkube.io/v1", stale, elsewhere,
            {**experiment, "app.kubernetes.io/managed-by": "kubectl-testbench"}, "someone-else")  # not in scope
    before = {ns: c.names("configmaps,testworkflows,testtriggers", ns) for ns in (testkube, elsewhere)}

    (src / "news.yaml").unlink()
    dry = c.cli("prune", str(src), *flags(a, testkube), "--prune-experiment-namespace", a, "--dry-run=server")
    assert dry.code == 0, dry.err
    assert dry.lines() == [f"{WF}/{stale} pruned (server dry run) (its Experiment is no longer in the input: {a}/news)"]
    assert c.names("testworkflows", testkube) == sorted(f"{WF}/{n}" for n in (stale, f"weather-{a}-workflow",
                                                                               f"news-{b}-workflow"))

    done = c.cli("prune", str(src), *flags(a, testkube), "--prune-experiment-namespace", a)
    assert done.code == 0, done.err
    assert done.lines() == [f"{WF}/{stale} pruned (its Experiment is no longer in the input: {a}/news)"]
    after = {ns: c.names("configmaps,testworkflows,testtriggers", ns) for ns in (testkube, elsewhere)}
    assert after == {testkube: [n for n in before[testkube] if n != f"{WF}/{stale}"],
                     elsewhere: before[elsewhere]}
    survivors = c.get("configmap", testkube, stale)
    assert survivors is not None and survivors["data"] == {"owner": "someone-else"}
    assert c.get("testworkflow", elsewhere, stale) is not None
    assert c.get("configmap", testkube, f"news-{a}-experiment") is not None
    assert c.get("testworkflow", testkube, f"news-{b}-workflow") is not None  # another Experiment namespace's

    again = c.cli("prune", str(src), *flags(a, testkube), "--prune-experiment-namespace", a)
    assert (again.code, again.lines()) == (0, [f"nothing to prune in namespace {testkube}"]), again.err


def test_prune_deletes_what_an_experiment_no_longer_generates(testkube_cluster: Cluster, testkube: str,
                                                              tmp_path: Path) -> None:
    """A disabled trigger and a dataset switched from inline to a URL: the TestTrigger and the ConfigMap go (trigger
    first, as prune deletes in reverse dependency order), the TestWorkflow stays (it is updated by apply)."""
    c = testkube_cluster
    ns = c.namespace("exp")
    src = experiments(tmp_path, "weather")
    assert c.cli("apply", str(src), *flags(ns, testkube)).code == 0
    weather = src / "weather.yaml"
    text = weather.read_text().replace("enabled: true", "enabled: false")
    weather.write_text(text[:text.index("  dataset:")] + "  dataset:\n    url: https://example.com/weather.json\n")
    done = c.cli("apply", str(src), *flags(ns, testkube), "--prune", "--prune-experiment-namespace", ns)
    assert done.code == 0, done.err
    assert done.lines() == [
        f"{WF}/weather-{ns}-workflow serverside-applied",
        f"testtrigger.tests.testkube.io/weather-{ns}-trigger pruned (its Experiment no longer generates it: "
        f"{ns}/weather)",
        f"configmap/weather-{ns}-experiment pruned (its Experiment no longer generates it: {ns}/weather)"]
    assert c.names("configmaps,testworkflows,testtriggers", testkube,
                   f"testbench.agentic-layer.ai/experiment-namespace={ns}") == [
        f"{WF}/weather-{ns}-workflow"]
    assert c.cli("diff", str(src), *flags(ns, testkube), "--prune", "--prune-experiment-namespace", ns).code == 0
