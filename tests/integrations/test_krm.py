"""The KRM function: ResourceLists piped in directly, then the examples run by real orchestrators.

kustomize's exec functions need ``--enable-exec``, which kubectl's built-in kustomize does not have;
that test runs with a standalone ``kustomize`` when one is installed and is skipped otherwise. The same
function then runs under ``kubectl kustomize`` as a kustomize exec plugin (examples/gitops/krm/kubectl)
and under ``kpt fn eval --exec`` (the ResourceList protocol), which are available here.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT, kubectl, run_cli, run_process
from tests.go_toolchain import KUSTOMIZE, go_tool
from tests.integrations.helpers import console_script, env_with_path, run_bounded

KRM = EXAMPLES / "gitops" / "krm"
PATH_KEY = "internal.config.kubernetes.io/path"
INDEX_KEY = "internal.config.kubernetes.io/index"

EXPERIMENT: dict[str, Any] = {
    "apiVersion": "testbench.agentic-layer.ai/v1alpha1",
    "kind": "Experiment",
    "metadata": {"name": "docs-rag", "namespace": "knowledge",
                 "annotations": {PATH_KEY: "exps/docs.yaml", INDEX_KEY: "0", "config.kubernetes.io/index": "0",
                                 "config.k8s.io/id": "2"}},
    "spec": {"agentRef": {"name": "docs-agent"}, "aiGatewayRef": {"name": "ai-gateway", "namespace": "ai-gateway"},
             "dataset": {"inline": {"llmAsAJudgeModel": "gpt-4o-mini", "scenarios": [
                 {"name": "s1", "steps": [{"input": "Where is ${HOME}?",
                                           "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]}]}}},
}
NAMESPACE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Namespace",
    "metadata": {"name": "knowledge", "annotations": {PATH_KEY: "ns.yaml", "created": "2024-01-01",
                                                      "flag": "on", "config.k8s.io/id": "1"}},
}


def resource_list(*items: dict[str, Any], data: dict[str, str] | None = None, **extra: Any) -> str:
    doc: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": list(items)}
    if data is not None:
        doc["functionConfig"] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": data}
    doc.update(extra)
    # the way kustomize and kpt write it: YAML with the date quoted, as it is a string
    return yaml.safe_dump(doc, sort_keys=False)


def run_krm(text: str, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = run_process("krm", *args, input=text.encode())
    out = yaml.safe_load(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, out, proc.stderr.decode()


def rendered_by_cli(experiment: dict[str, Any], *flags: str, tmp_path: Path) -> list[dict[str, Any]]:
    """What ``kubectl testbench render`` makes of the same Experiment (without the orchestrator's annotations)."""
    clean = copy.deepcopy(experiment)
    del clean["metadata"]["annotations"]
    source = tmp_path / "exp.yaml"
    source.write_text(json.dumps(clean))
    result = run_cli("render", str(source), *flags)
    assert result.exit_code == 0, result.output
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def without_path_annotations(obj: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    anns = obj["metadata"].get("annotations", {})
    for key in (PATH_KEY, INDEX_KEY, "config.kubernetes.io/path", "config.kubernetes.io/index"):
        anns.pop(key, None)
    if not anns:
        obj["metadata"].pop("annotations", None)
    return obj


# --- the ResourceList protocol, piped ----------------------------------------------------------------------


def test_experiments_are_replaced_in_place_and_other_items_are_kept_byte_for_byte(tmp_path: Path) -> None:
    code, out, err = run_krm(resource_list(NAMESPACE, EXPERIMENT, data={"testkube-namespace": "tk"}))
    assert code == 0, err
    assert out["apiVersion"] == "config.kubernetes.io/v1" and out["kind"] == "ResourceList"
    items = out["items"]
    assert items[0] == NAMESPACE  # the date stays a string, "on" stays a string, ids untouched
    assert [i["kind"] for i in items] == ["Namespace", "ConfigMap", "TestWorkflow"]
    assert [i["metadata"]["annotations"][PATH_KEY] for i in items[1:]] == [
        "exps/configmap_tk_docs-rag-knowledge-experiment.yaml", "exps/testworkflow_tk_docs-rag-knowledge-workflow.yaml"]
    assert {i["metadata"]["annotations"][INDEX_KEY] for i in items[1:]} == {"0"}
    assert "config.k8s.io/id" not in items[1]["metadata"]["annotations"]
    expected = rendered_by_cli(EXPERIMENT, "--testkube-namespace", "tk", tmp_path=tmp_path)
    assert [without_path_annotations(i) for i in items[1:]] == expected
    # "${HOME}" in the prompt: both objects opt out of Flux post-build substitution
    assert items[1]["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"] == "disabled"
    assert out["functionConfig"]["data"] == {"testkube-namespace": "tk"}
    assert out["results"] == [{"message": "rendered 1 of 1 Experiments into 2 objects", "severity": "info",
                               "tags": {"rule": "krm/summary"}}]
    assert err == ""


def test_validate_mode_changes_no_item(tmp_path: Path) -> None:
    broken = copy.deepcopy(EXPERIMENT)
    broken["metadata"]["name"] = "docs-rag-broken"  # its own name: the same one twice is a clash (test below)
    broken["spec"]["dataset"]["url"] = "https://x.example/data.json"
    code, out, err = run_krm(resource_list(NAMESPACE, EXPERIMENT, broken, data={"mode": "validate"}))
    assert code == 1
    assert out["items"] == [NAMESPACE, EXPERIMENT, broken]
    assert out["results"] == [
        {"message": 'Invalid value: exactly one of s3, url, or inline must be set '
                    "(hint: found url and inline: keep one)",
         "severity": "error",
         "resourceRef": {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
                         "name": "docs-rag-broken", "namespace": "knowledge"},
         "field": {"path": "spec.dataset"},
         "file": {"path": "exps/docs.yaml", "index": 0},
         "tags": {"rule": "cel/dataset-exactly-one"}},
        {"message": "validated 1 of 2 Experiments", "severity": "info", "tags": {"rule": "krm/summary"}},
    ]
    assert err == ("exps/docs.yaml: error[cel/dataset-exactly-one] Experiment knowledge/docs-rag-broken spec.dataset: "
                   'Invalid value: exactly one of s3, url, or inline must be set '
                   "(hint: found url and inline: keep one)\n")


def test_an_invalid_experiment_is_kept_and_reported_with_its_field_and_file() -> None:
    bad = copy.deepcopy(EXPERIMENT)
    bad["metadata"]["annotations"][INDEX_KEY] = "3"
    bad["spec"]["dataset"]["inline"]["defaultThreshold"] = 2
    code, out, err = run_krm(resource_list(bad))
    assert code == 1
    assert out["items"] == [bad]
    error = out["results"][0]
    assert error == {"message": "Invalid value: 2: must be less than or equal to 1", "severity": "error",
                     "resourceRef": {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
                                     "name": "docs-rag", "namespace": "knowledge"},
                     "field": {"path": "spec.dataset.inline.defaultThreshold"},
                     "file": {"path": "exps/docs.yaml", "index": 3}, "tags": {"rule": "schema/maximum"}}
    assert "exps/docs.yaml: error[schema/maximum]" in err


def test_strict_turns_warnings_into_errors() -> None:
    warned = copy.deepcopy(EXPERIMENT)
    warned["spec"]["trigger"] = {"concurrencyPolicy": "Forbid"}  # semantic/trigger-inactive, a warning
    code, out, _ = run_krm(resource_list(warned))
    assert code == 0 and [r["severity"] for r in out["results"]] == ["warning", "info"]
    code, out, _ = run_krm(resource_list(warned, data={"strict": "true"}))
    assert code == 1 and out["results"][0]["severity"] == "error" and out["items"] == [warned]


def test_file_comes_from_kustomize_origin_annotations_when_there_is_no_path() -> None:
    exp = copy.deepcopy(EXPERIMENT)
    exp["metadata"]["annotations"] = {"config.kubernetes.io/origin": "path: base/exp.yaml\n"}
    exp["spec"]["dataset"]["inline"]["defaultThreshold"] = 2
    code, out, _ = run_krm(resource_list(exp))
    assert code == 1 and out["results"][0]["file"] == {"path": "base/exp.yaml"}


def test_render_defaults_item_is_consumed_and_applied() -> None:
    defaults = {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "RenderDefaults",
                "metadata": {"name": "defaults", "annotations": {PATH_KEY: "testbench-defaults.yaml"}},
                "spec": {"testkubeNamespace": "from-defaults", "agentPort": 9000}}
    code, out, err = run_krm(resource_list(defaults, EXPERIMENT))
    assert code == 0, err
    assert [i["kind"] for i in out["items"]] == ["ConfigMap", "TestWorkflow"]
    workflow = out["items"][1]
    assert workflow["metadata"]["namespace"] == "from-defaults"
    assert "http://docs-agent.knowledge:9000" in json.dumps(workflow)
    code, out, _ = run_krm(resource_list(defaults, EXPERIMENT, data={"mode": "validate"}))
    assert code == 0 and out["items"][0] == defaults
    bad = copy.deepcopy(defaults)
    bad["spec"]["agentPort"] = "http"
    code, out, _ = run_krm(resource_list(bad, EXPERIMENT))
    assert code == 1
    assert out["results"][0]["field"] == {"path": "spec.agentPort"} and out["results"][0]["severity"] == "error"


def test_bad_function_config_is_reported_on_the_config() -> None:
    code, out, _ = run_krm(resource_list(EXPERIMENT, data={"mode": "apply", "agent-port": "x", "colour": "red",
                                                           "strict": "perhaps"}))
    assert code == 1
    problems = [(r["field"]["path"], r["message"]) for r in out["results"] if r["severity"] == "error"]
    assert problems == [
        ("data.colour", "unknown key 'colour' (known: mode, namespace, testkube-namespace, agent-url, "
                        "ai-gateway-url, agent-port, ai-gateway-port, include-experiment, argocd-sync-waves, strict)"),
        ("data.mode", "mode must be render or validate, not 'apply'"),
        ("data.strict", "strict must be true or false, not 'perhaps'"),
        ("data.agent-port", "agent-port must be a port number (1-65535), not 'x'"),
    ]
    assert all(r["resourceRef"] == {"apiVersion": "v1", "kind": "ConfigMap", "name": "cfg"}
               for r in out["results"] if r["severity"] == "error")


@pytest.mark.parametrize("value", ["../x", "a/b", "Testkube", "x" * 64, "-tk", "t k", "tk\x1b[31m"])
def test_a_namespace_that_is_no_dns_label_is_refused_not_written_into_paths(value: str) -> None:
    """Namespaces become the objects' metadata.namespace and part of the file names in config.kubernetes.io/path,
    where '../x' would place a rendered object outside the package."""
    for key in ("testkube-namespace", "namespace"):
        code, out, err = run_krm(resource_list(NAMESPACE, EXPERIMENT, data={key: value}))
        assert code == 1
        (error,) = [r for r in out["results"] if r["severity"] == "error"]
        assert error["field"] == {"path": f"data.{key}"} and error["tags"] == {"rule": "krm/config"}
        assert error["message"].startswith(f"{key} {value!r} is not a valid namespace: ")
        assert f"error[krm/config] ConfigMap cfg data.{key}: {key} " in err
        paths = [i["metadata"].get("annotations", {}).get(PATH_KEY, "") for i in out["items"]]
        assert not any(".." in p or p.count("/") > 1 for p in paths), paths
        assert all(i["metadata"].get("namespace") != value for i in out["items"])


def test_a_render_defaults_testkube_namespace_that_is_no_dns_label_is_refused() -> None:
    defaults = {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "RenderDefaults",
                "metadata": {"name": "d"}, "spec": {"testkubeNamespace": "../../../../x"}}
    for text in (resource_list(EXPERIMENT, functionConfig=defaults), resource_list(defaults, EXPERIMENT)):
        code, out, _ = run_krm(text)
        assert code == 1
        (error,) = [r for r in out["results"] if r["severity"] == "error"]
        assert error["field"] == {"path": "spec.testkubeNamespace"}
        assert error["message"].startswith('Invalid value: "../../../../x": a lowercase RFC 1123 label')
        paths = [i["metadata"].get("annotations", {}).get(PATH_KEY, "") for i in out["items"]]
        assert not any(".." in p for p in paths), paths


def test_a_rendered_object_that_collides_with_an_item_is_an_error() -> None:
    existing = {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflow",
                "metadata": {"name": "docs-rag-knowledge-workflow", "namespace": "testkube"}, "spec": {}}
    code, out, _ = run_krm(resource_list(existing, EXPERIMENT))
    assert code == 1
    dup = [r for r in out["results"] if r["tags"]["rule"] == "render/duplicate"]
    assert dup[0]["message"] == ("renders TestWorkflow testkube/docs-rag-knowledge-workflow, which another item "
                                 "already defines; rename one of them")
    assert dup[0]["resourceRef"]["name"] == "docs-rag" and dup[0]["file"] == {"path": "exps/docs.yaml", "index": 0}


def _copy_in(path: str, index: str = "0") -> dict[str, Any]:
    """EXPERIMENT again, as a second file of the package holds it."""
    again = copy.deepcopy(EXPERIMENT)
    again["metadata"]["annotations"].update({PATH_KEY: path, INDEX_KEY: index, "config.kubernetes.io/index": index})
    return again


@pytest.mark.parametrize("mode", ["validate", "render"])
def test_an_experiment_defined_twice_in_the_package_is_the_clash_validate_reports(mode: str) -> None:
    """The clash policy of every other front-end (pipeline.policy): two definitions of one namespace/name are an
    error at each copy, naming the other; their objects' collisions are not reported again, object by object."""
    code, out, _ = run_krm(resource_list(EXPERIMENT, _copy_in("exps/copy.yaml", "2"), data={"mode": mode}))
    assert code == 1
    errors = [r for r in out["results"] if r["severity"] == "error"]
    assert [(r["tags"]["rule"], r["file"], r["resourceRef"]["name"]) for r in errors] == [
        ("semantic/duplicate-experiment", {"path": "exps/docs.yaml", "index": 0}, "docs-rag"),
        ("semantic/duplicate-experiment", {"path": "exps/copy.yaml", "index": 2}, "docs-rag")]
    assert errors[0]["message"].startswith("Experiment knowledge/docs-rag is also defined at exps/copy.yaml "
                                           "(document 2): applied together, one silently replaces the other")
    assert errors[1]["message"].startswith("Experiment knowledge/docs-rag is also defined at exps/docs.yaml "
                                           "(document 0): applied together, one silently replaces the other")
    assert errors[1]["field"] == {"path": "metadata.name"}
    summary = [r["message"] for r in out["results"] if r["tags"]["rule"] == "krm/summary"]
    assert summary[0].startswith(f"{mode}ed 0 of 2 Experiments" if mode == "render" else "validated 0 of 2")


def test_validate_over_the_same_two_files_reports_the_same_clash(tmp_path: Path) -> None:
    for name in ("docs.yaml", "copy.yaml"):
        clean = copy.deepcopy(EXPERIMENT)
        clean["metadata"].pop("annotations")
        (tmp_path / name).write_text(yaml.safe_dump(clean))
    proc = run_cli("validate", str(tmp_path / "docs.yaml"), str(tmp_path / "copy.yaml"))
    assert proc.exit_code == 1 and "error[semantic/duplicate-experiment]" in proc.output, proc.output


def test_two_experiments_generating_one_object_are_a_render_duplicate_per_object() -> None:
    """Different Experiments (the names "a-b" in namespace "c" and "a" in "b-c" give one workflow name)."""
    one, two = copy.deepcopy(EXPERIMENT), _copy_in("exps/two.yaml")
    one["metadata"].update(name="a-b", namespace="c")
    two["metadata"].update(name="a", namespace="b-c")
    code, out, _ = run_krm(resource_list(one, two))
    dup = [r for r in out["results"] if r["severity"] == "error"]
    assert code == 1 and {r["tags"]["rule"] for r in dup} == {"render/duplicate"}
    assert sorted(r["message"].split(",")[0] for r in dup) == [
        "renders ConfigMap testkube/a-b-c-experiment", "renders TestWorkflow testkube/a-b-c-workflow"]
    assert {r["file"]["path"] for r in dup} == {"exps/two.yaml"}


def test_include_experiment_keeps_the_experiment_after_its_objects() -> None:
    code, out, _ = run_krm(resource_list(EXPERIMENT, data={"include-experiment": "true"}))
    assert code == 0
    assert [i["kind"] for i in out["items"]] == ["ConfigMap", "TestWorkflow", "Experiment"]
    assert out["items"][2] == EXPERIMENT


def test_earlier_results_are_kept_and_an_empty_list_is_fine() -> None:
    earlier = [{"message": "from an earlier function", "severity": "warning"}]
    code, out, _ = run_krm(resource_list(results=earlier))
    assert code == 0 and out["items"] == [] and out["results"] == earlier


def test_input_that_is_not_yaml_exits_2() -> None:
    proc = run_process("krm", input=b"items: [\n")
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("error: stdin is not YAML")


RESOURCE_LIST_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: "


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_stdin_nested_past_the_depth_limit_is_an_error_result_not_a_crash() -> None:
    """100,000 levels: PyYAML's C composer, the reader before, segfaulted on PyYAML 6.0.3 and called the text
    "not YAML" on 6.0.4 (libyaml's own limit). Read as validate reads it, the depth limit decides, at its place."""
    proc = run_bounded("krm", input=(RESOURCE_LIST_HEAD + _nested(100_000) + "\n").encode())
    message = "stdin:3:263: nesting deeper than 256 levels (raise with --max-depth)"
    assert proc.returncode == 1, proc.stderr
    assert yaml.safe_load(proc.stdout) == {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                           "items": [], "results": [{"message": message, "severity": "error",
                                                                     "tags": {"rule": "yaml/too-deep"}}]}
    assert proc.stderr.decode() == f"error[yaml/too-deep] {message}\n"


def test_an_exec_plugin_stream_nested_too_deeply_is_refused_on_stderr(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {}\n")
    proc = run_bounded("krm", str(config), input=("kind: Thing\nspec: " + _nested(100_000)).encode())
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode() == ("error[yaml/too-deep] stdin:2:262: nesting deeper than 256 levels "
                                    "(raise with --max-depth)\n")


def test_an_exec_plugin_config_nested_too_deeply_is_a_located_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\ndata: " + _nested(100_000))
    proc = run_bounded("krm", str(config), input=b"kind: Thing\n")
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (f"error: {config}:3:262: nesting deeper than 256 levels (raise with --max-depth)\n")


def test_an_item_nested_as_deep_as_the_limit_allows_is_written_back() -> None:
    """ruamel.yaml, which writes the list back with its comments, recursed past Python's 1,000 frames at 248
    levels: an item the reader let through ended in an internal error."""
    text = RESOURCE_LIST_HEAD + "\n- apiVersion: v1\n  kind: Thing\n  metadata: {name: deep}\n  spec: " + _nested(253)
    proc = run_bounded("krm", input=(text + "\n").encode())
    assert proc.returncode == 0, proc.stderr
    spec = yaml.safe_load(proc.stdout)["items"][0]["spec"]
    depth = 0
    while spec:
        (spec,) = spec
        depth += 1
    assert depth == 252  # and the innermost list is empty
    assert run_bounded("krm", input=(text.replace(_nested(253), _nested(254)) + "\n").encode()).returncode == 1
    deeper = text.replace(_nested(253), _nested(1000)) + "\n"
    raised = run_bounded("krm", "--max-depth", "1003", input=deeper.encode())
    assert raised.returncode == 0, raised.stderr
    assert raised.stdout.count(b"[") == 1000


def test_an_origin_annotation_nested_deeply_is_not_a_crash() -> None:
    """The annotation's YAML was read with PyYAML's pure-Python loader, which recursed without a bound."""
    item = copy.deepcopy(EXPERIMENT)
    item["metadata"]["annotations"] = {"config.kubernetes.io/origin": "path: " + _nested(50_000)}
    code, out, err = run_krm(resource_list(item))
    assert code == 0, err
    assert [i["kind"] for i in out["items"]] == ["ConfigMap", "TestWorkflow"]
    assert "config.kubernetes.io/path" not in str(out["items"])  # no file to place them beside


def test_stdin_over_the_size_limit_is_an_error_result() -> None:
    proc = run_bounded("krm", "--max-file-size", "1", input=resource_list(NAMESPACE).encode() + b"#" * 1024 * 1024)
    message = "stdin: larger than the 1 MiB limit (raise with --max-file-size)"
    assert proc.returncode == 1
    assert yaml.safe_load(proc.stdout)["results"] == [{"message": message, "severity": "error",
                                                       "tags": {"rule": "input/too-large"}}]
    assert proc.stderr.decode() == f"error[input/too-large] {message}\n"


def _alias_experiment() -> dict[str, Any]:
    """A 1 MiB Experiment whose first step's input is an anchor on 1 MiB of text, and 1,000 more steps alias it:
    1 GiB of text once expanded."""
    return {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
            "metadata": {"name": "hostile", "namespace": "agents"},
            "spec": {"agentRef": {"name": "agent"},
                     "dataset": {"inline": {"llmAsAJudgeModel": "gpt-4o-mini",
                                            "scenarios": [{"name": "S", "steps": []}]}}}}


def test_an_alias_that_expands_to_a_gibibyte_fails_fast_with_the_alias_limit() -> None:
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                           "items": [_alias_experiment()]}, sort_keys=False)
    indent = " " * (len(text.split("steps: []")[0].rsplit("\n", 1)[1]))  # where safe_dump put the key
    steps = f"{indent}- input: &big " + "x" * (1024 * 1024) + "\n" + f"{indent}- input: *big\n" * 1000
    text = text.replace(f"{indent}steps: []\n", f"{indent}steps:\n" + steps)
    assert text.count("*big") == 1000
    proc = run_bounded("krm", input=text.encode())
    assert proc.returncode == 1, proc.stderr[-2000:]
    (result,) = yaml.safe_load(proc.stdout)["results"]
    assert result["tags"] == {"rule": "yaml/alias-limit"} and result["message"].startswith("stdin:")


def test_a_function_config_of_another_kind_is_an_error_result() -> None:
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [EXPERIMENT],
                           "functionConfig": {"apiVersion": "apps/v1", "kind": "Deployment",
                                              "metadata": {"name": "oops"}, "data": {"mode": "validate"}}},
                          sort_keys=False)
    code, out, err = run_krm(text)
    assert code == 1
    (error,) = [r for r in out["results"] if r["severity"] == "error"]
    assert error["message"] == ("functionConfig Deployment (apps/v1) is not one this function reads: use a ConfigMap "
                                "(v1) or RenderExperiments (fn.testbench.agentic-layer.ai/v1alpha1) with data, or a "
                                "RenderDefaults (testbench.agentic-layer.ai/v1alpha1)")
    assert error["resourceRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "oops"}
    assert "error[krm/config] Deployment oops" in err


@pytest.mark.parametrize(("stdin", "items", "message"), [
    (b"", [], "stdin is empty: expected a ResourceList (config.kubernetes.io/v1) with items"),
    (yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [EXPERIMENT]}).encode(), [EXPERIMENT],
     "stdin is a v1 List, not a ResourceList (config.kubernetes.io/v1): nothing was rendered; wrap the items in a "
     "ResourceList, or run kubectl testbench render for plain manifests"),
    (yaml.safe_dump_all([NAMESPACE, EXPERIMENT]).encode(), [NAMESPACE, EXPERIMENT],
     "stdin is a stream of resources, not a ResourceList (config.kubernetes.io/v1): nothing was rendered; as a "
     "kustomize exec plugin the config file must be given as the argument"),
])
def test_input_that_is_not_a_resource_list_gets_an_error_result(stdin: bytes, items: list[Any],
                                                                message: str) -> None:
    """KRM Functions Specification v1: one ResourceList in, one out; failures as results and a non-zero exit."""
    proc = run_process("krm", input=stdin)
    assert proc.returncode == 1
    out = yaml.safe_load(proc.stdout)
    assert out["apiVersion"] == "config.kubernetes.io/v1" and out["kind"] == "ResourceList"
    assert out["items"] == items  # untouched, not rendered
    assert out["results"] == [{"message": message, "severity": "error", "tags": {"rule": "krm/input"}}]
    assert proc.stderr.decode() == f"error[krm/input] {message}\n"


def test_exec_plugin_protocol_reads_a_stream_and_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text("apiVersion: fn.testbench.agentic-layer.ai/v1alpha1\nkind: RenderExperiments\n"
                      "metadata:\n  name: r\ndata:\n  testkube-namespace: tk\n")
    stream = yaml.safe_dump_all([NAMESPACE, EXPERIMENT], sort_keys=False)
    proc = run_process("krm", str(config), input=stream.encode())
    assert proc.returncode == 0, proc.stderr
    docs = list(yaml.safe_load_all(proc.stdout))
    assert [d["kind"] for d in docs] == ["Namespace", "ConfigMap", "TestWorkflow"]
    assert docs[0] == NAMESPACE and docs[2]["metadata"]["namespace"] == "tk"


# --- real orchestrators -------------------------------------------------------------------------------------


def _exec_capable_kustomize() -> list[str]:
    """``kubectl kustomize`` if it knows --enable-exec, else a standalone ``kustomize build``; skip otherwise."""
    binary = kubectl()
    help_text = subprocess.run([binary, "kustomize", "--help"], capture_output=True, text=True, check=False).stdout
    if "--enable-exec" in help_text:
        return [binary, "kustomize", "--enable-alpha-plugins", "--enable-exec"]
    standalone = shutil.which("kustomize")
    if standalone is not None:
        build_help = subprocess.run([standalone, "build", "--help"], capture_output=True, text=True, check=False)
        if "--enable-exec" in build_help.stdout:
            return [standalone, "build", "--enable-alpha-plugins", "--enable-exec"]
    built = go_tool(*KUSTOMIZE)  # kubectl's own kustomize has no --enable-exec: build the standalone one
    if isinstance(built, str):
        pytest.skip(f"exec KRM functions need kustomize's --enable-exec, which this kubectl's kustomize lacks, and "
                    f"no standalone kustomize is on PATH: {built}")
    return [str(built), "build", "--enable-alpha-plugins", "--enable-exec"]


def _expected_example_objects(tmp_path: Path) -> list[dict[str, Any]]:
    result = run_cli("render", str(EXAMPLES / "experiments"), "--testkube-namespace", "testkube",
                     "--argocd-sync-waves")
    assert result.exit_code == 0
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def _by_key(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def test_kustomize_runs_the_exec_function_example(tmp_path: Path) -> None:
    command = _exec_capable_kustomize()
    env = env_with_path(console_script(tmp_path / "bin"))
    built = subprocess.run([*command, str(KRM / "exec")], capture_output=True, text=True, env=env, check=False)
    assert built.returncode == 0, built.stderr
    docs = [d for d in yaml.safe_load_all(built.stdout) if d]
    assert not any(d["kind"] == "Experiment" for d in docs)
    rendered = _by_key([without_path_annotations(d) for d in docs if d["kind"] != "Namespace"])
    assert rendered == _by_key(_expected_example_objects(tmp_path))


def test_kubectl_kustomize_runs_the_exec_plugin_example(tmp_path: Path) -> None:
    binary = kubectl()
    env = env_with_path(console_script(tmp_path / "bin"), KUSTOMIZE_PLUGIN_HOME=str(KRM / "plugin"))
    built = subprocess.run([binary, "kustomize", "--enable-alpha-plugins", str(KRM / "kubectl")],
                           capture_output=True, text=True, env=env, check=False)
    assert built.returncode == 0, built.stderr
    docs = [d for d in yaml.safe_load_all(built.stdout) if d]
    assert [d["kind"] for d in docs].count("Namespace") == 1
    assert not any(d["kind"] == "Experiment" for d in docs)
    assert _by_key([d for d in docs if d["kind"] != "Namespace"]) == _by_key(_expected_example_objects(tmp_path))


def test_kubectl_kustomize_fails_the_build_on_an_invalid_experiment(tmp_path: Path) -> None:
    binary = kubectl()
    base = tmp_path / "exps"
    shutil.copytree(EXAMPLES / "experiments", base)
    bad = base / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    shutil.copy(KRM / "kubectl" / "render.yaml", overlay / "render.yaml")
    (overlay / "kustomization.yaml").write_text("resources: [../exps]\ntransformers: [render.yaml]\n")
    env = env_with_path(console_script(tmp_path / "bin"), KUSTOMIZE_PLUGIN_HOME=str(KRM / "plugin"))
    built = subprocess.run([binary, "kustomize", "--enable-alpha-plugins", str(overlay)],
                           capture_output=True, text=True, env=env, check=False)
    assert built.returncode != 0 and built.stdout == ""
    assert ("error[schema/maximum] Experiment testkube/weather-agent-smoke spec.dataset.inline.defaultThreshold: "
            "Invalid value: 1.5: must be less than or equal to 1") in built.stderr


def test_kubectl_kustomize_without_enable_exec_silently_skips_exec_functions(tmp_path: Path) -> None:
    """Why the kubectl variant exists: kubectl's kustomize leaves the Experiments untouched, without an error."""
    binary = kubectl()
    help_text = subprocess.run([binary, "kustomize", "--help"], capture_output=True, text=True, check=False).stdout
    if "--enable-exec" in help_text:
        pytest.skip("this kubectl's kustomize has --enable-exec")
    env = env_with_path(console_script(tmp_path / "bin"))
    built = subprocess.run([binary, "kustomize", "--enable-alpha-plugins", str(KRM / "exec")],
                           capture_output=True, text=True, env=env, check=False)
    assert built.returncode == 0
    assert [d["kind"] for d in yaml.safe_load_all(built.stdout)].count("Experiment") == 4


def _kpt() -> str:
    binary = shutil.which("kpt")
    if binary is None:
        pytest.skip("kpt is not installed: the kpt fn eval --exec test needs it")
    return binary


def test_kpt_runs_the_function_over_the_resourcelist_protocol(tmp_path: Path) -> None:
    binary = _kpt()
    env = env_with_path(console_script(tmp_path / "bin"))
    package = tmp_path / "package"
    shutil.copytree(EXAMPLES / "experiments", package)
    proc = subprocess.run([binary, "fn", "eval", str(package), "--exec", str(KRM / "exec" / "kubectl-testbench-krm"),
                           "--fn-config", str(KRM / "exec" / "render.yaml"), "-o", "stdout"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out = yaml.safe_load(proc.stdout)
    assert out["kind"] == "ResourceList"
    docs = [i for i in out["items"] if i["kind"] != "Kustomization"]
    paths = sorted(i["metadata"]["annotations"][PATH_KEY] for i in docs)
    assert paths == sorted(f"{i['kind'].lower()}_{i['metadata']['namespace']}_{i['metadata']['name']}.yaml"
                           for i in docs)
    assert _by_key([without_path_annotations(i) for i in docs]) == _by_key(_expected_example_objects(tmp_path))
    assert "[info]: rendered 4 of 4 Experiments into 7 objects" in proc.stderr


def test_kpt_shows_error_results_and_fails(tmp_path: Path) -> None:
    binary = _kpt()
    env = env_with_path(console_script(tmp_path / "bin"))
    package = tmp_path / "package"
    package.mkdir()
    text = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    (package / "weather.yaml").write_text(text.replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    proc = subprocess.run([binary, "fn", "eval", str(package), "--exec", str(KRM / "exec" / "kubectl-testbench-krm")],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode != 0
    assert ("[error] testbench.agentic-layer.ai/v1alpha1/Experiment/testkube/weather-agent-smoke "
            "spec.dataset.inline.defaultThreshold: Invalid value: 1.5") in proc.stderr
    assert (package / "weather.yaml").read_text() == text.replace("defaultThreshold: 0.9", "defaultThreshold: 1.5")


NAMESPACE_FILE = """\
# the team's namespace: kept exactly as written
apiVersion: v1
kind: Namespace
metadata:
  name: knowledge # inline comment
  labels: {team: "rag", tier: 'one'}
  annotations:
    created: 2024-01-01
    flag: on
"""
STACK_FILE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  "quoted key": 'single'
  list: "[1, 2]"
---
# second document
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent}
"""


def test_kpt_validate_mode_leaves_every_input_file_byte_identical(tmp_path: Path) -> None:
    """kpt writes the function's items back to the package: validate mode must not change a byte."""
    binary = _kpt()
    env = env_with_path(console_script(tmp_path / "bin"))
    package = tmp_path / "package"
    shutil.copytree(EXAMPLES / "experiments", package)
    (package / ".testbench.yaml").unlink()
    (package / "namespace.yaml").write_text(NAMESPACE_FILE)
    (package / "stack.yaml").write_text(STACK_FILE)
    before = {p.name: p.read_bytes() for p in package.iterdir()}
    proc = subprocess.run([binary, "fn", "eval", str(package), "--exec", str(KRM / "exec" / "kubectl-testbench-krm"),
                           "--", "mode=validate"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "[info]: validated 4 of 4 Experiments" in proc.stderr
    after = {p.name: p.read_bytes() for p in package.iterdir()}
    assert after.keys() == before.keys()
    changed = [name for name in before if after[name] != before[name]]
    assert changed == [], f"kpt rewrote {changed}: {after[changed[0]].decode()[:400] if changed else ''}"


def test_untouched_items_keep_comments_and_styles_in_the_output_list() -> None:
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            + "".join("- " + line if i == 0 else "  " + line
                      for i, line in enumerate(NAMESPACE_FILE.splitlines(keepends=True)))
            + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n"
              "  data: {mode: validate}\n")
    proc = run_process("krm", input=text.encode())
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    for fragment in ("name: knowledge # inline comment", "labels: {team: \"rag\", tier: 'one'}",
                     "created: 2024-01-01", "flag: on"):
        assert fragment in out
    assert yaml.safe_load(out)["items"] == [yaml.safe_load(NAMESPACE_FILE)]


def test_examples_kustomization_lists_every_experiment() -> None:
    listed = yaml.safe_load((EXAMPLES / "experiments" / "kustomization.yaml").read_text())["resources"]
    present = sorted(p.name for p in (EXAMPLES / "experiments").glob("*.yaml")
                     if p.name != "kustomization.yaml" and not p.name.startswith("."))
    assert listed == present, "list every file of examples/experiments in its kustomization.yaml (KRM examples)"


def test_function_configs_are_skipped_by_validate() -> None:
    result = run_cli("validate", str(KRM))
    assert result.exit_code == 0 and "0 experiments" in result.output
    assert (ROOT / "examples" / "gitops" / "krm" / "exec" / "kubectl-testbench-krm").stat().st_mode & 0o111
