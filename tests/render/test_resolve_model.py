"""The printed ``ResolvedWorkflowList`` (docs/render.md) and its reader ``parse_document``: every field, every
placeholder, every refusal with the field it names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_testbench.render.resolve import (
    DocumentError,
    EnvValue,
    ExecutionContext,
    MountedFile,
    ResolvedStep,
    ResolvedWorkflow,
    document,
    parse_document,
)

STEP = ResolvedStep(
    name="run", template="run-template", image="img:1", command=["python3"], args=["-m", "x"], working_dir="/app",
    env={"CI": EnvValue(value="1"), "EMPTY": EnvValue(), "KEY": EnvValue(value_from={"secretKeyRef": {"name": "s"}})},
    files=[MountedFile("/data/a.json", {"inline": True}, "{}"), MountedFile("/s", {"secretKeyRef": {"name": "s"}})],
    artifacts=["out/*.json"], image_pull_policy="Always", entrypoint_from_image=False)
WORKFLOW = ResolvedWorkflow("wf", "testkube", [STEP])

PRINTED_STEP = {
    "name": "run", "template": "run-template", "image": "img:1", "imagePullPolicy": "Always", "command": ["python3"],
    "entrypointFromImage": False, "args": ["-m", "x"], "workingDir": "/app",
    "env": {"CI": {"value": "1"}, "EMPTY": {"value": ""}, "KEY": {"valueFrom": {"secretKeyRef": {"name": "s"}}}},
    "files": [{"path": "/data/a.json", "source": {"inline": True}, "content": "{}"},
              {"path": "/s", "source": {"secretKeyRef": {"name": "s"}}}],
    "artifacts": ["out/*.json"]}


def test_the_printed_form_has_every_field_in_order() -> None:
    doc = document([WORKFLOW], ExecutionContext())
    assert doc["items"] == [{"kind": "ResolvedWorkflow", "metadata": {"name": "wf", "namespace": "testkube"},
                             "steps": [PRINTED_STEP]}]
    assert list(doc["items"][0]["steps"][0]) == list(PRINTED_STEP)
    assert (doc["apiVersion"], doc["kind"]) == ("testbench.agentic-layer.ai/v1alpha1", "ResolvedWorkflowList")


def test_the_placeholders_are_stated_as_strings() -> None:
    assert document([], ExecutionContext())["placeholders"] == {
        "execution.id": "000000000000000000000001", "execution.groupId": "000000000000000000000001",
        "execution.name": "<workflow>-1", "execution.number": "1", "execution.scheduledAt": "2000-01-01T00:00:00.000Z",
        "execution.disableWebhooks": "false", "execution.tags": "{}", "resource.id": "000000000000000000000001",
        "resource.root": "000000000000000000000001", "resource.fsPrefix": ""}
    given = ExecutionContext(id="abc", number=7, name="mine", group_id="grp", tags={"t": "1"})
    shown = document([], given)["placeholders"]
    assert (shown["execution.name"], shown["execution.groupId"], shown["execution.tags"]) == (
        "mine", "grp", '{"t":"1"}')


def test_the_execution_variables_of_a_workflow() -> None:
    variables = ExecutionContext(number=3, organization_id="org", environment_id="env",
                                 dashboard_url="https://d").variables("wf", {"app": "a"})
    assert variables["execution.name"] == "wf-3" and variables["workflow.name"] == "wf"
    assert variables["workflow.labels"] == {"app": "a"}
    assert (variables["organization.id"], variables["environment.id"], variables["dashboard.url"]) == (
        "org", "env", "https://d")


def test_a_step_is_found_by_its_template_and_its_literal_env() -> None:
    other = ResolvedStep("b", "other", "i", [], [], "", {})
    workflow = ResolvedWorkflow("wf", "ns", [other, STEP, ResolvedStep("c", "run-template", "i", [], [], "", {})])
    assert workflow.step("run-template") is STEP
    with pytest.raises(KeyError):
        workflow.step("nope")
    assert (STEP.env_value("CI"), STEP.env_value("KEY"), STEP.env_value("NOPE"), STEP.env_value("EMPTY")) == (
        "1", None, None, None)


def test_parse_document_reads_back_every_field() -> None:
    doc = document([WORKFLOW], ExecutionContext())
    [parsed] = parse_document(doc)
    assert parsed.name == "wf" and parsed.namespace == "testkube"
    assert parsed.steps[0].printed() == PRINTED_STEP
    assert parsed.steps[0].env["KEY"].value_from == {"secretKeyRef": {"name": "s"}}
    assert parsed.steps[0].files[1].content is None


def _broken(change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(document([WORKFLOW], ExecutionContext()))
    change(doc)
    return doc


@pytest.mark.parametrize(("doc", "message"), [
    (["x"], "not a testbench.agentic-layer.ai/v1alpha1 ResolvedWorkflowList"),
    (_broken(lambda d: d.update(apiVersion="v1")), "not a testbench.agentic-layer.ai/v1alpha1 ResolvedWorkflowList"),
    (_broken(lambda d: d.pop("items")), ": missing 'items'"),
    (_broken(lambda d: d["items"][0].pop("metadata")), "items[0]: missing 'metadata'"),
    (_broken(lambda d: d["items"][0]["metadata"].update(name=1)), "items[0].metadata.name: expected str, got int"),
    (_broken(lambda d: d["items"][0]["metadata"].pop("namespace")), "items[0].metadata: missing 'namespace'"),
    (_broken(lambda d: d["items"][0].update(steps={})), "items[0].steps: expected list, got dict"),
    (_broken(lambda d: d["items"][0]["steps"].append("x")), "items[0].steps[1]: missing 'env'"),
    (_broken(lambda d: d["items"][0]["steps"][0]["command"].append(1)),
     "items[0].steps[0].command: expected a list of strings"),
    (_broken(lambda d: d["items"][0]["steps"][0]["env"].update(X="v")), "items[0].steps[0].env.X: missing 'value'"),
    (_broken(lambda d: d["items"][0]["steps"][0]["env"].update(X={"valueFrom": "s"})),
     "items[0].steps[0].env.X: missing 'value'"),
    (_broken(lambda d: d["items"][0]["steps"][0]["files"][0].update(content=1)),
     "items[0].steps[0].files[0].content: expected str"),
    (_broken(lambda d: d["items"][0]["steps"][0]["files"].append("f")), "items[0].steps[0].files[2]: missing 'path'"),
    (_broken(lambda d: d["items"][0]["steps"][0]["files"][1].update(source="s")),
     "items[0].steps[0].files[1].source: expected dict, got str"),
    (_broken(lambda d: d["items"][0]["steps"][0].update(entrypointFromImage="no")),
     "items[0].steps[0].entrypointFromImage: expected bool, got str"),
    (_broken(lambda d: d["items"][0]["steps"][0].pop("imagePullPolicy")),
     "items[0].steps[0]: missing 'imagePullPolicy'"),
    (_broken(lambda d: d["items"][0]["steps"][0].pop("artifacts")), "items[0].steps[0]: missing 'artifacts'"),
    (_broken(lambda d: d["items"][0]["steps"][0].update(workingDir=None)),
     "items[0].steps[0].workingDir: expected str, got NoneType"),
])
def test_a_document_that_is_not_the_printed_form_names_the_field(doc: Any, message: str) -> None:
    with pytest.raises(DocumentError) as err:
        parse_document(doc)
    assert str(err.value) == message
