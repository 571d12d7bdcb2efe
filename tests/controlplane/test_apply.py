"""``kubectl testbench apply`` against a real kube-apiserver (1.35): server-side apply with our field manager, in
dependency order, a server dry run that stores nothing, ``-o`` printing what the server returned, and field
conflicts with another manager (refused, then taken over with ``--force-conflicts``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.controlplane.cluster import Cluster, experiments

MANAGER = "kubectl-testbench"
WORKFLOWS = "testworkflows.testworkflows.testkube.io"


@pytest.fixture(scope="module")
def testkube(testkube_cluster: Cluster) -> str:
    """This module's Testkube namespace (prune and status of other modules never see it)."""
    return testkube_cluster.namespace("tk-apply")


def flags(namespace: str, testkube: str) -> list[str]:
    return ["-n", namespace, "--testkube-namespace", testkube]


def test_apply_is_server_side_by_our_field_manager_in_dependency_order(testkube_cluster: Cluster, testkube: str,
                                                                       tmp_path: Path) -> None:
    """Every object is owned by one ``Apply`` entry of ``kubectl-testbench``, and etcd's revisions (the
    resourceVersion of a just-created object) show the order the server received them in: ConfigMap, both
    TestWorkflows, TestTrigger, then the Experiment."""
    c = testkube_cluster
    ns = c.namespace("exp")
    done = c.cli("apply", str(experiments(tmp_path, "weather", "news")), *flags(ns, testkube), "--include-experiment")
    assert done.code == 0, done.err
    order = [("configmap", testkube, f"weather-{ns}-experiment"), ("testworkflow", testkube, f"news-{ns}-workflow"),
             ("testworkflow", testkube, f"weather-{ns}-workflow"), ("testtrigger", testkube, f"weather-{ns}-trigger"),
             ("experiment", ns, "news"), ("experiment", ns, "weather")]
    assert done.lines() == [
        f"configmap/weather-{ns}-experiment serverside-applied",
        f"testworkflow.{WORKFLOWS.split('.', 1)[1]}/news-{ns}-workflow serverside-applied",
        f"testworkflow.{WORKFLOWS.split('.', 1)[1]}/weather-{ns}-workflow serverside-applied",
        f"testtrigger.tests.testkube.io/weather-{ns}-trigger serverside-applied",
        "experiment.testbench.agentic-layer.ai/news serverside-applied",
        "experiment.testbench.agentic-layer.ai/weather serverside-applied"]
    live = [c.get(*key) for key in order]
    revisions = []
    for key, obj in zip(order, live, strict=True):
        assert obj is not None, key
        managers = [(m["manager"], m["operation"]) for m in obj["metadata"]["managedFields"]]
        assert managers == [(MANAGER, "Apply")], (key, managers)
        revisions.append(int(obj["metadata"]["resourceVersion"]))
    assert revisions == sorted(set(revisions)), list(zip(order, revisions, strict=True))  # increasing, no ties


def test_server_dry_run_stores_nothing_and_prints_the_servers_answer(testkube_cluster: Cluster, testkube: str,
                                                                     tmp_path: Path) -> None:
    c = testkube_cluster
    ns = c.namespace("exp")
    src = experiments(tmp_path, "weather")
    dry = c.cli("apply", str(src), *flags(ns, testkube), "--dry-run=server", "-o", "json")
    assert dry.code == 0, dry.err
    assert dry.lines() == [f"configmap/weather-{ns}-experiment serverside-applied (server dry run)",
                           f"testworkflow.testworkflows.testkube.io/weather-{ns}-workflow serverside-applied "
                           "(server dry run)",
                           f"testtrigger.tests.testkube.io/weather-{ns}-trigger serverside-applied (server dry run)"]
    answered = json.loads(dry.out)["items"]
    assert [o["kind"] for o in answered] == ["ConfigMap", "TestWorkflow", "TestTrigger"]
    assert all(o["metadata"]["uid"] and "managedFields" not in o["metadata"] for o in answered)  # the server's
    assert c.names("configmaps,testworkflows,testtriggers", testkube, f"testbench.agentic-layer.ai/experiment-"
                   f"namespace={ns}") == []

    assert c.cli("apply", str(src), *flags(ns, testkube)).code == 0
    before = c.get("testworkflow", testkube, f"weather-{ns}-workflow")
    assert before is not None
    (src / "weather.yaml").write_text((src / "weather.yaml").read_text().replace('"0 3 * * *"', '"0 5 * * *"'))
    dry = c.cli("apply", str(src), *flags(ns, testkube), "--dry-run=server", "-o", "yaml")
    assert dry.code == 0, dry.err
    merged = [d for d in yaml.safe_load_all(dry.out) if d]
    assert merged[1]["spec"]["events"] == [{"cronjob": {"cron": "0 5 * * *", "timezone": "Europe/Berlin"}}]
    assert c.get("testworkflow", testkube, f"weather-{ns}-workflow") == before  # same resourceVersion, old cron


def test_output_formats(testkube_cluster: Cluster, testkube: str, tmp_path: Path) -> None:
    """``-o name`` the objects sent, in order; ``-o json`` one v1 List (two objects or more), ``-o yaml`` a stream;
    both as the server returned them, without managedFields."""
    c = testkube_cluster
    ns = c.namespace("exp")
    src = experiments(tmp_path, "weather")
    names = c.cli("apply", str(src), *flags(ns, testkube), "-o", "name")
    assert names.code == 0, names.err
    assert names.out.splitlines() == [line.removesuffix(" serverside-applied") for line in names.lines()]
    as_json = c.cli("apply", str(src), *flags(ns, testkube), "-o", "json")
    as_yaml = c.cli("apply", str(src), *flags(ns, testkube), "-o", "yaml")
    assert as_json.code == as_yaml.code == 0, as_json.err + as_yaml.err
    listed = json.loads(as_json.out)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
    streamed = [d for d in yaml.safe_load_all(as_yaml.out) if d]
    for objects in (listed["items"], streamed):
        assert [f"{o['kind']}/{o['metadata']['name']}" for o in objects] == [
            f"ConfigMap/weather-{ns}-experiment", f"TestWorkflow/weather-{ns}-workflow",
            f"TestTrigger/weather-{ns}-trigger"]
        live = c.get("testworkflow", testkube, f"weather-{ns}-workflow")
        assert live is not None
        assert objects[1]["metadata"]["uid"] == live["metadata"]["uid"]
        assert "managedFields" not in objects[1]["metadata"]
        assert objects[1]["spec"] == live["spec"]


SOMEONE_ELSE = """\
apiVersion: testworkflows.testkube.io/v1
kind: TestWorkflow
metadata:
  name: {name}
  namespace: {namespace}
  labels:
    testbench.agentic-layer.ai/resource-type: theirs
spec:
  events:
    - cronjob:
        cron: "0 4 * * *"
        timezone: Europe/Berlin
"""


def test_conflict_with_another_field_manager_then_force(testkube_cluster: Cluster, testkube: str,
                                                        tmp_path: Path) -> None:
    """Another manager takes two of our fields (kubectl apply --server-side --force-conflicts); our apply then fails
    with one error line naming both fields and the manager, exit 3, leaving their values; ``--force-conflicts``
    takes the fields back and the other manager owns nothing of ours any more."""
    c = testkube_cluster
    ns = c.namespace("exp")
    src = experiments(tmp_path, "weather")
    assert c.cli("apply", str(src), *flags(ns, testkube)).code == 0
    workflow = f"weather-{ns}-workflow"
    theirs = SOMEONE_ELSE.format(name=workflow, namespace=testkube)
    refused = c.kubectl("apply", "--server-side", "--field-manager=someone-else", "-f", "-", input=theirs)
    assert refused.returncode != 0 and 'conflicts with "kubectl-testbench"' in refused.stderr  # the server enforces
    c.apply(theirs, "--field-manager=someone-else", "--force-conflicts")

    failed = c.cli("apply", str(src), *flags(ns, testkube))
    assert failed.code == 3, failed.err
    errors = [line for line in failed.lines() if line.startswith("error: ")]
    assert errors[0] == (
        f"error: conflict applying testworkflow.testworkflows.testkube.io/{workflow}: field manager \"someone-else\" "
        "owns .metadata.labels.testbench.agentic-layer.ai/resource-type, .spec.events. Another tool changed these "
        "fields; re-run with --force-conflicts to take them over")
    assert errors[1].startswith(f"error: applied 1 of 3 objects (configmap/weather-{ns}-experiment); not applied: "
                                f"testworkflow.testworkflows.testkube.io/{workflow} (failed), "
                                f"testtrigger.tests.testkube.io/weather-{ns}-trigger.")
    live = c.get("testworkflow", testkube, workflow)
    assert live is not None and live["spec"]["events"][0]["cronjob"]["cron"] == "0 4 * * *"

    forced = c.cli("apply", str(src), *flags(ns, testkube), "--force-conflicts")
    assert forced.code == 0, forced.err
    live = c.get("testworkflow", testkube, workflow)
    assert live is not None
    assert live["spec"]["events"][0]["cronjob"]["cron"] == "0 3 * * *"
    assert live["metadata"]["labels"]["testbench.agentic-layer.ai/resource-type"] == "workflow"
    owners = {m["manager"]: m.get("fieldsV1", {}) for m in live["metadata"]["managedFields"]}
    assert "f:events" in owners[MANAGER]["f:spec"]
    assert "f:events" not in owners.get("someone-else", {}).get("f:spec", {})
    assert "f:testbench.agentic-layer.ai/resource-type" not in \
        owners.get("someone-else", {}).get("f:metadata", {}).get("f:labels", {})
    assert c.cli("diff", str(src), *flags(ns, testkube)).code == 0
