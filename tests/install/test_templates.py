"""The phase TestWorkflowTemplates: Testkube 2.12.2's schema, the render contract, the fetch script."""

from __future__ import annotations

import copy
import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from kubectl_testbench import layout
from kubectl_testbench.install.templates import (
    FETCH_SCRIPT,
    OPENAI_DEFAULT_BASE_URL,
    PHASES,
    declared_parameters,
    default_image,
    templates,
)
from kubectl_testbench.validate.schema import SchemaValidator
from tests.conftest import TESTKUBE_CRDS, UPSTREAM, require_reference

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
    if name == layout.FETCH_TEMPLATE:
        assert run["args"][0] == "-c"
    else:
        phase = name.removesuffix("-template")
        assert run["args"][:2] == ["-m", f"testbench.{phase}"]


EXPECTED_ARGS = {
    layout.SETUP_TEMPLATE: ["{{ config.bucket }}", "{{ config.key }}"],
    layout.FETCH_TEMPLATE: ["{{ config.url }}"],
    layout.RUN_TEMPLATE: ["{{ config.agentUrl }}", "{{ config.experimentName }}"],
    layout.EVALUATE_TEMPLATE: [],
    layout.PUBLISH_TEMPLATE: ["{{ config.experimentName }}", "{{ execution.id }}", "{{ execution.number }}"],
    layout.VISUALIZE_TEMPLATE: ["{{ config.experimentName }}", "{{ execution.id }}", "{{ execution.number }}"],
}
EXPECTED_PARAMETERS = {
    layout.SETUP_TEMPLATE: {"bucket": False, "key": False},
    layout.FETCH_TEMPLATE: {"url": False},
    layout.RUN_TEMPLATE: {"agentUrl": False, "experimentName": False},
    layout.EVALUATE_TEMPLATE: {"openAiBasePath": True, "openAiApiKey": True},
    layout.PUBLISH_TEMPLATE: {"experimentName": False},
    layout.VISUALIZE_TEMPLATE: {"experimentName": False},
}
EXPECTED_ARTIFACTS = {
    layout.SETUP_TEMPLATE: [layout.DATASET_PATH],
    layout.FETCH_TEMPLATE: [layout.DATASET_PATH],
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
    text = json.dumps(template["spec"]["steps"])
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
    """render passes these in spec.container.env; a template value would override them."""
    env = {e["name"] for e in _step(_by_name()[name])["run"].get("env", [])}
    assert not env & {"MINIO_ENDPOINT", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "OTEL_EXPORTER_OTLP_ENDPOINT"}


def test_evaluate_maps_the_gateway_parameters_to_openai_environment() -> None:
    env = {e["name"]: e["value"] for e in _step(_by_name()[layout.EVALUATE_TEMPLATE])["run"]["env"]}
    assert env == {
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
    env = {e["name"]: e["value"] for e in _step(_by_name()[layout.EVALUATE_TEMPLATE])["run"]["env"]}
    match = EXPRESSION.fullmatch(env["OPENAI_BASE_URL"])
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


def test_the_fetch_script_contains_no_testkube_expression_and_compiles() -> None:
    assert "{{" not in FETCH_SCRIPT and "}}" not in FETCH_SCRIPT and "${" not in FETCH_SCRIPT
    compile(FETCH_SCRIPT, "<fetch-template>", "exec")
    assert f'"{layout.DATASET_RELATIVE}"' in FETCH_SCRIPT


def test_templates_keep_the_upstream_parameter_names_and_step_names() -> None:
    """Parity: the five upstream templates declare the same parameters (we add descriptions and fetch)."""
    upstream_dir = require_reference(UPSTREAM / "templates")
    ours = _by_name()
    for path in sorted(upstream_dir.glob("*-template.yaml")):
        theirs = yaml.safe_load(path.read_text())
        name = theirs["metadata"]["name"]
        ours_config = ours[name]["spec"].get("config", {})
        assert {k: "default" in v for k, v in theirs["spec"].get("config", {}).items()} == \
            {k: "default" in v for k, v in ours_config.items()}, name
        assert [s["name"] for s in theirs["spec"]["steps"]] == [s["name"] for s in ours[name]["spec"]["steps"]]
        assert theirs["spec"]["steps"][0]["run"]["args"] == _step(ours[name])["run"]["args"], name


# --- the fetch script, run for real against a local HTTP server -------------------------------------------------

class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_GET(self) -> None:
        status, body = self.routes.get(self.path.split("?")[0], (404, b"not found"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    experiment = {"llm_as_a_judge_model": "m", "scenarios": [{"name": "s", "steps": [{"input": "hi"}]}]}
    _Handler.routes = {
        "/experiment.json": (200, json.dumps(experiment).encode()),
        "/broken.json": (200, b"{not json"),
        "/list.json": (200, b"[1, 2]"),
        "/private.json": (403, b"forbidden"),
    }
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _fetch(url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run([sys.executable, "-c", FETCH_SCRIPT, url], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_fetch_writes_the_dataset_where_the_run_phase_reads_it(server: str, tmp_path: Path) -> None:
    proc = _fetch(f"{server}/experiment.json?X-Amz-Signature=secret", tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = tmp_path / layout.DATASET_RELATIVE
    assert json.loads(written.read_text())["scenarios"][0]["name"] == "s"
    assert "secret" not in proc.stdout + proc.stderr, "query strings (presigned credentials) must not be logged"
    assert sorted(p.name for p in written.parent.iterdir()) == ["experiment.json"]


@pytest.mark.parametrize(("path", "message"), [
    ("/private.json", "HTTP 403"),
    ("/missing.json", "HTTP 404"),
    ("/broken.json", "is not JSON"),
    ("/list.json", "not an Experiment"),
])
def test_fetch_fails_with_one_clear_line(server: str, tmp_path: Path, path: str, message: str) -> None:
    proc = _fetch(f"{server}{path}", tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("fetch-template: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / layout.DATASET_RELATIVE).exists()


def test_fetch_refuses_non_http_urls(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"scenarios": []}')
    proc = _fetch(secret.as_uri(), tmp_path)
    assert proc.returncode == 1 and "must start with http:// or https://" in proc.stderr


def test_fetch_reports_an_unreachable_host(tmp_path: Path) -> None:
    proc = _fetch("http://127.0.0.1:9/experiment.json", tmp_path)
    assert proc.returncode == 1 and "failed" in proc.stderr and "Traceback" not in proc.stderr


def test_use_errors_accepts_what_render_should_emit() -> None:
    from kubectl_testbench.install.templates import use_errors

    uses = [
        {"name": layout.FETCH_TEMPLATE, "config": {"url": "https://example.com/e.json"}},
        {"name": layout.RUN_TEMPLATE, "config": {"agentUrl": "http://a.ns:8000", "experimentName": "e"}},
        {"name": layout.EVALUATE_TEMPLATE},
        {"name": layout.PUBLISH_TEMPLATE, "config": {"experimentName": "e"}},
        {"name": layout.VISUALIZE_TEMPLATE, "config": {"experimentName": "e"}},
    ]
    assert use_errors(uses) == []


def test_use_errors_rejects_the_upstream_url_mode_and_other_mismatches() -> None:
    from kubectl_testbench.install.templates import use_errors

    problems = use_errors([
        {"name": layout.SETUP_TEMPLATE, "config": {"datasetUrl": "https://example.com/e.json"}},
        {"name": layout.EVALUATE_TEMPLATE, "config": {"openAiBasePath": True}},
        {"name": "teardown-template"},
    ])
    assert problems == [
        "use[0] setup-template: config.datasetUrl is not declared by the template",
        "use[0] setup-template: config.bucket is required",
        "use[0] setup-template: config.key is required",
        "use[1] evaluate-template: config.openAiBasePath must be a string or an integer, got bool",
        "use[2]: unknown template 'teardown-template' (shipped: setup-template, fetch-template, run-template, "
        "evaluate-template, publish-template, visualize-template)",
    ]
