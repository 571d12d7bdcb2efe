"""``render --resolve`` judged by Testkube's own code, step by step.

``scripts/testkube-resolve`` builds our small Go program (tests/render/testkube_resolve/main.go) against
kubeshop/testkube 2.12.2 (testworkflowresolver.ApplyTemplates/ApplyWorkflowConfig, the expressions machines of
testworkflowconfig, testworkflowprocessor's operations and stage containers) and prints the same
ResolvedWorkflowList. Both run over every workflow rendered from examples/ and the render fixtures, with the
templates of both install modes, and over generated edge cases; every step must agree field by field.

The Go module proxy refuses github.com/kubeshop/testkube (403 for every version), so without a go.work naming
a local Testkube tree (``GOWORK``) the build fails and these tests skip with that reason. The behaviour found
by running them is pinned without Go in the regular resolve tests (test_resolve*.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, USER_CACHE_HOME, run_cli
from tests.render.test_render import FIXTURES

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "testkube-resolve"
IMAGE = "registry.example/phase:1"


def _env() -> dict[str, str]:
    # the user's cache (the tests point XDG_CACHE_HOME at a private dir): the build is kept between sessions
    return {**os.environ, "XDG_CACHE_HOME": str(USER_CACHE_HOME),
            "PATH": os.environ.get("PATH", "") + os.pathsep + "/usr/local/go/bin"}


@cache
def _binary() -> Path | str:
    proc = subprocess.run([str(SCRIPT), "--build"], env=_env(), capture_output=True, text=True, timeout=3600,
                          check=False)
    if proc.returncode != 0:
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
    return Path(proc.stdout.strip())


def binary() -> Path:
    found = _binary()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def run_testkube(tmp_path: Path, objects: list[dict[str, Any]], templates: Path) -> dict[str, Any]:
    """What Testkube's code makes of ``objects`` (TestWorkflows and ConfigMaps) with ``templates``."""
    path = tmp_path / "input.yaml"
    path.write_text(yaml.safe_dump_all(objects, allow_unicode=True))
    proc = subprocess.run([str(binary()), str(path), str(templates)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def ours(tmp_path: Path, objects: list[dict[str, Any]], templates: Path) -> tuple[int, dict[str, Any] | str]:
    path = tmp_path / "ours.yaml"
    path.write_text(yaml.safe_dump_all(objects, allow_unicode=True))
    result = run_cli("render", str(path), "--resolve", "-o", "json", "--templates", str(templates))
    return result.exit_code, (json.loads(result.stdout) if result.exit_code == 0 else result.output)


def ours_library(objects: list[dict[str, Any]], templates: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """Hand-written TestWorkflows (``render`` reads only what it rendered): the same resolve and printed form,
    through the library ``render --resolve`` calls."""
    from kubectl_testbench.render.resolve import ExecutionContext, document, resolve_objects
    from kubectl_testbench.render.resolve.sources import templates_in

    execution = ExecutionContext()
    result = resolve_objects(objects, templates_in(templates), execution)
    return document(result.workflows, execution), [f"{w['metadata']['name']}: {e}" for w, e in result.failures]


def differences(theirs: dict[str, Any], mine: dict[str, Any]) -> list[str]:
    """Every field of every step that differs (env compared in order; the image's ENTRYPOINT, which only
    Testkube's image inspector knows, is left out when the step sets no command)."""
    found: list[str] = []
    tk = {(w["metadata"]["namespace"], w["metadata"]["name"]): w for w in theirs["items"]}
    for item in mine["items"]:
        key = (item["metadata"]["namespace"], item["metadata"]["name"])
        if key not in tk:
            found.append(f"{key}: Testkube fails: {theirs.get('errors')}")
            continue
        steps, tsteps = item["steps"], tk[key]["steps"]
        if len(steps) != len(tsteps):
            found.append(f"{key}: {len(tsteps)} steps in Testkube, {len(steps)} here")
        for step, tstep in zip(steps, tsteps, strict=False):
            for field in tstep:
                if field == "command" and tstep["entrypointFromImage"]:
                    continue
                a, b = tstep[field], step.get(field)
                if field == "env":
                    a, b = list(a.items()), list((b or {}).items())
                if a != b:
                    found.append(f"{key} step {step['name']} {field}: Testkube {a!r}, ours {b!r}")
    return found


def rendered(path: Path) -> list[dict[str, Any]]:
    result = run_cli("render", str(path))
    assert result.exit_code == 0, result.output
    return [o for o in yaml.safe_load_all(result.stdout) if o]


@cache
def install(mode: str) -> str:
    result = run_cli("install", "--mode", mode)
    assert result.exit_code == 0, result.output
    return str(result.stdout)


CORPORA = [EXAMPLES / "experiments", *sorted(FIXTURES.glob("*.yaml"))]


@pytest.mark.parametrize("mode", ["gitops", "operator"])
@pytest.mark.parametrize("corpus", CORPORA, ids=lambda p: p.name)
def test_rendered_workflows_resolve_as_testkube_does(tmp_path: Path, corpus: Path, mode: str) -> None:
    binary()
    templates = tmp_path / "templates.yaml"
    templates.write_text(install(mode))
    objects = rendered(corpus)
    code, mine = ours(tmp_path, objects, templates)
    assert code == 0, mine
    assert isinstance(mine, dict)
    theirs = run_testkube(tmp_path, objects, templates)
    assert len(mine["items"]) == sum(o["kind"] == "TestWorkflow" for o in objects) > 0
    assert differences(theirs, mine) == []


def _template(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflowTemplate",
            "metadata": {"name": name, "namespace": "testkube"}, "spec": spec}


def _workflow(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflow",
            "metadata": {"name": name, "namespace": "testkube", "labels": {"team": "qa"}}, "spec": spec}


def _run(*args: str, **extra: Any) -> dict[str, Any]:
    return {"image": IMAGE, "args": list(args), **extra}


EDGE_TEMPLATES = [
    _template("typed", {
        "config": {"count": {"type": "integer", "default": "3"}, "ratio": {"type": "number", "default": "0.5"},
                   "flag": {"type": "boolean", "default": "off"}, "word": {"type": "string", "default": 7},
                   "needed": {"type": "string"}},
        "container": {"env": [{"name": "FROM_TEMPLATE", "value": "t-{{ config.word }}"},
                              {"name": "SHARED", "value": "template"}]},
        "steps": [{"name": "typed-step", "run": _run("{{ config.count + 1 }}", "{{ config.ratio * 2 }}",
                                                      "{{ config.flag }}", "{{ config.needed }}",
                                                      "{{ config.flag || 'no' }}")}]}),
    _template("plain", {"steps": [{"name": "plain-step", "run": _run("x")}],
                        "after": [{"name": "plain-after", "run": _run("after")}]}),
]

EDGE_WORKFLOWS = [
    _workflow("int-or-string", {"use": [{"name": "typed", "config": {"count": 41, "needed": "nn", "flag": "true"}}]}),
    _workflow("string-count", {"use": [{"name": "typed", "config": {"count": "{{ 2 * 5 }}", "needed": 12}}]}),
    _workflow("braces", {"container": {"env": [{"name": "BRACES", "value": '{{"{{"}} not an expression }}'},
                                                {"name": "REF", "value": "<{{ env.BRACES }}>"}]},
                         "steps": [{"name": "b", "run": _run('{{"{{"}}x}}', "a {{ 'b' }} c")}]}),
    _workflow("x" * 63, {"steps": [{"name": "long", "run": _run("{{ workflow.name }}", "{{ execution.name }}",
                                                                 "{{ resource.id }}", "{{ execution.number }}")}]}),
    _workflow("value-from", {"container": {"env": [
        {"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "C", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}},
        {"name": "F", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "R", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}]},
        "steps": [{"name": "v", "run": _run("v", env=[{"name": "S", "value": "overridden"}])}]}),
    _workflow("non-ascii", {"container": {"env": [{"name": "GREETING", "value": "héllo ✓ 日本"}]},
                            "steps": [{"name": "ü", "run": _run("{{ env.GREETING }}", "naïve")}]}),
    _workflow("env-order", {"use": [{"name": "typed", "config": {"needed": "x"}}, {"name": "plain"}],
                            "container": {"env": [{"name": "SHARED", "value": "workflow"},
                                                  {"name": "CI", "value": "0"}], "workingDir": "work"},
                            "steps": [{"name": "own", "workingDir": "sub",
                                       "container": {"env": [{"name": "SHARED", "value": "step"}]},
                                       "run": _run("own", env=[{"name": "LAST", "value": "{{ env.SHARED }}"}])}]}),
    _workflow("files", {"content": {"files": [{"path": "/data/a.txt", "content": "id {{ execution.id }} {{\"{{\"}}"},
                                              {"path": "rel.txt", "contentFrom": {"configMapKeyRef": {
                                                  "name": "cm", "key": "k"}}},
                                              {"path": "/s", "contentFrom": {
                                                  "secretKeyRef": {"name": "s", "key": "k"}}}]},
                        "steps": [{"name": "f", "run": _run("f")}]}),
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "testkube"},
     "data": {"k": "content {{ not evaluated }}"}},
]


def test_edge_cases_resolve_as_testkube_does(tmp_path: Path) -> None:
    binary()
    templates = tmp_path / "templates.yaml"
    templates.write_text(yaml.safe_dump_all(EDGE_TEMPLATES, allow_unicode=True))
    theirs = run_testkube(tmp_path, EDGE_WORKFLOWS, templates)
    assert theirs.get("errors") is None
    mine, failures = ours_library(EDGE_WORKFLOWS, EDGE_TEMPLATES)
    assert failures == []
    assert len(mine["items"]) == len(theirs["items"]) == 8
    assert differences(theirs, mine) == []


def test_a_parameter_without_value_or_default_fails_in_both(tmp_path: Path) -> None:
    binary()
    templates = tmp_path / "templates.yaml"
    templates.write_text(yaml.safe_dump_all(EDGE_TEMPLATES))
    missing = [_workflow("missing", {"use": [{"name": "typed"}]})]
    theirs = run_testkube(tmp_path, missing, templates)
    assert theirs["items"] == [] and "config.needed" in theirs["errors"][0]["error"]
    mine, failures = ours_library(missing, EDGE_TEMPLATES)
    assert mine["items"] == [] and "config.needed" in failures[0]
