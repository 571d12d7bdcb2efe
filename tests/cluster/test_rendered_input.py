"""apply, diff and prune take a committed rendered directory as input (against a local HTTP stand-in of
the API server): the objects render wrote are sent as they are, agreeing copies of an Experiment and its
rendered objects are one object, a stale rendered file is refused, and foreign objects are never sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.conftest import FIXTURES, cli
from tests.cluster.fakeapi import FakeApiServer
from tests.conftest import run_cli

pytestmark = pytest.mark.fake_api(
    "which objects of a rendered directory are sent, read from the requests the stand-in records")

CM = "/api/v1/namespaces/testkube/configmaps/weather-team-a-experiment"
WF_NEWS = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/news-team-a-workflow"
WF = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/weather-team-a-workflow"
TRIGGER = "/apis/tests.testkube.io/v1/namespaces/testkube/testtriggers/weather-team-a-trigger"


def render_dir(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "rendered"
    result = run_cli("render", str(FIXTURES), "-n", "team-a", "--output-dir", str(out), *args)
    assert result.exit_code == 0, result.output
    return out


def test_apply_of_a_rendered_directory_sends_the_same_patches_as_apply_of_the_experiments(
        api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    out = render_dir(tmp_path)
    assert cli("apply", str(FIXTURES)).exit_code == 0
    from_sources = [(w.path, w.body) for w in api.writes()]
    api.requests.clear()
    result = cli("apply", str(out))
    assert result.exit_code == 0, result.stderr
    assert [(w.path, w.body) for w in api.writes()] == from_sources
    assert [w.path for w in api.writes()] == [CM, WF_NEWS, WF, TRIGGER], "dependency order, not file order"


def test_experiment_next_to_its_rendered_objects_is_applied_once(tmp_path: Path) -> None:
    out = render_dir(tmp_path, "--include-experiment")
    from_dir = cli("apply", str(out), "--dry-run=client", "--include-experiment", "-n", "team-a")
    from_sources = cli("apply", str(FIXTURES), "--dry-run=client", "--include-experiment", "-n", "team-a")
    assert from_dir.exit_code == 0, from_dir.stderr
    assert from_dir.stdout == from_sources.stdout
    assert from_dir.stdout.count("kind: ConfigMap") == 1


def test_stale_rendered_file_next_to_its_experiment_is_refused(api: FakeApiServer, kubeconfig: Path,
                                                              tmp_path: Path) -> None:
    out = render_dir(tmp_path, "--include-experiment")
    workflow = out / "testworkflow_testkube_weather-team-a-workflow.yaml"
    workflow.write_text(workflow.read_text().replace("testbench.agentic-layer.ai/resource-type: workflow",
                                                     "testbench.agentic-layer.ai/resource-type: edited"))
    result = cli("apply", str(out))
    assert result.exit_code == 1
    assert (f"{workflow}:2:1: error[render/duplicate] testworkflow testkube weather-team-a-workflow differs from "
            f"what the Experiment renders ({out / 'experiment_team-a_weather.yaml'}:2)") in result.stderr
    assert "hint: the rendered file is stale: render the directory again" in result.stderr
    assert api.writes() == []


def test_foreign_objects_in_a_rendered_directory_are_never_sent(api: FakeApiServer, kubeconfig: Path,
                                                                tmp_path: Path) -> None:
    out = render_dir(tmp_path)
    (out / "mine.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n  namespace: testkube\n"
                                   "  labels:\n    app.kubernetes.io/managed-by: helm\n")
    (out / "secret.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: testkube\n"
                                     "  labels:\n    app.kubernetes.io/managed-by: kubectl-testbench\n")
    result = cli("apply", str(out))
    assert result.exit_code == 0, result.stderr
    assert [w.path for w in api.writes()] == [CM, WF_NEWS, WF, TRIGGER]


def test_rendered_object_without_namespace_is_a_located_error(api: FakeApiServer, kubeconfig: Path,
                                                              tmp_path: Path) -> None:
    bad = tmp_path / "cm.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x-experiment\n"
                   "  labels:\n    app.kubernetes.io/managed-by: kubectl-testbench\n")
    result = cli("apply", str(bad))
    assert result.exit_code == 1
    assert (f"{bad}:3:1: error[render/manifest] metadata: ConfigMap labelled "
            "app.kubernetes.io/managed-by=kubectl-testbench has no metadata.namespace") in result.stderr
    assert api.writes() == []


def test_diff_of_a_rendered_directory_matches_the_live_state(api: FakeApiServer, kubeconfig: Path,
                                                             tmp_path: Path) -> None:
    out = render_dir(tmp_path)
    assert cli("apply", str(out)).exit_code == 0
    result = cli("diff", str(out))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_prune_with_a_rendered_directory_keeps_what_it_holds(api: FakeApiServer, kubeconfig: Path,
                                                             tmp_path: Path) -> None:
    out = render_dir(tmp_path)
    assert cli("apply", str(out)).exit_code == 0
    (out / "testworkflow_testkube_news-team-a-workflow.yaml").unlink()
    result = cli("prune", str(out))
    assert result.exit_code == 0, result.stderr
    assert [(w.method, w.path) for w in api.writes() if w.method == "DELETE"] == [("DELETE", WF_NEWS)]
    assert ("testworkflow.testworkflows.testkube.io/news-team-a-workflow pruned (its Experiment is no longer in "
            "the input: team-a/news)") in result.stderr
