"""Where ``render --resolve`` takes templates and ConfigMaps from (``--templates`` files, our ``install``), and
how a batch of rendered objects resolves: every accepted and refused input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench import layout
from kubectl_testbench.render.resolve import ExecutionContext, resolve_objects
from kubectl_testbench.render.resolve.sources import (
    TemplatesError,
    configmaps_in,
    installed_templates,
    load_objects,
    templates_in,
)
from tests.render.test_resolve import by_name, template, workflow

API = "testworkflows.testkube.io/v1"


def test_templates_are_picked_by_kind_and_api_version_a_later_one_wins() -> None:
    first, second = template("a"), template("a", args=["second"])
    objects: list[dict[str, Any]] = [
        first, second, {**template("b"), "apiVersion": "testworkflows.testkube.io/v2"},
        {**template("c"), "kind": "TestWorkflow"}, {"kind": "TestWorkflowTemplate", "apiVersion": API},
        {"kind": "TestWorkflowTemplate", "apiVersion": API, "metadata": {"name": 5}},
        {"kind": "TestWorkflowTemplate", "apiVersion": API, "metadata": "x"}]
    assert templates_in(objects) == {"a": second}


def test_configmaps_are_keyed_by_namespace_and_name() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "ns"}}
    bare = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}
    objects = [cm, bare, {**cm, "apiVersion": "v2"}, {**cm, "kind": "Secret"},
               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": None}]
    assert configmaps_in(objects) == {("ns", "d"): cm, ("", ""): bare}


def test_the_installed_templates_are_in_the_namespace_asked_for() -> None:
    shipped = installed_templates("team")
    assert layout.RUN_TEMPLATE in shipped
    assert {t["metadata"]["namespace"] for t in shipped.values()} == {"team"}
    assert all(name == t["metadata"]["name"] for name, t in shipped.items())
    own = installed_templates("team", image="registry.example/phase:2")
    assert "registry.example/phase:2" in str(own[layout.RUN_TEMPLATE])


def test_load_objects_reads_files_and_unpacks_lists(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n- 3\n---\nkind: B\n---\n- x\n")
    (tmp_path / "b.json").write_text('{"kind": "C"}')
    (tmp_path / "empty.yaml").write_text("apiVersion: v1\nkind: List\n")
    assert load_objects([str(tmp_path)]) == [{"kind": "A"}, {"kind": "B"}, {"kind": "C"}]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.yaml", b"a: [\n", "{path}:2:1: "),
    ("later.yaml", b"kind: A\n---\nkind: B\n---\na: [\n", "{path}:6:1: "),  # the line in the file, not the document
    ("latin.yaml", b"\xff\xfe\x00", "{path}: "),
])
def test_load_objects_refuses_with_the_file_and_line(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(TemplatesError) as err:
        load_objects([str(path)])
    assert str(err.value).startswith(message.format(path=path)), str(err.value)
    assert "\n" not in str(err.value)


def test_load_objects_names_a_path_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(TemplatesError) as err:
        load_objects([str(missing)])
    assert str(err.value).startswith(f"{missing}: ")


def test_a_batch_resolves_each_workflow_and_keeps_the_failures() -> None:
    good = workflow({"name": "t"})
    bad = workflow({"name": "nope"})
    bad["metadata"]["name"] = "bad"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "testkube"},
          "data": {"k": "v"}}
    ref = {"configMapKeyRef": {"name": "cm", "key": "k"}}
    good["spec"]["content"] = {"files": [{"path": "/f", "contentFrom": ref}]}
    result = resolve_objects(iter([cm, good, bad, template("t")]), by_name(template("t")),
                             ExecutionContext(number=9))
    [resolved] = result.workflows
    assert resolved.name == "wf" and resolved.steps[0].files[0].content == "v", "ConfigMaps among the objects"
    [(failed, error)] = result.failures
    assert failed is bad and str(error) == "spec.use[0]: template 'nope' not found (have: t)"
    numbered = template("t", args=["run {{ execution.number }}"])
    [resolved] = resolve_objects([workflow({"name": "t"})], by_name(numbered), ExecutionContext(number=9)).workflows
    assert resolved.steps[0].args == ["run 9"], "the execution context reaches the expressions"


def test_a_batch_without_templates_uses_the_installed_ones_of_each_namespace() -> None:
    wf = workflow({"name": layout.RUN_TEMPLATE})
    for namespace in ("team", "other"):
        wf["metadata"] = {"name": "wf", "namespace": namespace}
        scoped, explicit = resolve_objects([wf]), resolve_objects([wf], installed_templates(namespace))
        assert len(scoped.workflows) + len(scoped.failures) == 1
        assert [w.printed() for w in scoped.workflows] == [w.printed() for w in explicit.workflows]
        assert [str(e) for _, e in scoped.failures] == [str(e) for _, e in explicit.failures]


def test_a_batch_asks_for_the_installed_templates_of_each_workflows_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Testkube only lets a workflow use templates of its own namespace: the defaults are made for that one."""
    from kubectl_testbench.render.resolve import batch

    asked: list[str] = []

    def installed(namespace: str) -> dict[str, Any]:
        asked.append(namespace)
        return by_name(template("t", namespace=namespace))

    monkeypatch.setattr(batch, "installed_templates", installed)
    workflows = [workflow({"name": "t"}) for _ in range(4)]
    workflows[0]["metadata"]["namespace"] = "team"
    del workflows[1]["metadata"]["namespace"]
    workflows[2]["metadata"] = None
    del workflows[3]["metadata"]
    result = resolve_objects(workflows)
    assert asked == ["team", "", "", ""]
    assert [w.namespace for w in result.workflows] == ["team", "", "", ""] and result.failures == []
