"""render --resolve refuses what Testkube would reject, or what it cannot show exactly, with one line naming the
field: every such message of resolve/workflow.py, verbatim, with its location (what the CLI prints as
``error[render/resolve] TestWorkflow ns/name: <location>: <message>``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kubectl_testbench.render.resolve import ResolveError, resolve_workflow
from tests.render.test_resolve import by_name, template, workflow

Case = Callable[[], tuple[dict[str, Any], dict[str, dict[str, Any]]]]
UNSUPPORTED = "is not supported by render --resolve"


def _t(**spec: Any) -> dict[str, Any]:
    """The template ``t`` (one run step) with ``spec`` entries added."""
    t = template("t")
    t["spec"].update(spec)
    return t


def _step(**fields: Any) -> dict[str, dict[str, Any]]:
    """The template ``t`` whose one step has ``fields`` set (None removes a field)."""
    t = template("t")
    for key, value in fields.items():
        if value is None:
            t["spec"]["steps"][0].pop(key, None)
        else:
            t["spec"]["steps"][0][key] = value
    return by_name(t)


def _own(*steps: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A workflow without templates: its own steps and spec fields."""
    return {"metadata": {"name": "wf", "namespace": "testkube"}, "spec": {"steps": list(steps), **spec}}


def _run(**run: Any) -> dict[str, Any]:
    return {"run": {"image": "i", **run}}


USE = "spec.use[0] (t)"
CASES: dict[str, tuple[Case, str, str]] = {
    # (workflow, templates), location, message
    "metadata is not a map": (lambda: ({"metadata": "wf", "spec": {}}, {}), "metadata", "must be an object"),
    "labels are not a map": (lambda: ({"metadata": {"name": "wf", "labels": ["a"]}, "spec": {"steps": [_run()]}}, {}),
                             "metadata.labels", "must be an object"),
    "spec is not a map": (lambda: ({"metadata": {"name": "wf"}, "spec": ["x"]}, {}), "spec", "must be an object"),
    "nothing to run": (lambda: (_own(), {}), "spec",
                       "has nothing to run (Testkube: test workflow has nothing to run)"),
    "workflow services": (lambda: (workflow({"name": "t"}, services={"db": {}}), by_name(_t())), "spec.services",
                          UNSUPPORTED),
    "workflow pvcs": (lambda: (workflow({"name": "t"}, pvcs={"data": {}}), by_name(_t())), "spec.pvcs", UNSUPPORTED),
    "template services": (lambda: (workflow({"name": "t"}), by_name(_t(services={"db": {}}))),
                          f"{USE} spec.services", UNSUPPORTED),
    "template pvcs": (lambda: (workflow({"name": "t"}), by_name(_t(pvcs={"d": {}}))), f"{USE} spec.pvcs",
                      UNSUPPORTED),
    "use is not a list": (lambda: (workflow(use="t"), by_name(_t())), "spec.use", "must be a list"),
    "a use entry is not a map": (lambda: (workflow("t"), by_name(_t())), "spec.use[0]", "must be an object"),
    "a use without a name": (lambda: (workflow({"config": {}}), by_name(_t())), "spec.use[0]",
                             "has no name (the TestWorkflowTemplate to use)"),
    "a use with an empty name": (lambda: (workflow({"name": ""}), by_name(_t())), "spec.use[0]",
                                 "has no name (the TestWorkflowTemplate to use)"),
    "unknown template": (lambda: (workflow({"name": "nope"}), by_name(_t(), template("a"))), "spec.use[0]",
                         "template 'nope' not found (have: a, t)"),
    "template metadata is not a map": (lambda: (workflow({"name": "t"}), {"t": {**_t(), "metadata": ["t"]}}),
                                       "t.metadata", "must be an object"),
    "template spec is not a map": (lambda: (workflow({"name": "t"}), {"t": {**_t(), "spec": "x"}}), "t.spec",
                                   "must be an object"),
    "template of another namespace": (lambda: (workflow({"name": "t"}), by_name(template("t", namespace="other"))),
                                      "spec.use[0]", "template 't' is in namespace 'other'; a TestWorkflow in "
                                      "'testkube' can only use templates of its own namespace"),
    "workflow container is not a map": (lambda: (workflow({"name": "t"}, container=["x"]), by_name(_t())),
                                        "spec.container", "must be an object"),
    "env entry is not a map": (lambda: (workflow({"name": "t"}, env=["A=1"]), by_name(_t())),
                               "spec.container.env[0]", "must be an object"),
    "env entry without a name": (lambda: (workflow({"name": "t"}, env=[{"value": "1"}]), by_name(_t())),
                                 "spec.container.env[0]", "has no name"),
    "env entry with an empty name": (lambda: (workflow({"name": "t"}, env=[{"name": "", "value": "1"}]),
                                              by_name(_t())), "spec.container.env[0]", "has no name"),
    "env entry with a number as name": (lambda: (workflow({"name": "t"}, env=[{"name": 5, "value": "1"}]),
                                                 by_name(_t())), "spec.container.env[0]", "has no name"),
    "env value is a boolean": (lambda: (workflow({"name": "t"}, env=[{"name": "A", "value": True}]),
                                        by_name(_t())), "spec.container.env[0].value", "must be a string"),
    "env value is a map": (lambda: (workflow({"name": "t"}, env=[{"name": "A", "value": {"a": 1}}]),
                                    by_name(_t())), "spec.container.env[0].value", "must be a string"),
    "envFrom": (lambda: (workflow({"name": "t"}, container={"envFrom": [{"secretRef": {"name": "s"}}]}),
                         by_name(_t())), "spec.container.envFrom", UNSUPPORTED),
    "volumeMounts": (lambda: (workflow({"name": "t"}, container={"volumeMounts": [{"name": "v"}]}), by_name(_t())),
                     "spec.container.volumeMounts", UNSUPPORTED),
    "command is not a list": (lambda: (workflow({"name": "t"}, container={"command": "python"}), by_name(_t())),
                              "spec.container.command", "must be a list"),
    "args is not a list": (lambda: (workflow({"name": "t"}, container={"args": "-m x"}), by_name(_t())),
                           "spec.container.args", "must be a list"),
    "env is not a list": (lambda: (workflow({"name": "t"}, container={"env": {"A": "1"}}), by_name(_t())),
                          "spec.container.env", "must be a list"),
    "an argument is a map": (lambda: (workflow({"name": "t"}, container={"args": ["-m", {"a": 1}]}),
                                      by_name(_t())), "spec.container.args[1]", "must be a string"),
    "a command item is null": (lambda: (workflow({"name": "t"}, container={"command": [None]}), by_name(_t())),
                               "spec.container.command[0]", "must be a string"),
    "image is a list": (lambda: (workflow({"name": "t"}, container={"image": ["i"]}), by_name(_t())),
                        "spec.container.image", "must be a string"),
    "imagePullPolicy is a list": (lambda: (workflow({"name": "t"}, container={"imagePullPolicy": ["Always"]}),
                                           by_name(_t())), "spec.container.imagePullPolicy", "must be a string"),
    "workingDir is a map": (lambda: (workflow({"name": "t"}, container={"workingDir": {"a": 1}}), by_name(_t())),
                            "spec.container.workingDir", "must be a string"),
    "template container env without a name": (lambda: (workflow({"name": "t"}),
                                                       by_name(_t(container={"env": [{"value": "x"}]}))),
                                              f"{USE} spec.container.env[0]", "has no name"),
    "content is not a map": (lambda: (workflow({"name": "t"}, content="x"), by_name(_t())), "spec.content",
                             "must be an object"),
    "files is not a list": (lambda: (workflow({"name": "t"}, content={"files": "x"}), by_name(_t())),
                            "spec.content.files", "must be a list"),
    "template content is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(content=["x"]))),
                                      f"{USE} spec.content", "must be an object"),
    "template files is not a list": (lambda: (workflow({"name": "t"}), by_name(_t(content={"files": {}}))),
                                     f"{USE} spec.content.files", "must be a list"),
    "a file without a path": (lambda: (workflow({"name": "t"}, content={"files": [{"content": "x"}]}),
                                       by_name(_t())), "spec.content.files[0]", "has no path"),
    "a template file is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(content={"files": ["x"]}))),
                                     f"{USE} spec.content.files[0]", "must be an object"),
    "a file path is a list": (lambda: (workflow({"name": "t"}, content={"files": [{"path": ["a"]}]}),
                                       by_name(_t())), "spec.content.files[0].path", "must be a string"),
    "a file content is a map": (lambda: (workflow({"name": "t"}, content={"files": [{"path": "a", "content": {}}]}),
                                         by_name(_t())), "spec.content.files[0].content", "must be a string"),
    "a file from a fieldRef": (lambda: (workflow({"name": "t"}, content={"files": [
        {"path": "a", "contentFrom": {"fieldRef": {"fieldPath": "x"}}}]}), by_name(_t())),
        "spec.content.files[0].contentFrom", "only configMapKeyRef and secretKeyRef are supported"),
    "contentFrom is not a map": (lambda: (workflow({"name": "t"}, content={"files": [
        {"path": "a", "contentFrom": "cm"}]}), by_name(_t())), "spec.content.files[0].contentFrom",
        "must be an object"),
    "configMapKeyRef is not a map": (lambda: (workflow({"name": "t"}, content={"files": [
        {"path": "a", "contentFrom": {"configMapKeyRef": "cm"}}]}), by_name(_t())),
        "spec.content.files[0].contentFrom.configMapKeyRef", "must be an object"),
    "setup is not a list": (lambda: (workflow({"name": "t"}, setup={"run": {}}), by_name(_t())), "spec.setup",
                            "must be a list"),
    "a setup step is not a map": (lambda: (workflow({"name": "t"}, setup=["x"]), by_name(_t())), "spec.setup[0]",
                                  "must be an object"),
    "steps is not a list": (lambda: (workflow({"name": "t"}, steps={}), by_name(_t())), "spec.steps",
                            "must be a list"),
    "a step is not a map": (lambda: (workflow({"name": "t"}, steps=[1]), by_name(_t())), "spec.steps[0]",
                            "must be an object"),
    "after is not a list": (lambda: (workflow({"name": "t"}, after="x"), by_name(_t())), "spec.after",
                            "must be a list"),
    "an after step is not a map": (lambda: (workflow({"name": "t"}, after=[1]), by_name(_t())), "spec.after[0]",
                                   "must be an object"),
    "template setup is not a list": (lambda: (workflow({"name": "t"}), by_name(_t(setup="x"))),
                                     f"{USE} spec.setup", "must be a list"),
    "a template setup step is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(setup=["x"]))),
                                           f"{USE} spec.setup[0]", "must be an object"),
    "template steps is not a list": (lambda: (workflow({"name": "t"}), by_name(_t(steps="x"))),
                                     f"{USE} spec.steps", "must be a list"),
    "a template step is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(steps=["x"]))),
                                     f"{USE} spec.steps[0]", "must be an object"),
    "template after is not a list": (lambda: (workflow({"name": "t"}), by_name(_t(after="x"))),
                                     f"{USE} spec.after", "must be a list"),
    "a template after step is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(after=["x"]))),
                                           f"{USE} spec.after[0]", "must be an object"),
    "workflow config is not a map": (lambda: (workflow({"name": "t"}, config=["a"]), by_name(_t())), "spec.config",
                                     "must be an object"),
    "a workflow parameter is not a map": (lambda: (workflow({"name": "t"}, config={"a": "string"}), by_name(_t())),
                                          "spec.config.a", "must be an object"),
    "template config is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(config=["a"]))), "t.spec.config",
                                     "must be an object"),
    "a template parameter is not a map": (lambda: (workflow({"name": "t"}), by_name(_t(config={"a": "string"}))),
                                          "t.spec.config.a", "must be an object"),
    "use config is not a map": (lambda: (workflow({"name": "t", "config": ["a"]}), by_name(_t())), f"{USE} config",
                                "must be an object"),
    "a config value is a list": (lambda: (workflow({"name": "t", "config": {"a": ["x"]}}),
                                          by_name(_t(config={"a": {"type": "string"}}))), f"{USE} config.a",
                                 "must be a string or an integer (int-or-string), got list"),
    "a config value is a float": (lambda: (workflow({"name": "t", "config": {"a": 1.5}}),
                                           by_name(_t(config={"a": {"type": "string"}}))), f"{USE} config.a",
                                  "must be a string or an integer (int-or-string), got float"),
    "a config value is a boolean": (lambda: (workflow({"name": "t", "config": {"a": False}}),
                                             by_name(_t(config={"a": {"type": "string"}}))), f"{USE} config.a",
                                    "must be a string or an integer (int-or-string), got bool"),
    "an undeclared config key": (lambda: (workflow({"name": "t", "config": {"b": "x"}}),
                                          by_name(_t(config={"a": {"type": "string", "default": ""}}))),
                                 f"{USE} config.b", "is not declared by t; Testkube ignores such a key and runs the "
                                 "template's default instead"),
    "a step without run": (lambda: (workflow({"name": "t"}), _step(run=None)), f"{USE} spec.steps[0]",
                           "runs nothing (no run): render --resolve shows only run steps"),
    "a step with an empty run": (lambda: (workflow({"name": "t"}), _step(run={})), f"{USE} spec.steps[0]",
                                 "runs nothing (no run): render --resolve shows only run steps"),
    "run is not a map": (lambda: (workflow({"name": "t"}), _step(run="python")), f"{USE} spec.steps[0].run",
                         "must be an object"),
    "run.shell": (lambda: (workflow({"name": "t"}), _step(run={"image": "i", "shell": "echo"})),
                  f"{USE} spec.steps[0].run.shell", UNSUPPORTED),
    "a step container is not a map": (lambda: (workflow({"name": "t"}), _step(container="c")),
                                      f"{USE} spec.steps[0].container", "must be an object"),
    "a step workingDir is a list": (lambda: (workflow({"name": "t"}), _step(workingDir=["/a"])),
                                    f"{USE} spec.steps[0].workingDir", "must be a string"),
    "step content is not a map": (lambda: (workflow({"name": "t"}), _step(content="x")),
                                  f"{USE} spec.steps[0].content", "must be an object"),
    "step files is not a list": (lambda: (workflow({"name": "t"}), _step(content={"files": "x"})),
                                 f"{USE} spec.steps[0].content.files", "must be a list"),
    "a step file without a path": (lambda: (workflow({"name": "t"}), _step(content={"files": [{"path": ""}]})),
                                   f"{USE} spec.steps[0].content.files[0]", "has no path"),
    "artifacts is not a map": (lambda: (workflow({"name": "t"}), _step(artifacts=["a"])),
                               f"{USE} spec.steps[0].artifacts", "must be an object"),
    "artifact paths is not a list": (lambda: (workflow({"name": "t"}), _step(artifacts={"paths": "a"})),
                                     f"{USE} spec.steps[0].artifacts.paths", "must be a list"),
    "an artifact path is null": (lambda: (workflow({"name": "t"}), _step(artifacts={"paths": ["a", None]})),
                                 f"{USE} spec.steps[0].artifacts.paths[1]", "must be a string"),
    "no image anywhere": (lambda: (_own({"run": {"args": ["x"]}}), {}), "spec.steps[0]",
                          "sets no image: Testkube would run its own init image"),
    "an empty image": (lambda: (_own({"run": {"image": ""}}), {}), "spec.steps[0]",
                       "sets no image: Testkube would run its own init image"),
    "a parameter that is not declared": (lambda: (workflow({"name": "t"}), by_name(template("t", args=[
        "{{ config.nope }}"]))), f"{USE} spec.steps[0].run.args[0]",
        "config.nope: unknown variable (not a parameter of t)"),
    "a workflow parameter that is not declared": (lambda: (_own(_run(args=["{{ config.nope }}"])), {}),
                                                  "spec.steps[0].run.args[0]",
                                                  "config.nope: unknown variable (not a parameter of the workflow)"),
    "a workflow parameter without a default": (lambda: (_own(_run(args=["{{ config.a }}"]),
                                                             config={"a": {"type": "string"}}), {}),
                                               "spec.steps[0].run.args[0]", "config.a: unknown variable (the "
                                               "workflow declares it without a default: a run must pass it)"),
    "an env variable that refers to itself": (lambda: (_own(_run(env=[{"name": "A", "value": "{{ env.A }}"}])), {}),
                                              "spec.steps[0].run.env[0].value", "env.A refers to itself"),
    "an env variable the step does not set": (lambda: (_own(_run(args=["{{ env.Z }}"])), {}),
                                              "spec.steps[0].run.args[0]",
                                              "env.Z: unknown variable (not set on this step)"),
    "a property of a string": (lambda: (_own(_run(args=["{{ workflow.name.x }}"])), {}),
                               "spec.steps[0].run.args[0]",
                               "workflow.name.x: unknown variable (not a variable Testkube provides to a "
                               "TestWorkflow)"),
    "an unknown execution variable": (lambda: (_own(_run(args=["{{ execution.nope }}"])), {}),
                                      "spec.steps[0].run.args[0]", "execution.nope: unknown variable (not a variable "
                                      "Testkube provides to a TestWorkflow)"),
}
for _field in ("shell", "parallel", "services", "execute", "steps", "setup", "use", "template"):
    CASES[f"step {_field}"] = ((lambda f=_field: (workflow({"name": "t"}), _step(**{f: {"x": 1}}))),
                               f"{USE} spec.steps[0].{_field}", UNSUPPORTED)


@pytest.mark.parametrize("name", list(CASES))
def test_each_refusal_names_its_field_and_says_why(name: str) -> None:
    build, location, message = CASES[name]
    wf, templates = build()
    with pytest.raises(ResolveError) as err:
        resolve_workflow(wf, templates)
    assert (err.value.location, err.value.message) == (location, message)
    assert str(err.value) == f"{location}: {message}"


def test_an_error_without_a_location_is_the_message_alone() -> None:
    assert str(ResolveError("", "broken")) == "broken"
    assert str(ResolveError("spec", "broken")) == "spec: broken"
