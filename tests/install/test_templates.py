"""The phase TestWorkflowTemplates: Testkube 2.12.2's schema, the render contract, the setup dispatcher."""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from kubectl_testbench import layout
from kubectl_testbench.install.templates import (
    OPENAI_DEFAULT_BASE_URL,
    PHASES,
    SETUP_SCRIPT,
    declared_parameters,
    default_image,
    templates,
)
from kubectl_testbench.validate.schema import SchemaValidator
from tests.conftest import TESTKUBE_CRDS, require_reference

IMAGE = default_image()
EXPRESSION = re.compile(r"\{\{(.*?)\}\}")


def _by_name(image: str = IMAGE, namespace: str = "testkube") -> dict[str, dict[str, Any]]:
    return {t["metadata"]["name"]: t for t in templates(image, namespace)}


def _step(template: dict[str, Any]) -> dict[str, Any]:
    steps = template["spec"]["steps"]
    assert len(steps) == 1
    step: dict[str, Any] = steps[0]
    return step


@pytest.fixture(scope="module")
def template_schema() -> dict[str, Any]:
    path = require_reference(TESTKUBE_CRDS / "testworkflows.testkube.io_testworkflowtemplates.yaml")
    crd = yaml.safe_load(path.read_text())
    versions = {v["name"]: v for v in crd["spec"]["versions"]}
    schema: dict[str, Any] = versions["v1"]["schema"]["openAPIV3Schema"]
    return schema


def test_one_template_per_phase_in_layout_order() -> None:
    assert [t["metadata"]["name"] for t in templates(IMAGE)] == list(layout.PHASE_TEMPLATES)
    assert set(PHASES) == set(layout.PHASE_TEMPLATES)


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_template_validates_against_the_testkube_crd_with_our_validator(name: str,
                                                                         template_schema: dict[str, Any]) -> None:
    validator = SchemaValidator(template_schema, skip_root_fields=("metadata",))
    errors, _ = validator.validate(copy.deepcopy(_by_name()[name]))
    assert [(e.path, e.message) for e in errors] == []


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_template_validates_against_the_testkube_crd_with_jsonschema(name: str,
                                                                      template_schema: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    errors = list(jsonschema.Draft4Validator(template_schema).iter_errors(_by_name()[name]))
    assert [e.message for e in errors] == []


def test_both_validators_reject_a_broken_template(template_schema: dict[str, Any]) -> None:
    """The schema checks above can fail: an unquoted boolean default and an unknown field are caught."""
    jsonschema = pytest.importorskip("jsonschema")
    broken = copy.deepcopy(_by_name()[layout.EVALUATE_TEMPLATE])
    broken["spec"]["config"]["openAiApiKey"]["default"] = False
    broken["spec"]["steps"][0]["run"]["argz"] = ["-m"]
    errors, _ = SchemaValidator(template_schema, skip_root_fields=("metadata",)).validate(copy.deepcopy(broken))
    assert {e.rule for e in errors} == {"schema/type", "schema/unknown-field"}
    assert list(jsonschema.Draft4Validator(template_schema).iter_errors(broken))


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_every_step_runs_the_phase_image_from_the_root_directory(name: str) -> None:
    template = _by_name("registry.example/tb:1", "qa-testkube")[name]
    assert template["apiVersion"] == "testworkflows.testkube.io/v1"
    assert template["kind"] == "TestWorkflowTemplate"
    assert template["metadata"]["namespace"] == "qa-testkube"
    run = _step(template)["run"]
    assert run["image"] == "registry.example/tb:1"
    assert run["workingDir"] == layout.WORKING_DIR == "/"
    assert "command" not in run and "shell" not in run, "the image ENTRYPOINT (uv run python3) must stay"
    if name == layout.SETUP_TEMPLATE:
        assert run["args"][:2] == ["-c", SETUP_SCRIPT]
    else:
        phase = name.removesuffix("-template")
        assert run["args"][:2] == ["-m", f"testbench.{phase}"]


EXPECTED_ARGS = {
    layout.SETUP_TEMPLATE: ["{{ config.datasetUrl }}", "{{ config.bucket }}", "{{ config.key }}"],
    layout.RUN_TEMPLATE: ["{{ config.agentUrl }}", "{{ config.experimentName }}"],
    layout.EVALUATE_TEMPLATE: [],
    layout.PUBLISH_TEMPLATE: ["{{ config.experimentName }}", "{{ execution.id }}", "{{ execution.number }}"],
    layout.VISUALIZE_TEMPLATE: ["{{ config.experimentName }}", "{{ execution.id }}", "{{ execution.number }}"],
}
EXPECTED_PARAMETERS = {
    layout.SETUP_TEMPLATE: {"datasetUrl": True, "bucket": True, "key": True},
    layout.RUN_TEMPLATE: {"agentUrl": False, "experimentName": False},
    layout.EVALUATE_TEMPLATE: {"openAiBasePath": True, "openAiApiKey": True},
    layout.PUBLISH_TEMPLATE: {"experimentName": False},
    layout.VISUALIZE_TEMPLATE: {"experimentName": False},
}
EXPECTED_ARTIFACTS = {
    layout.SETUP_TEMPLATE: [layout.DATASET_PATH],
    layout.RUN_TEMPLATE: [layout.EXECUTED_PATH],
    layout.EVALUATE_TEMPLATE: [layout.EVALUATED_PATH],
    layout.PUBLISH_TEMPLATE: None,
    layout.VISUALIZE_TEMPLATE: [layout.REPORT_PATH],
}


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_positional_arguments_are_the_phase_cli(name: str) -> None:
    args = _step(_by_name()[name])["run"]["args"]
    assert args[2:] == EXPECTED_ARGS[name]


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_declared_parameters_is_the_contract_render_checks_against(name: str) -> None:
    template = _by_name()[name]
    assert declared_parameters(name) == EXPECTED_PARAMETERS[name]
    config = template["spec"].get("config", {})
    assert {k: "default" in v for k, v in config.items()} == EXPECTED_PARAMETERS[name]
    for entry in config.values():
        assert entry["type"] == "string"
        assert isinstance(entry.get("default", ""), str), "config values are int-or-string: quote them"


def test_declared_parameters_refuses_unknown_templates() -> None:
    with pytest.raises(KeyError):
        declared_parameters("teardown-template")


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_every_config_reference_is_declared_and_every_declared_parameter_used(name: str) -> None:
    template = _by_name()[name]
    text = json.dumps({k: v for k, v in template["spec"].items() if k != "config"})
    used = {m.group(1) for m in re.finditer(r"config\.([A-Za-z0-9_]+)", text)}
    assert used == set(declared_parameters(name))


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_artifacts_are_the_layout_paths_on_the_shared_volume(name: str) -> None:
    step = _step(_by_name()[name])
    paths = step.get("artifacts", {}).get("paths")
    assert paths == EXPECTED_ARTIFACTS[name]
    for path in paths or ():
        assert path.startswith(layout.DATA_DIR + "/")


def test_working_directory_and_relative_dataset_path_meet_on_the_shared_volume() -> None:
    """What the images write relative to ``workingDir`` is where artifacts and the inline mount point."""
    resolved = os.path.normpath(os.path.join(layout.WORKING_DIR, layout.DATASET_RELATIVE))
    assert resolved == layout.DATASET_PATH
    assert resolved.startswith(layout.DATA_DIR + "/")


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_templates_never_set_credentials_or_the_otlp_endpoint(name: str) -> None:
    """render passes these in spec.container.env; a template value would override (step) or shadow them."""
    template = _by_name()[name]
    env = {e["name"] for e in _step(template)["run"].get("env", []) + template["spec"].get("container", {})
           .get("env", [])}
    assert not env & {"MINIO_ENDPOINT", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "OTEL_EXPORTER_OTLP_ENDPOINT"}


def _evaluate_env() -> dict[str, str]:
    return {e["name"]: e["value"] for e in _by_name()[layout.EVALUATE_TEMPLATE]["spec"]["container"]["env"]}


def test_evaluate_maps_the_gateway_parameters_to_openai_environment_under_the_workflows_env() -> None:
    """On the template's spec.container (merged *under* the workflow's env), never on the step (which would
    win over it): a workflow-level OPENAI_API_KEY from a Secret must reach the judge."""
    assert "env" not in _step(_by_name()[layout.EVALUATE_TEMPLATE])["run"]
    assert _evaluate_env() == {
        "OPENAI_BASE_URL": '{{ config.openAiBasePath || "' + OPENAI_DEFAULT_BASE_URL + '" }}',
        "OPENAI_API_KEY": "{{ config.openAiApiKey }}",
    }


def _testkube_or(expression: str, config: dict[str, str]) -> str:
    """Evaluate the one expression shape the templates use: ``config.x || "literal"`` (Testkube's ``||``
    returns the first truthy operand, so an empty string falls through)."""
    left, _, right = (part.strip() for part in expression.partition("||"))
    value = config[left.removeprefix("config.")]
    return value or json.loads(right)


@pytest.mark.parametrize(("given", "expected"), [("", OPENAI_DEFAULT_BASE_URL),
                                                 ("http://gw.ai.svc.cluster.local:80", "http://gw.ai.svc.cluster.local:80")])
def test_an_empty_base_path_never_reaches_the_openai_client_as_an_empty_url(given: str, expected: str) -> None:
    match = EXPRESSION.fullmatch(_evaluate_env()["OPENAI_BASE_URL"])
    assert match is not None
    assert _testkube_or(match.group(1), {"openAiBasePath": given}) == expected


@pytest.mark.parametrize("name", layout.PHASE_TEMPLATES)
def test_expressions_are_well_formed_and_reference_only_known_roots(name: str) -> None:
    for text in _strings(_by_name()[name]):
        assert text.count("{{") == text.count("}}"), text
        for match in EXPRESSION.finditer(text):
            roots = set(re.findall(r"\b(config|execution|env|workflow)\.", match.group(1)))
            assert roots <= {"config", "execution"}, match.group(0)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def use_errors(uses: list[dict[str, Any]]) -> list[str]:
    """The render contract's oracle: why a TestWorkflow's ``spec.use`` is wrong for these templates (empty
    when it is right).

    Testkube fails a parameter without a default that is not given (``config.x`` stays unresolved:
    testworkflowresolver/config.go ``configFinalizer``) and values that are not int-or-string (the CRD). It
    *ignores* a ``use[].config`` key the template does not declare (config_test.go registers undeclared keys
    without complaint), so a misspelt key silently falls back to the default: we treat that as an error too.
    """
    problems: list[str] = []
    for i, use in enumerate(uses):
        name = use.get("name")
        phase = PHASES.get(name) if isinstance(name, str) else None
        if phase is None:
            problems.append(f"use[{i}]: unknown template {name!r} (shipped: {', '.join(layout.PHASE_TEMPLATES)})")
            continue
        config = use.get("config") or {}
        declared = declared_parameters(phase.template)
        for key in sorted(set(config) - set(declared)):
            problems.append(f"use[{i}] {name}: config.{key} is not declared by the template")
        for key in sorted(k for k, has_default in declared.items() if not has_default and k not in config):
            problems.append(f"use[{i}] {name}: config.{key} is required")
        for key, value in sorted(config.items()):
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                problems.append(f"use[{i}] {name}: config.{key} must be a string or an integer, "
                                f"got {type(value).__name__}")
    return problems


def test_use_errors_accepts_what_render_should_emit() -> None:
    uses = [
        {"name": layout.SETUP_TEMPLATE, "config": {"datasetUrl": "https://example.com/e.json"}},
        {"name": layout.RUN_TEMPLATE, "config": {"agentUrl": "http://a.ns:8000", "experimentName": "e"}},
        {"name": layout.EVALUATE_TEMPLATE},
        {"name": layout.PUBLISH_TEMPLATE, "config": {"experimentName": "e"}},
        {"name": layout.VISUALIZE_TEMPLATE, "config": {"experimentName": "e"}},
    ]
    assert use_errors(uses) == []


def test_use_errors_rejects_undeclared_keys_missing_parameters_and_wrong_types() -> None:
    problems = use_errors([
        {"name": layout.SETUP_TEMPLATE, "config": {"url": "https://example.com/e.json"}},
        {"name": layout.RUN_TEMPLATE, "config": {"agentUrl": "http://a:8000"}},
        {"name": layout.EVALUATE_TEMPLATE, "config": {"openAiBasePath": True}},
        {"name": "teardown-template"},
    ])
    assert problems == [
        "use[0] setup-template: config.url is not declared by the template",
        "use[1] run-template: config.experimentName is required",
        "use[2] evaluate-template: config.openAiBasePath must be a string or an integer, got bool",
        "use[3]: unknown template 'teardown-template' (shipped: setup-template, run-template, "
        "evaluate-template, publish-template, visualize-template)",
    ]


def test_the_upstream_operators_setup_config_is_accepted_now() -> None:
    """experiment_controller.go@a8e16f1 sends only datasetUrl; upstream's template required bucket and key."""
    assert use_errors([{"name": layout.SETUP_TEMPLATE, "config": {"datasetUrl": "s3://b/k.json"}}]) == []
