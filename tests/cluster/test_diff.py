"""diff against a local HTTP stand-in of the API server: exit codes, headers, server dry run, --local."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.conftest import FIXTURES, NAMESPACE_NOTICE, cli, one_line_error
from tests.cluster.fakeapi import FakeApiServer, status

pytestmark = pytest.mark.fake_api(
    "the wire contract of diff (server dry-run apply, the GETs of --local, headers) and server answers shaped on "
    "demand (others' managed fields, a 500); diff against kube-apiserver 1.35.4, byte-equal to kubectl diff "
    "--server-side, is tests/controlplane/test_diff.py")

NEWS = FIXTURES / "news.yaml"
NEWS_PATH = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/news-team-a-workflow"
HEADER = ("diff -u -N LIVE/testworkflows.testkube.io.v1.TestWorkflow.testkube.news-team-a-workflow "
          "MERGED/testworkflows.testkube.io.v1.TestWorkflow.testkube.news-team-a-workflow\n"
          "--- LIVE/testworkflows.testkube.io.v1.TestWorkflow.testkube.news-team-a-workflow\n"
          "+++ MERGED/testworkflows.testkube.io.v1.TestWorkflow.testkube.news-team-a-workflow\n")


def test_no_changes_exit_0(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    result = cli("diff", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [NAMESPACE_NOTICE, "no differences (4 objects)"]


def test_diff_is_a_server_side_dry_run_apply_and_writes_nothing(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    before = {p: dict(o["metadata"]) for p, o in api.objects.items()}
    api.requests.clear()
    cli("diff", str(FIXTURES), "--force-conflicts")
    patches = [r for r in api.requests if r.method == "PATCH"]
    assert len(patches) == 4
    for p in patches:
        assert p.headers["content-type"] == "application/apply-patch+yaml"
        assert p.query == {"fieldManager": ["kubectl-testbench"], "force": ["true"], "dryRun": ["All"]}
    assert {p: dict(o["metadata"]) for p, o in api.objects.items()} == before
    assert not [r for r in api.requests if r.method in ("POST", "DELETE", "PUT")]


def test_changed_field_shows_a_unified_diff_and_exit_1(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(NEWS)).exit_code == 0
    live = api.objects[NEWS_PATH]
    live["spec"]["use"][0]["config"]["datasetUrl"] = "https://old.example.com/experiment.json"
    live["status"] = {"latestExecution": {"id": "abc"}}
    result = cli("diff", str(NEWS))
    assert result.exit_code == 1
    assert result.stdout.startswith(HEADER)
    assert "-      datasetUrl: https://old.example.com/experiment.json\n" in result.stdout
    assert "+      datasetUrl: https://datasets.example.com/news/experiment.json\n" in result.stdout
    assert "resourceVersion" not in result.stdout and "managedFields" not in result.stdout
    assert "latestExecution" not in result.stdout, "status is the server's, not ours"
    assert result.stderr.splitlines()[-1] == "1 of 1 objects would change"


def test_new_object_is_all_additions(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("diff", str(NEWS))
    assert result.exit_code == 1
    body = result.stdout[len(HEADER):]
    assert body.startswith("@@ -0,0 +1,")
    lines = body.splitlines()[1:]
    assert lines and all(line.startswith("+") for line in lines)
    assert "+kind: TestWorkflow" in lines
    assert api.objects == {}


def test_keys_are_sorted_like_kubectl_prints_them(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("diff", str(NEWS))
    top = [line[1:] for line in result.stdout.splitlines()[4:] if line.startswith("+") and line[1:2].isalpha()]
    assert top == ["apiVersion: testworkflows.testkube.io/v1", "kind: TestWorkflow", "metadata:", "spec:"]


def test_fields_owned_by_others_do_not_show(api: FakeApiServer, kubeconfig: Path) -> None:
    """Server dry run merges: a label someone else added stays on both sides."""
    assert cli("apply", str(NEWS)).exit_code == 0
    api.objects[NEWS_PATH]["metadata"]["labels"]["team"] = "news"
    assert cli("diff", str(NEWS)).exit_code == 0


def test_local_mode_compares_only_our_fields_with_gets_only(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(NEWS)).exit_code == 0
    live = api.objects[NEWS_PATH]
    live["metadata"]["annotations"] = {"someone/else": "x"}
    api.requests.clear()
    assert cli("diff", str(NEWS), "--local").exit_code == 0
    assert {r.method for r in api.requests} == {"GET"}
    live["spec"]["use"][-1]["config"]["experimentName"] = "renamed"
    result = cli("diff", str(NEWS), "--local")
    assert result.exit_code == 1
    assert "-      experimentName: renamed\n" in result.stdout
    assert "someone/else" not in result.stdout


def test_prune_shows_deletions(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    old = dict(api.objects[NEWS_PATH])
    old["metadata"] = {**old["metadata"], "name": "gone-team-a-workflow",
                       "labels": {**old["metadata"]["labels"],
                                  "testbench.agentic-layer.ai/experiment-name": "gone"}}
    api.put(old)
    assert cli("diff", str(FIXTURES)).exit_code == 0, "without --prune stale objects are not shown"
    result = cli("diff", str(FIXTURES), "--prune")
    assert result.exit_code == 1
    assert "+++ MERGED/testworkflows.testkube.io.v1.TestWorkflow.testkube.gone-team-a-workflow\n" in result.stdout
    removed = result.stdout.split("@@", 2)[2].splitlines()[1:]
    assert removed and all(line.startswith("-") for line in removed)
    assert not [r for r in api.requests if r.method == "DELETE"]


def test_deletions_and_changes_in_kubectl_diffs_order(api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    """By file name, as ``diff -u -N`` walks kubectl's two directories: a stale TestTrigger before the changed
    TestWorkflows (``tests.`` < ``testworkflows.``), the stale ``aaa-`` workflow before ``news-``, ConfigMaps last."""
    assert cli("apply", str(FIXTURES)).exit_code == 0
    old = dict(api.objects[NEWS_PATH])
    old["metadata"] = {**old["metadata"], "name": "aaa-team-a-workflow",
                       "labels": {**old["metadata"]["labels"], "testbench.agentic-layer.ai/experiment-name": "aaa"}}
    api.put(old)
    for name in ("news", "weather"):
        text = (FIXTURES / f"{name}.yaml").read_text()
        (tmp_path / f"{name}.yaml").write_text(text.replace("enabled: true", "enabled: false")
                                               .replace("news-agent", "news-agent-2").replace("Berlin?", "Rome?"))
    result = cli("diff", str(tmp_path), "--prune")
    assert result.exit_code == 1, result.stderr
    assert [line.split()[3].split("/", 1)[1] for line in result.stdout.splitlines() if line.startswith("diff ")] == [
        "tests.testkube.io.v1.TestTrigger.testkube.weather-team-a-trigger",
        "testworkflows.testkube.io.v1.TestWorkflow.testkube.aaa-team-a-workflow",
        "testworkflows.testkube.io.v1.TestWorkflow.testkube.news-team-a-workflow",
        "v1.ConfigMap.testkube.weather-team-a-experiment"]


def test_errors_exit_3_not_1(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("PATCH", "", lambda r: status(409, "Conflict", "Apply failed", {"causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "helm" using v1', "field": ".data"}]}))
    result = cli("diff", str(FIXTURES))
    assert result.exit_code == 3
    assert 'field manager "helm" owns .data' in one_line_error(result)
    assert result.stdout == ""


def test_diff_of_invalid_input_exits_1_without_contacting_the_cluster(api: FakeApiServer, kubeconfig: Path,
                                                                      tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(NEWS.read_text().replace("url: https", "url: ftp"))
    result = cli("diff", str(tmp_path))
    assert result.exit_code == 1
    assert "error: nothing compared" in result.stderr
    assert api.requests == []
