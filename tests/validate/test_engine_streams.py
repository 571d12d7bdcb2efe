"""JSON streams and many files: where findings and fixes land, and when the process pool is used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.pipeline import inputs
from kubectl_testbench.pipeline.inputs import iter_sources, validate_paths
from kubectl_testbench.validate.engine import Options, validate_text
from tests.validate.helpers import VALID, keep


def test_a_json_stream_places_findings_and_fixes_in_the_written_text() -> None:
    doc = yaml.safe_load(VALID)
    doc["spec"]["agentRf"] = doc["spec"].pop("agentRef")
    first = json.dumps(doc)
    text = first + "\n" + json.dumps(yaml.safe_load(VALID))
    result = validate_text(text, "f.json", Options(), keep=keep(experiments=True))
    assert result.counts.summary() == "1 file, 2 experiments: 1 valid, 1 invalid, 0 warnings"
    assert [(e.index, e.line) for e in result.experiments] == [(1, 2)]
    renamed = [d for d in result.diagnostics if d.rule == "schema/unknown-field"]
    at = first.index('"agentRf"')
    assert [(d.line, d.col, d.path) for d in renamed] == [(1, at + 1, "spec.agentRf")]
    fix = renamed[0].fix
    assert fix is not None and [(e.start, e.end, e.text) for e in fix.edits] == [(at, at + 9, '"agentRef"')]


def test_a_valid_json_stream_is_read_once() -> None:
    text = json.dumps(yaml.safe_load(VALID)) + "\n" + json.dumps({"apiVersion": "v1", "kind": "ConfigMap"})
    result = validate_text(text, "f.json", Options())
    assert result.diagnostics == []
    assert result.counts.summary() == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings (1 other document skipped)"


def test_broken_json_is_a_syntax_error_at_its_place() -> None:
    result = validate_text('{"a": ', "f.json", Options())
    assert [(d.rule, d.line, d.col, d.message) for d in result.diagnostics] == [
        ("yaml/syntax", 1, 7, "unexpected end of JSON input")]
    assert result.counts.malformed == 1


def write(tmp: Path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        path = tmp / f"e{i:03}.yaml"
        path.write_text(VALID.replace("weather-eval", f"e{i}"))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize(("files", "jobs", "pooled"), [
    (inputs.PARALLEL_MIN_FILES - 1, 2, False), (inputs.PARALLEL_MIN_FILES, 2, True),
    (inputs.PARALLEL_MIN_FILES, 1, False),
])
def test_the_pool_is_used_from_two_hundred_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int,
                                                 jobs: int, pooled: bool) -> None:
    """Starting workers costs more than it saves on a few files; a single job never forks."""
    from kubectl_testbench.pipeline import pool as parallel

    calls: list[int] = []

    def in_process(fn: Any, items: Any, options: Any, workers: int) -> Any:
        calls.append(workers)
        return (fn(item, options) for item in items)

    monkeypatch.setattr(parallel, "ordered_map", in_process)
    assert inputs.PARALLEL_MIN_FILES == 200
    results = list(validate_paths(write(tmp_path, files), Options(), jobs=jobs))
    assert [Path(r.path).name for r in results] == [f"e{i:03}.yaml" for i in range(files)]
    assert all(r.counts.valid == 1 for r in results)
    assert calls == ([jobs] if pooled else [])


def test_missing_inputs_are_results_too(tmp_path: Path) -> None:
    results = list(validate_paths([str(tmp_path / "absent.yaml")], Options(), jobs=1))
    assert [(r.diagnostics[0].rule, r.counts.unreadable, r.counts.errors) for r in results] == [
        ("input/not-found", 1, 1)]


def test_only_testbench_files_leaves_other_files_unread(tmp_path: Path) -> None:
    ours, other = tmp_path / "a.yaml", tmp_path / "b.yaml"
    ours.write_text(VALID)
    other.write_text("key: [unclosed\n")
    names = [Path(s.path).name for s in iter_sources([str(tmp_path)], only_testbench_files=True)]
    assert names == ["a.yaml"]
    assert sorted(Path(s.path).name for s in iter_sources([str(tmp_path)])) == ["a.yaml", "b.yaml"]


RENDERED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: weather-eval-dataset
  namespace: agents
  labels:
    app.kubernetes.io/managed-by: kubectl-testbench
data: {}
"""


def test_rendered_manifests_are_kept_for_apply_with_their_place() -> None:
    from kubectl_testbench.validate.engine import ExperimentDoc

    text = VALID + "---\n" + RENDERED
    result = validate_text(text, "out.yaml", Options(), keep=keep(manifests=True))
    assert result.diagnostics == []
    line = VALID.count("\n") + 2
    assert result.manifests == [ExperimentDoc("out.yaml", 1, line, yaml.safe_load(RENDERED))]
    assert validate_text(text, "out.yaml", Options()).manifests == []
    unlabelled = RENDERED.replace("kubectl-testbench", "helm")
    assert validate_text(unlabelled, "out.yaml", Options(), keep=keep(manifests=True)).manifests == []


def test_a_rendered_manifest_without_namespace_cannot_be_applied() -> None:
    text = "---\n" + RENDERED.replace("  namespace: agents\n", "")
    result = validate_text(text, "out.yaml", Options(), keep=keep(manifests=True))
    assert [(d.rule, d.severity.value, d.file, d.line, d.col, d.path, d.message, d.hint)
            for d in result.diagnostics] == [
        ("render/manifest", "error", "out.yaml", 4, 1, "metadata",
         "ConfigMap labelled app.kubernetes.io/managed-by=kubectl-testbench has no metadata.namespace: it was not "
         "written by kubectl testbench render, or was edited since", "render the directory again")]
    assert result.manifests == []


def test_json_streams_count_and_place_every_document() -> None:
    rendered = yaml.safe_load(RENDERED)
    text = json.dumps(yaml.safe_load(VALID)) + "\n" + json.dumps(rendered) + "\n"
    result = validate_text(text, "f.json", Options(), keep=keep(experiments=True, manifests=True))
    assert [(e.file, e.index, e.line) for e in result.experiments] == [("f.json", 0, 1)]
    assert [(e.file, e.index, e.line, e.data) for e in result.manifests] == [("f.json", 1, 2, rendered)]
    assert result.counts.summary() == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings (1 other document skipped)"
    doc = yaml.safe_load(VALID)
    doc["spec"]["agentRf"] = doc["spec"].pop("agentRef")
    slow = validate_text(json.dumps(rendered) + "\n" + json.dumps(doc) + "\n", "f.json", Options(),
                         keep=keep(manifests=True))
    assert [(d.file, d.line) for d in slow.diagnostics if d.rule == "schema/unknown-field"] == [("f.json", 2)]
    assert [(e.index, e.line) for e in slow.manifests] == [(0, 1)]
    assert slow.counts.summary() == "1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings (1 other document skipped)"
    broken = validate_text(json.dumps(rendered) + '\n{"a": ', "f.json", Options())
    assert [(d.rule, d.file, d.line) for d in broken.diagnostics] == [("yaml/syntax", "f.json", 2)]
    assert validate_text("[]", "f.json", Options()).diagnostics[0].rule == "yaml/not-an-object"


def test_run_cel_reports_failures_errors_and_refused_rules() -> None:
    from kubectl_testbench.validate.engine import run_cel
    from kubectl_testbench.validate.schema import CelTarget

    found: list[tuple[Any, ...]] = []

    def add(rule: str, path: Any, message: str, hint: str = "", key: bool = False, fix: Any = None) -> None:
        found.append((rule, path, message, hint))

    obj = {"type": "object", "properties": {"n": {"type": "integer"}}, "x-kubernetes-validations": [
        {"rule": "self.n > 1", "message": "n must be over 1"}, {"rule": "1 / self.n > 0"}]}
    number = {"type": "integer", "x-kubernetes-validations": [
        {"rule": "self > 0", "reason": "FieldValueForbidden", "message": "positive"}]}
    run_cel([CelTarget(("spec",), {"n": 0}, obj), CelTarget(("spec", "k"), -1, number)], add, refused={})
    assert found == [
        ("cel/rule", ("spec",), 'Invalid value: n must be over 1', ""),
        ("cel/error", ("spec",),
         'Invalid value: "object": division by zero evaluating rule: 1 / self.n > 0', ""),
        ("cel/rule", ("spec", "k"), "Forbidden: positive", "")]

    class Refusal:
        path = "spec.x"
        message = "too costly"

    found.clear()
    run_cel([CelTarget(("spec",), {"n": 0}, obj)], add, refused={(("spec",), 1): Refusal()})
    assert found == [
        ("cel/rule", ("spec",), 'Invalid value: n must be over 1', ""),
        ("cel/cost", ("spec",), "the API server refuses this CRD: spec.x: too costly",
         "the rule was not evaluated; bound the lists and strings it iterates over")]
