"""render --resolve: TestWorkflows expanded with their templates exactly as Testkube's resolver does it.

Each rule is checked on a small synthetic workflow with the kubeshop/testkube source it follows named in the
test (pkg/testworkflows/testworkflowresolver/{apply,merge,config,dedupe}.go, testworkflowprocessor/
{processor,operations}.go, stage/container.go, constants.go), then on what render really emits.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench import layout
from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.resolve import (
    EnvValue,
    ExecutionContext,
    ResolveError,
    resolve_objects,
    resolve_workflow,
)
from kubectl_testbench.render.resolve.sources import installed_templates
from kubectl_testbench.render.settings import Defaults, Flags
from tests.conftest import EXAMPLES, UPSTREAM, require_reference, run_cli
from tests.render.test_render import FIXTURES, GOLDEN, experiment

IMAGE = "registry.example/phase:1"


def template(name: str, *, config: dict[str, Any] | None = None, container_env: list[dict[str, Any]] | None = None,
             step_env: list[dict[str, Any]] | None = None, args: list[str] | None = None,
             namespace: str = "testkube", **run: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if config:
        spec["config"] = config
    if container_env:
        spec["container"] = {"env": container_env}
    step_run: dict[str, Any] = {"image": IMAGE, "args": args or [], **run}
    if step_env:
        step_run["env"] = step_env
    spec["steps"] = [{"name": f"{name}-step", "run": step_run}]
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflowTemplate",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def workflow(*uses: dict[str, Any], env: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"use": list(uses), **spec}
    if env is not None:
        body["container"] = {"env": env}
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflow",
            "metadata": {"name": "wf", "namespace": "testkube"}, "spec": body}


def by_name(*templates: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["metadata"]["name"]: t for t in templates}


def values(env: dict[str, EnvValue]) -> dict[str, str | None]:
    return {name: v.value for name, v in env.items()}


# --- env precedence ---------------------------------------------------------------------------------------------

def test_env_precedence_template_container_then_workflow_then_step() -> None:
    """merge.go MergeContainerConfig(template, workflow) + dedupe.go (last entry wins): the workflow's
    spec.container.env beats a template's spec.container.env; container.go Env() (parent, then child) + dedupe:
    a step's run.env beats the workflow's. Testkube's own CI=1 (constants.go) comes first."""
    t = template("t", container_env=[{"name": "A", "value": "template"}, {"name": "B", "value": "template"},
                                     {"name": "C", "value": "template"}],
                 step_env=[{"name": "C", "value": "step"}])
    wf = workflow({"name": "t"}, env=[{"name": "B", "value": "workflow"}, {"name": "C", "value": "workflow"}])
    [step] = resolve_workflow(wf, by_name(t)).steps
    assert values(step.env) == {"CI": "1", "A": "template", "B": "workflow", "C": "step"}
    assert list(step.env) == ["CI", "A", "B", "C"], "the order of the entries that take effect"


def test_a_later_use_wins_over_an_earlier_one_and_steps_run_in_use_order() -> None:
    """apply.go applies spec.use from the last entry to the first, prepending each template's steps."""
    first = template("first", container_env=[{"name": "X", "value": "first"}])
    second = template("second", container_env=[{"name": "X", "value": "second"}])
    resolved = resolve_workflow(workflow({"name": "first"}, {"name": "second"}), by_name(first, second))
    assert [s.name for s in resolved.steps] == ["first-step", "second-step"]
    assert [s.template for s in resolved.steps] == ["first", "second"]
    assert {s.env["X"].value for s in resolved.steps} == {"second"}


def test_a_secret_reference_in_the_workflow_env_reaches_the_step_as_a_reference() -> None:
    t = template("t", container_env=[{"name": "OPENAI_API_KEY", "value": "placeholder"}])
    ref = {"secretKeyRef": {"name": "judge", "key": "api-key"}}
    [step] = resolve_workflow(workflow({"name": "t"}, env=[{"name": "OPENAI_API_KEY", "valueFrom": ref}]),
                              by_name(t)).steps
    assert step.env["OPENAI_API_KEY"] == EnvValue(value_from=ref)
    assert step.env_value("OPENAI_API_KEY") is None


# --- config ------------------------------------------------------------------------------------------------------

CONFIG = {"given": {"type": "string", "default": "default"}, "defaulted": {"type": "string", "default": "d"},
          "number": {"type": "integer"}, "flag": {"type": "boolean", "default": "off"}}


def test_given_config_wins_defaults_fill_in_and_int_or_string_is_cast() -> None:
    """config.go: given values are registered before defaults (the machine returns the first match); an int
    becomes its decimal string; castParameter casts to the declared type (integer, boolean …)."""
    t = template("t", config=CONFIG, args=["{{ config.given }}", "{{ config.defaulted }}", "{{ config.number }}",
                                           "{{ config.number + 1 }}", "{{ config.flag }}"])
    [step] = resolve_workflow(workflow({"name": "t", "config": {"given": "mine", "number": 41}}), by_name(t)).steps
    assert step.args == ["mine", "d", "41", "42", "false"]


def test_config_values_are_templates_themselves() -> None:
    """config_test.go: ``"some {{ 30 }} value"`` arrives as ``"some 30 value"``; an escaped ``{{`` stays text."""
    t = template("t", config={"a": {"type": "string"}}, args=["{{ config.a }}"])
    [step] = resolve_workflow(workflow({"name": "t", "config": {"a": 'some {{ 30 }} value {{"{{"}} x }}'}}),
                              by_name(t)).steps
    assert step.args == ["some 30 value {{ x }}"]


def test_a_required_parameter_that_is_not_given_fails_as_in_testkube() -> None:
    t = template("t", config={"bucket": {"type": "string"}}, args=["{{ config.bucket }}"])
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t"}), by_name(t))
    assert str(err.value) == ("spec.use[0] (t) spec.steps[0].run.args[0]: config.bucket: unknown variable (a "
                              "required parameter of t that spec.use[0] (t) does not give)")


def test_an_undeclared_key_is_refused_although_testkube_would_ignore_it() -> None:
    t = template("t", config={"url": {"type": "string", "default": ""}})
    with pytest.raises(ResolveError, match=r"^spec.use\[0\] \(t\) config.uri: is not declared by t; Testkube "
                                           "ignores such a key"):
        resolve_workflow(workflow({"name": "t", "config": {"uri": "x"}}), by_name(t))
    [step] = resolve_workflow(workflow({"name": "t", "config": {"uri": "x"}}), by_name(t), strict_config=False).steps
    assert step.args == []


def test_config_values_must_be_int_or_string() -> None:
    t = template("t", config={"a": {"type": "string", "default": ""}})
    with pytest.raises(ResolveError, match="must be a string or an integer"):
        resolve_workflow(workflow({"name": "t", "config": {"a": True}}), by_name(t))


def test_the_upstream_operator_against_upstream_setup_template_fails_like_testkube() -> None:
    """experiment_controller.go@a8e16f1 sends only datasetUrl; upstream's setup-template requires bucket and key:
    even with undeclared keys ignored (as Testkube does), config.bucket stays unresolved."""
    upstream = yaml.safe_load(require_reference(UPSTREAM / "templates" / "setup-template.yaml").read_text())
    wf = workflow({"name": "setup-template", "config": {"datasetUrl": "s3://b/k.json"}})
    with pytest.raises(ResolveError, match=r"config\.bucket: unknown variable"):
        resolve_workflow(wf, by_name(upstream), strict_config=False)


# --- expressions, placeholders, errors -----------------------------------------------------------------------------

def test_execution_values_are_the_stated_placeholders() -> None:
    t = template("t", args=["{{ execution.id }}", "{{ execution.number }}", "{{ workflow.name }}",
                            "{{ execution.name }}", "{{ resource.id }}"])
    [step] = resolve_workflow(workflow({"name": "t"}), by_name(t),
                              execution=ExecutionContext(id="65f0c0ffee0000000000000a", number=42)).steps
    assert step.args == ["65f0c0ffee0000000000000a", "42", "wf", "wf-42", "65f0c0ffee0000000000000a"]


def test_env_expressions_read_the_steps_literal_env_and_refuse_references() -> None:
    t = template("t", args=["{{ env.A }}"], step_env=[{"name": "A", "value": "{{ env.B }}-a"}])
    [step] = resolve_workflow(workflow({"name": "t"}, env=[{"name": "B", "value": "b"}]), by_name(t)).steps
    assert step.args == ["b-a"] and step.env["A"].value == "b-a"
    secret = workflow({"name": "t"}, env=[{"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}])
    with pytest.raises(ResolveError, match=r"env\.B: unknown variable \(set from a reference"):
        resolve_workflow(secret, by_name(t))


@pytest.mark.parametrize(("arg", "message"), [
    ("{{ internal.namespace }}", "internal.namespace: unknown variable (not a variable Testkube provides"),
    ("{{ shellquote(config.x) }}", "function shellquote() is not supported by render --resolve"),
])
def test_unknown_expressions_are_one_line_errors_with_their_location(arg: str, message: str) -> None:
    t = template("t", args=["-m", arg])
    with pytest.raises(ResolveError) as err:
        resolve_workflow(workflow({"name": "t"}), by_name(t))
    assert str(err.value).startswith(f"spec.use[0] (t) spec.steps[0].run.args[1]: {message}")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("change", "message"), [
    ({"shell": "echo hi"}, "spec.use[0] (t) spec.steps[0].shell: is not supported by render --resolve"),
    ({"parallel": {"count": 2}}, "spec.use[0] (t) spec.steps[0].parallel: is not supported"),
])
def test_features_that_cannot_be_shown_exactly_are_refused(change: dict[str, Any], message: str) -> None:
    t = template("t")
    t["spec"]["steps"][0].update(change)
    with pytest.raises(ResolveError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")):
        resolve_workflow(workflow({"name": "t"}), by_name(t))


def test_unknown_templates_and_other_namespaces_are_errors() -> None:
    with pytest.raises(ResolveError, match=r"spec.use\[0\]: template 'nope' not found \(have: t\)"):
        resolve_workflow(workflow({"name": "nope"}), by_name(template("t")))
    with pytest.raises(ResolveError, match="is in namespace 'other'"):
        resolve_workflow(workflow({"name": "t"}), by_name(template("t", namespace="other")))


def test_a_step_without_an_image_is_refused() -> None:
    t = template("t")
    del t["spec"]["steps"][0]["run"]["image"]
    with pytest.raises(ResolveError, match="sets no image"):
        resolve_workflow(workflow({"name": "t"}), by_name(t))


def test_command_args_and_working_dir_follow_the_container_chain() -> None:
    """container.go: Command()/Args() inherit unless the child sets them; an absolute workingDir wins; without
    a command the image's ENTRYPOINT runs (known for the phase image: the Dockerfile's ``uv run python3``)."""
    t = template("t", args=["-m", "x"], workingDir="sub")
    t["spec"]["steps"][0]["workingDir"] = "/base"
    [step] = resolve_workflow(workflow({"name": "t"}, container={"workingDir": "/ignored"}), by_name(t)).steps
    assert (step.working_dir, step.command, step.entrypoint_from_image) == ("/base/sub", [], True)
    phase = template("p", args=["-m", "testbench.run"])
    phase["spec"]["steps"][0]["run"]["image"] = f"{layout.TESTWORKFLOW_IMAGE}@sha256:abc"
    [step] = resolve_workflow(workflow({"name": "p"}), by_name(phase)).steps
    assert step.command == ["uv", "run", "python3"] and step.entrypoint_from_image
    explicit = template("e", command=["python3"], args=["-V"])
    [step] = resolve_workflow(workflow({"name": "e"}), by_name(explicit)).steps
    assert (step.command, step.args, step.entrypoint_from_image) == (["python3"], ["-V"], False)


# --- what render emits --------------------------------------------------------------------------------------------

def _resolve(objects: list[dict[str, Any]]) -> Any:
    result = resolve_objects(objects)
    assert result.failures == []
    [resolved] = result.workflows
    return resolved


def test_the_inline_dataset_is_mounted_with_its_content_where_run_reads_it() -> None:
    objects = render_experiment(experiment(EXAMPLES / "experiments" / "weather-inline.yaml"), Flags())
    run = _resolve(objects).step(layout.RUN_TEMPLATE)
    [mounted] = run.files
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    assert mounted.path == "/data/datasets/experiment.json"
    assert mounted.content == cm["data"]["experiment.json"]
    assert mounted.source == {"configMapKeyRef": {"name": cm["metadata"]["name"], "key": "experiment.json"}}
    assert posixpath.join(run.working_dir, layout.DATASET_RELATIVE) == mounted.path, "run's --input default"


def test_a_missing_configmap_is_an_error_not_an_empty_file() -> None:
    objects = render_experiment(experiment(EXAMPLES / "experiments" / "weather-inline.yaml"), Flags())
    wf = next(o for o in objects if o["kind"] == "TestWorkflow")
    with pytest.raises(ResolveError, match="is not among the given ConfigMaps"):
        resolve_workflow(wf, installed_templates("testkube"), configmaps={})


def test_user_text_with_braces_resolves_to_the_literal_text() -> None:
    exp = experiment(FIXTURES / "inline-fixes.yaml")
    exp["metadata"]["annotations"] = {"testbench.agentic-layer.ai/agent-url": "http://{name}.{namespace}:8000/{{ x }}"}
    resolved = _resolve(render_experiment(exp, Flags()))
    run = resolved.step(layout.RUN_TEMPLATE)
    assert run.args[2] == "http://helper.team:8000/{{ x }}", "escaped by render, literal after Testkube"
    assert run.env["GREETING_TEMPLATE"].value == "Hello {{ user }}"


def test_a_judge_key_from_the_defaults_files_secret_reaches_the_evaluate_step() -> None:
    exp = experiment(FIXTURES / "s3-scheduled.yaml")
    defaults = Defaults(gateway_api_key_secret=("judge-credentials", "api-key"))
    evaluate = _resolve(render_experiment(exp, Flags(), defaults)).step(layout.EVALUATE_TEMPLATE)
    assert evaluate.env["OPENAI_API_KEY"] == EnvValue(value_from={"secretKeyRef": {"name": "judge-credentials",
                                                                                   "key": "api-key"}})
    assert evaluate.env_value("OPENAI_BASE_URL") == "http://ai-gateway.knowledge.svc.cluster.local.:80"


def test_an_experiments_own_key_wins_over_the_defaults_files_secret() -> None:
    exp = experiment(FIXTURES / "s3-scheduled.yaml")
    exp["spec"]["env"].append({"name": "OPENAI_API_KEY", "valueFrom": {"secretKeyRef": {"name": "mine", "key": "k"}}})
    defaults = Defaults(gateway_api_key_secret=("judge-credentials", "api-key"))
    evaluate = _resolve(render_experiment(exp, Flags(), defaults)).step(layout.EVALUATE_TEMPLATE)
    assert evaluate.env["OPENAI_API_KEY"].value_from == {"secretKeyRef": {"name": "mine", "key": "k"}}


# --- the command line ---------------------------------------------------------------------------------------------

STEP_KEYS = ["name", "template", "image", "imagePullPolicy", "command", "entrypointFromImage", "args", "workingDir",
             "env", "files", "artifacts"]


def test_cli_prints_the_resolved_list_as_json_with_the_documented_shape() -> None:
    result = run_cli("render", "--resolve", "-o", "json", "--no-defaults", str(FIXTURES / "s3-scheduled.yaml"))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc) == ["apiVersion", "kind", "placeholders", "items"]
    assert (doc["apiVersion"], doc["kind"]) == ("testbench.agentic-layer.ai/v1alpha1", "ResolvedWorkflowList")
    assert doc["placeholders"]["execution.id"] == "000000000000000000000001"
    assert doc["placeholders"]["execution.number"] == "1"
    [item] = doc["items"]
    assert item["metadata"] == {"name": "rag-nightly-knowledge-workflow", "namespace": "testkube"}
    assert [s["template"] for s in item["steps"]] == [layout.SETUP_TEMPLATE, layout.RUN_TEMPLATE,
                                                     layout.EVALUATE_TEMPLATE, layout.PUBLISH_TEMPLATE,
                                                     layout.VISUALIZE_TEMPLATE]
    for step in item["steps"]:
        assert list(step) == STEP_KEYS
    setup = item["steps"][0]
    assert setup["args"][2:] == ["s3://datasets/rag/experiment.json", "", ""]
    assert setup["env"]["MINIO_ROOT_USER"] == {"valueFrom": {"secretKeyRef": {"name": "minio", "key": "user"}}}
    assert item["steps"][3]["args"] == ["-m", "testbench.publish", "rag-nightly", "000000000000000000000001", "1"]


def test_cli_yaml_is_the_same_document() -> None:
    as_json = run_cli("render", "--resolve", "-o", "json", "--no-defaults", str(FIXTURES / "url-triggered.yaml"))
    as_yaml = run_cli("render", "--resolve", "--no-defaults", str(FIXTURES / "url-triggered.yaml"))
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


def test_cli_resolves_a_rendered_directory_too() -> None:
    result = run_cli("render", "--resolve", "-o", "json", "--no-defaults", str(GOLDEN / "inline-fixes.yaml"))
    assert result.exit_code == 0, result.output
    [item] = json.loads(result.stdout)["items"]
    assert item["steps"][0]["files"][0]["content"].startswith("{\n  \"llm_as_a_judge_model\"")


def test_cli_reports_workflows_that_do_not_resolve_against_a_clusters_own_templates() -> None:
    upstream = require_reference(UPSTREAM / "templates")
    result = run_cli("render", "--resolve", "--templates", str(upstream), "--no-defaults",
                     str(FIXTURES / "s3-scheduled.yaml"), str(FIXTURES / "inline-fixes.yaml"))
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert any(line.endswith("error[render/resolve] TestWorkflow testkube/rag-nightly-knowledge-workflow: "
                             "spec.use[0] (setup-template) config.datasetUrl: is not declared by setup-template; "
                             "Testkube ignores such a key and runs the template's default instead") for line in lines)
    assert lines[-1] == "error: nothing resolved: 1 of 2 TestWorkflows do not resolve"


@pytest.mark.parametrize(("args", "message"), [
    (("--templates", "."), "--templates is used by --resolve"),
    (("--resolve", "--output-dir", "out"), "--resolve prints to stdout"),
])
def test_cli_usage_errors(args: tuple[str, ...], message: str) -> None:
    result = run_cli("render", *args, str(FIXTURES / "s3-scheduled.yaml"))
    assert result.exit_code == 2 and message in result.stderr


def test_cli_templates_path_without_templates_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = run_cli("render", "--resolve", "--templates", str(tmp_path), str(FIXTURES / "s3-scheduled.yaml"))
    assert result.exit_code == 2 and "no TestWorkflowTemplate" in result.stderr


def test_the_printed_document_parses_back_into_the_same_workflows() -> None:
    """``parse_document`` (what run --local and the phase tests read) is the inverse of the printed form."""
    from kubectl_testbench.render.resolve import ExecutionContext, document, parse_document

    for fixture in ("s3-scheduled", "inline-fixes", "url-triggered"):
        result = run_cli("render", "--resolve", "-o", "json", "--no-defaults", str(FIXTURES / f"{fixture}.yaml"))
        doc = json.loads(result.stdout)
        workflows = parse_document(doc)
        assert document(workflows, ExecutionContext()) == doc, fixture
    setup = parse_document(json.loads(run_cli("render", "--resolve", "-o", "json", "--no-defaults",
                                              str(FIXTURES / "s3-scheduled.yaml")).stdout))[0].steps[0]
    assert setup.env["MINIO_ROOT_USER"].value_from == {"secretKeyRef": {"name": "minio", "key": "user"}}
    assert setup.env_value("MINIO_ENDPOINT") == "http://minio.storage:9000"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(kind="List"), "not a testbench.agentic-layer.ai/v1alpha1 ResolvedWorkflowList"),
    (lambda d: d["items"][0]["steps"][0].pop("args"), "items[0].steps[0]: missing 'args'"),
    (lambda d: d["items"][0]["steps"][0].update(args="-m x"), "items[0].steps[0].args: expected list, got str"),
    (lambda d: d["items"][0]["steps"][1]["env"].update(X={"value": 1}), "items[0].steps[1].env.X.value: expected str"),
])
def test_a_document_that_is_not_the_printed_form_is_refused_with_the_field(mutate: Any, message: str) -> None:
    from kubectl_testbench.render.resolve import DocumentError, parse_document

    doc = json.loads(run_cli("render", "--resolve", "-o", "json", "--no-defaults",
                             str(FIXTURES / "s3-scheduled.yaml")).stdout)
    mutate(doc)
    with pytest.raises(DocumentError, match=re.escape(message)):
        parse_document(doc)
