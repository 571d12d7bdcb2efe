"""render --resolve: every string field of a template is evaluated with the config of the ``use`` it came from,
and lands where Testkube puts it (testworkflowresolver/merge.go, stage/container.go, dedupe.go)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_testbench.render.resolve import (
    EnvValue,
    ExecutionContext,
    MountedFile,
    ResolvedStep,
    ResolveError,
    resolve_workflow,
)
from tests.render.test_resolve import by_name, template, workflow


def _everything() -> dict[str, Any]:
    """A template that uses ``config.v`` in every field render --resolve evaluates."""
    v = "{{ config.v }}"
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflowTemplate",
            "metadata": {"name": "t", "namespace": "testkube"},
            "spec": {
                "config": {"v": {"type": "string", "default": "default"}},
                "container": {"image": f"img-{v}", "imagePullPolicy": f"P-{v}", "command": [f"cmd-{v}"],
                              "args": [f"arg-{v}"], "workingDir": f"/w-{v}",
                              "env": [{"name": "E", "value": f"e-{v}"},
                                      {"name": "S", "valueFrom": {"secretKeyRef": {"name": f"s-{v}", "key": "k"},
                                                                  "extra": [f"x-{v}"]}}]},
                "content": {"files": [{"path": f"/f-{v}", "content": f"c-{v}"},
                                      {"path": "/cm", "contentFrom": {"configMapKeyRef": {"name": f"cm-{v}",
                                                                                          "key": "k"}}},
                                      {"path": "/sec", "contentFrom": {"secretKeyRef": {"name": f"sec-{v}",
                                                                                        "key": "k"}}}]},
                "setup": [{"name": "first", "run": {"env": [{"name": "R", "value": f"r-{v}"}]}}],
                "steps": [{"name": "second", "workingDir": f"sub-{v}",
                           "container": {"image": f"sc-{v}", "imagePullPolicy": f"SP-{v}", "command": [f"sc-{v}"],
                                         "workingDir": "/ignored"},
                           "run": {"args": [f"ra-{v}"], "workingDir": f"deep-{v}"},
                           "content": {"files": [{"path": f"rel-{v}", "content": "x"}]},
                           "artifacts": {"paths": [f"out-{v}/*.json"]}}],
                "after": [{"name": "third", "run": {"image": f"after-{v}", "command": [], "args": []}}],
            }}


def test_every_field_is_evaluated_with_the_config_of_its_use() -> None:
    given = resolve_workflow(workflow({"name": "t", "config": {"v": "given"}}), by_name(_everything()))
    first, second, third = given.steps
    secret = EnvValue(value_from={"secretKeyRef": {"name": "s-given", "key": "k"}, "extra": ["x-given"]})
    files = [MountedFile("/f-given", {"inline": True}, "c-given"),
             MountedFile("/cm", {"configMapKeyRef": {"name": "cm-given", "key": "k"}}, None),
             MountedFile("/sec", {"secretKeyRef": {"name": "sec-given", "key": "k"}}, None)]
    assert first == ResolvedStep(
        name="first", template="t", image="img-given", image_pull_policy="P-given", command=["cmd-given"],
        args=["arg-given"], working_dir="/w-given",
        env={"CI": EnvValue(value="1"), "E": EnvValue(value="e-given"), "S": secret, "R": EnvValue(value="r-given")},
        files=files, artifacts=[])
    assert second == ResolvedStep(
        name="second", template="t", image="sc-given", image_pull_policy="SP-given", command=["sc-given"],
        args=["ra-given"], working_dir="/w-given/sub-given/deep-given",
        env={"CI": EnvValue(value="1"), "E": EnvValue(value="e-given"), "S": secret},
        files=[*files, MountedFile("/w-given/sub-given/deep-given/rel-given", {"inline": True}, "x")],
        artifacts=["out-given/*.json"])
    assert (third.name, third.image, third.command, third.args, third.entrypoint_from_image) == (
        "third", "after-given", [], [], False), "an empty command is a command: the image's ENTRYPOINT is replaced"
    defaulted = resolve_workflow(workflow({"name": "t"}), by_name(_everything()))
    assert defaulted.steps[1].image == "sc-default" and defaulted.steps[1].artifacts == ["out-default/*.json"]


FIELDS = [
    ("container", "image"), ("container", "imagePullPolicy"), ("container", "command", 0), ("container", "args", 0),
    ("container", "workingDir"), ("container", "env", 0, "value"),
    ("container", "env", 1, "valueFrom", "secretKeyRef", "name"), ("container", "env", 1, "valueFrom", "extra", 0),
    ("content", "files", 0, "path"), ("content", "files", 0, "content"),
    ("content", "files", 1, "contentFrom", "configMapKeyRef", "name"),
    ("content", "files", 2, "contentFrom", "secretKeyRef", "name"),
    ("setup", 0, "run", "env", 0, "value"),
    ("steps", 0, "workingDir"), ("steps", 0, "container", "image"), ("steps", 0, "container", "imagePullPolicy"),
    ("steps", 0, "container", "command", 0), ("steps", 0, "run", "args", 0), ("steps", 0, "run", "workingDir"),
    ("steps", 0, "content", "files", 0, "path"), ("steps", 0, "artifacts", "paths", 0),
    ("after", 0, "run", "image"),
]


def _where(path: tuple[Any, ...]) -> str:
    return "spec" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


@pytest.mark.parametrize("path", FIELDS, ids=_where)
def test_an_expression_error_names_the_field_it_is_in(path: tuple[Any, ...]) -> None:
    """The location is the field's own path inside the template (or workflow) that holds it."""
    t = _everything()
    holder = t["spec"]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = "{{ config.nope }}"
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t"}), by_name(t))
    assert err.value.location == f"spec.use[0] (t) {_where(path)}"
    assert err.value.message == "config.nope: unknown variable (not a parameter of t)"
    own = {"metadata": {"name": "wf", "namespace": "testkube"}, "spec": copy.deepcopy(t["spec"])}
    with pytest.raises(ResolveError) as err:
        resolve_workflow(own, {})
    assert (err.value.location, err.value.message) == (
        _where(path), "config.nope: unknown variable (not a parameter of the workflow)"), "the workflow's own fields"


def test_config_values_are_cast_to_the_declared_type() -> None:
    """config.go castParameter: ``+ 1`` concatenates to a string and adds to a number. A ``number`` parameter is
    truncated like an integer: expressions/stdlib.go ``CastToFloat`` calls the ``int`` function in Testkube 2.12.2
    (found by tests/render/test_resolve_testkube.py: Testkube printed ``0`` for ``{{ config.ratio * 2 }}`` with
    ratio 0.5)."""
    config = {"s": {"type": "string", "default": "4.5"}, "i": {"type": "integer", "default": "4.5"},
              "n": {"type": "number", "default": "4.5"}, "b": {"type": "boolean", "default": "off"},
              "u": {"default": "4"}}
    t = template("t", config=config, args=["{{ config.s + 1 }}", "{{ config.i + 1 }}", "{{ config.n + 1 }}",
                                           "{{ config.b ? 'y' : 'n' }}", "{{ config.u + 1 }}"])
    [step] = resolve_workflow(workflow({"name": "t", "config": {"b": "on"}}), by_name(t)).steps
    assert step.args == ["4.51", "5", "5", "y", "41"]
    [step] = resolve_workflow(workflow({"name": "t"}), by_name(t)).steps
    assert step.args[3] == "n"
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t", "config": {"i": "x"}}), by_name(t))
    assert str(err.value) == "spec.use[0] (t) spec.steps[0].run.args[1]: error while converting value to number: x"


def test_config_values_see_the_execution_variables() -> None:
    t = template("t", config={"run": {"type": "string", "default": "{{ workflow.name }}-{{ execution.number }}"},
                              "given": {"type": "string"}},
                 args=["{{ config.run }}", "{{ config.given }}"])
    [step] = resolve_workflow(workflow({"name": "t", "config": {"given": "{{ execution.id }}"}}), by_name(t),
                              execution=ExecutionContext(id="abc", number=3)).steps
    assert step.args == ["wf-3", "abc"]


def test_properties_of_execution_maps_resolve_and_missing_ones_are_unknown() -> None:
    """accessor.go: ``a.b.c`` is looked up whole, then as property ``c`` of ``a.b``."""
    t = template("t", args=["{{ execution.tags.team }}", "{{ workflow.labels.app }}"])
    wf = workflow({"name": "t"})
    wf["metadata"]["labels"] = {"app": "weather"}
    [step] = resolve_workflow(wf, by_name(t), execution=ExecutionContext(tags={"team": "qa"})).steps
    assert step.args == ["qa", "weather"]
    with pytest.raises(ResolveError, match=r"execution\.tags\.other: unknown variable"):
        resolve_workflow(wf, by_name(template("t", args=["{{ execution.tags.other }}"])))


def _container_template(**container: Any) -> dict[str, Any]:
    t = template("t")
    t["spec"]["container"] = container
    t["spec"]["steps"][0]["run"] = {"env": [{"name": "X", "value": "x"}]}
    return t


TEMPLATE_CONTAINER = {"image": "tpl", "imagePullPolicy": "Never", "command": ["tc"], "args": ["ta"],
                      "workingDir": "/tw"}


@pytest.mark.parametrize(("own", "expected"), [
    ({}, ("tpl", "Never", ["tc"], ["ta"], "/tw")),
    ({"workingDir": "/ww"}, ("tpl", "Never", ["tc"], ["ta"], "/ww")),
    ({"imagePullPolicy": "Always"}, ("tpl", "Always", ["tc"], ["ta"], "/tw")),
    ({"image": "own"}, ("own", "Never", [], [], "/tw")),
    ({"image": "own", "args": ["oa"]}, ("own", "Never", [], ["oa"], "/tw")),
    ({"command": ["oc"]}, ("tpl", "Never", ["oc"], [], "/tw")),
    ({"args": ["oa"]}, ("tpl", "Never", ["tc"], ["oa"], "/tw")),
])
def test_the_workflows_container_is_merged_over_the_templates(own: dict[str, Any], expected: tuple[Any, ...]) -> None:
    """merge.go MergeContainerConfig: the workflow's workingDir and imagePullPolicy win; its image comes with its
    own command and args (none: the image's ENTRYPOINT), a command with its own args, args alone replace args."""
    wf = workflow({"name": "t"}, container=own) if own else workflow({"name": "t"})
    [step] = resolve_workflow(wf, by_name(_container_template(**TEMPLATE_CONTAINER))).steps
    assert (step.image, step.image_pull_policy, step.command, step.args, step.working_dir) == expected


def test_the_last_entry_of_a_name_wins_in_the_place_of_that_entry() -> None:
    """dedupe.go DedupeEnvVars keeps the last entry of each name, in the order of those last entries."""
    t = template("t", container_env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
    [step] = resolve_workflow(workflow({"name": "t"}, env=[{"name": "A", "value": "3"}]), by_name(t)).steps
    assert list(step.env.items()) == [("CI", EnvValue(value="1")), ("B", EnvValue(value="2")),
                                      ("A", EnvValue(value="3"))]


def test_an_env_entry_without_a_value_is_empty() -> None:
    [step] = resolve_workflow(workflow({"name": "t"}, env=[{"name": "A"}]), by_name(template("t"))).steps
    assert step.env["A"] == EnvValue(value="")


def test_env_chains_resolve_and_cycles_are_named() -> None:
    chain = [{"name": f"V{i}", "value": f"{{{{ env.V{i + 1} }}}}"} for i in range(30)]
    chain.append({"name": "V30", "value": "end"})
    [step] = resolve_workflow(workflow({"name": "t"}), by_name(template("t", step_env=chain,
                                                                          args=["{{ env.V0 }}"]))).steps
    assert step.args == ["end"], "a long chain is no cycle"
    cycle = [{"name": "A", "value": "{{ env.B }}"}, {"name": "B", "value": "{{ env.A }}"}]
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t"}), by_name(template("t", step_env=cycle)))
    assert err.value.message == "env.B refers to itself (env.B -> env.A -> env.B)"


@pytest.mark.parametrize(("image", "command"), [
    ("ghcr.io/agentic-layer/testbench/testworkflows", ["uv", "run", "python3"]),
    ("ghcr.io/agentic-layer/testbench/testworkflows:0.10.0", ["uv", "run", "python3"]),
    ("ghcr.io/agentic-layer/testbench/testworkflows:0.10.0@sha256:ab", ["uv", "run", "python3"]),
    ("registry:5000/phase:1", ["entry"]),
    ("registry:5000/phase", ["entry"]),
    ("registry:5000/phase@sha256:ab", ["entry"]),
    ("phase:1", ["bare"]),
    ("phase", ["bare"]),
    ("registry:5000/org/phase", []),
    ("registry:5000/other:1", []),
    ("ghcr.io/agentic-layer/testbench/testworkflows-x:1", []),
])
def test_the_entrypoint_is_found_by_repository(image: str, command: list[str]) -> None:
    """A tag follows the last ``/`` (a registry port does not), a digest follows ``@``."""
    from kubectl_testbench.render.resolve import IMAGE_ENTRYPOINTS

    t = template("t")
    t["spec"]["steps"][0]["run"]["image"] = image
    known = {**IMAGE_ENTRYPOINTS, "registry:5000/phase": ("entry",), "phase": ("bare",)}
    [step] = resolve_workflow(workflow({"name": "t"}), by_name(t), entrypoints=known).steps
    assert (step.command, step.entrypoint_from_image, step.image_pull_policy) == (command, True, ""), "no policy set"


@pytest.mark.parametrize(("working_dirs", "expected"), [
    (("", "", ""), ""), (("sub", "", ""), "sub"), (("/a", "b/../c", ""), "/a/c"), (("/a", "/b", "c"), "/b/c"),
    (("/a", "", "/x/./y"), "/x/./y"), (("work/", "", ""), "work"), (("", "s", "r"), "s/r"),
])
def test_working_dirs_are_taken_from_the_parent(working_dirs: tuple[str, str, str], expected: str) -> None:
    """stage/container.go ``WorkingDir`` with expressions/stdlib.go ``makepath``: the root's path as it is, then
    per child an absolute path as it is, a path under no parent as it is (relative: to the image's WORKDIR), else
    ``filepath.Join`` (cleaned, also when the child sets none). Found by test_resolve_testkube.py: Testkube ran
    ``work``, not ``/work``."""
    root, step_dir, run_dir = working_dirs
    t = template("t")
    if run_dir:
        t["spec"]["steps"][0]["run"]["workingDir"] = run_dir
    if step_dir:
        t["spec"]["steps"][0]["workingDir"] = step_dir
    wf = workflow({"name": "t"}, container={"workingDir": root}) if root else workflow({"name": "t"})
    [step] = resolve_workflow(wf, by_name(t)).steps
    assert step.working_dir == expected


def test_files_resolve_against_the_given_configmaps() -> None:
    t = template("t")
    t["spec"]["steps"][0]["content"] = {"files": [
        {"path": "a.json", "contentFrom": {"configMapKeyRef": {"name": "cm", "key": "a"}}},
        {"path": "b", "contentFrom": {"secretKeyRef": {"name": "s", "key": "b"}}}, {"path": "/empty"}]}
    cms = {("testkube", "cm"): {"data": {"a": "{\"x\": 1}"}}}
    [step] = resolve_workflow(workflow({"name": "t"}), by_name(t), configmaps=cms).steps
    assert step.files == [MountedFile("/data/a.json", {"configMapKeyRef": {"name": "cm", "key": "a"}}, '{"x": 1}'),
                          MountedFile("/data/b", {"secretKeyRef": {"name": "s", "key": "b"}}, None),
                          MountedFile("/empty", {"inline": True}, "")], "a file without content is empty"
    for configmaps, where in (({("testkube", "cm"): {"data": {"b": "x"}}}, "key 'a'"),
                              ({("other", "cm"): {"data": {"a": "x"}}}, "key 'a'"), ({}, "key 'a'")):
        with pytest.raises(ResolveError) as err:
            resolve_workflow(workflow({"name": "t"}), by_name(t), configmaps=configmaps)
        assert (err.value.location, err.value.message) == (
            "spec.use[0] (t) spec.steps[0].content.files[0].contentFrom.configMapKeyRef",
            f"ConfigMap testkube/cm {where} is not among the given ConfigMaps")
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t"}), by_name(t), configmaps={("testkube", "cm"): {"data": ["a"]}})
    assert str(err.value) == "ConfigMap cm.data: must be an object"


def test_steps_run_in_setup_steps_after_order_across_uses() -> None:
    """apply.go: each template's setup and steps go before the workflow's (in use order), its after after them."""
    def tpl(name: str) -> dict[str, Any]:
        t = template(name)
        step = t["spec"]["steps"][0]
        t["spec"]["setup"] = [{**step, "name": f"{name}-setup"}]
        t["spec"]["after"] = [{**step, "name": f"{name}-after"}]
        return t

    own = {"run": {"image": "i"}}
    wf = workflow({"name": "a"}, {"name": "b"}, setup=[{**own, "name": "w-setup"}], steps=[{**own, "name": "w-step"}],
                  after=[{**own, "name": "w-after"}])
    resolved = resolve_workflow(wf, by_name(tpl("a"), tpl("b")))
    assert [(s.name, s.template) for s in resolved.steps] == [
        ("a-setup", "a"), ("b-setup", "b"), ("w-setup", ""), ("a-step", "a"), ("b-step", "b"), ("w-step", ""),
        ("w-after", ""), ("b-after", "b"), ("a-after", "a")]
    unnamed = resolve_workflow({"metadata": {"name": "wf"}, "spec": {"steps": [own, own]}}, {})
    assert [s.name for s in unnamed.steps] == ["step-0", "step-1"]


def test_a_template_without_a_namespace_or_in_the_workflows_is_usable() -> None:
    for namespace in ("", "testkube"):
        t = template("t", namespace=namespace)
        assert resolve_workflow(workflow({"name": "t"}), by_name(t)).steps[0].template == "t"
    t = template("t")
    del t["metadata"]["namespace"]
    assert resolve_workflow(workflow({"name": "t"}), by_name(t)).namespace == "testkube"


def test_the_workflows_files_are_mounted_from_the_working_directory() -> None:
    """A relative path of spec.content.files is taken from the working directory (constants.go: /data without)."""
    [step] = resolve_workflow(workflow({"name": "t"}, container={"workingDir": "/app"},
                                       content={"files": [{"path": "a.json", "content": "{}"}]}),
                              by_name(template("t"))).steps
    assert step.files == [MountedFile("/app/a.json", {"inline": True}, "{}")]
    [step] = resolve_workflow(workflow({"name": "t"}, content={"files": [{"path": "a.json", "content": "{}"}]}),
                              by_name(template("t"))).steps
    assert step.files == [MountedFile("/data/a.json", {"inline": True}, "{}")]


def test_a_workflow_without_name_or_namespace_resolves_with_empty_ones() -> None:
    resolved = resolve_workflow({"spec": {"steps": [{"run": {"image": "i", "args": ["{{ execution.name }}"]}}]}}, {})
    assert (resolved.name, resolved.namespace, resolved.steps[0].args) == ("", "", ["-1"])
