"""What validate says, verbatim, about files and objects before the schema: separators, empty input, kinds,
API groups and versions, status, the findings cap, and the counts behind the summary line."""

from __future__ import annotations

import dataclasses
from typing import Any

from kubectl_testbench.load.limits import DEFAULT_LIMITS
from kubectl_testbench.validate.diagnostics import FixKind
from kubectl_testbench.validate.engine import FileResult, Options, template_notice, validate_text
from tests.validate.helpers import VALID, keep

API = "testbench.agentic-layer.ai/v1alpha1"
OBJ = "Experiment agents/weather-eval"


def run(text: str, keep_experiments: bool = False, keep_manifests: bool = False, **options: Any) -> FileResult:
    return validate_text(text, "f.yaml", Options(**options), keep=keep(keep_experiments, keep_manifests))


def rows(result: FileResult) -> list[tuple[Any, ...]]:
    return [(d.rule, d.severity.value, d.line, d.col, d.path, d.message, d.hint, d.object) for d in result.diagnostics]


def test_content_after_a_separator() -> None:
    result = run("--- {kind: X}\n")
    assert rows(result) == [("yaml/document-separator", "error", 1, 4, "",
                             "invalid document separator: only a comment may follow '---' on its line",
                             "put the document content on the next line", "")]
    fix = result.diagnostics[0].fix
    assert fix is not None and (fix.kind, fix.title) == (FixKind.SPLIT_SEPARATOR,
                                                         "move the content after '---' to the next line")
    assert [(e.start, e.end, e.text) for e in fix.edits] == [(3, 4, "\n")]
    assert (result.counts.malformed, result.counts.errors, result.fatal) == (1, 1, True)


def test_content_after_document_end_is_dropped_by_kubectl() -> None:
    result = run("a: 1\n...\nb: 2\n")
    assert rows(result) == [("yaml/after-document-end", "warning", 3, 1, "", "kubectl ignores everything after "
                             "'...' up to the next '---' line: this content is dropped",
                             "start the next document with a '---' line", "")]
    assert result.counts.summary() == "1 file, 0 experiments: 0 valid, 0 invalid, 1 warning (1 other document skipped)"


def test_a_file_without_documents() -> None:
    for text in ("", "# only a comment\n", "---\n---\n"):
        result = run(text)
        assert rows(result) == [("input/empty", "error", 0, 0, "", "no YAML documents in the input", "", "")]
        assert result.counts.malformed == 1
    scanned = validate_text("", "f.yaml", Options(), scanned=True)
    assert scanned.diagnostics == [] and scanned.counts.malformed == 0


def test_tabs_get_a_reindent_fix() -> None:
    result = run("a:\n\tb: 1\n")
    assert [(d.rule, d.hint) for d in result.diagnostics] == [
        ("yaml/syntax", "YAML does not allow tabs for indentation: use spaces")]
    fix = result.diagnostics[0].fix
    assert fix is not None and (fix.kind, fix.title) == (FixKind.REINDENT, "indent with spaces instead of tabs")


def test_template_notice() -> None:
    result = template_notice("chart.yaml")
    assert rows(result) == [("input/template", "info", 0, 0, "", "a Go/Helm template, not YAML: skipped",
                             "validate what it renders: helm template . | kubectl testbench validate -", "")]
    assert result.counts.files == 1 and not result.fatal


def test_objects_without_a_kind() -> None:
    message = "the object has no kind: kubectl rejects it (Object 'Kind' is missing)"
    assert rows(run("apiVersion: v1\nmetadata: {}\n")) == [
        ("kind/missing", "error", 1, 1, "kind", message, "add the object's kind", "")]
    result = run(f"metadata: {{}}\napiVersion: {API}\n")
    assert rows(result) == [("kind/missing", "error", 1, 1, "kind", message, "add kind: Experiment", "")]  # the object
    assert result.counts.summary() == "1 file, 0 experiments: 0 valid, 1 invalid, 0 warnings"
    other = run("foo: 1\n")
    assert other.diagnostics == [] and other.counts.summary() == (
        "1 file, 0 experiments: 0 valid, 0 invalid, 0 warnings (1 other document skipped)")


def test_experiment_without_a_group() -> None:
    result = run(VALID.replace(f"apiVersion: {API}", "apiVersion: v1alpha1"))
    assert rows(result) == [("kind/api-version", "error", 2, 7, "apiVersion",
                             "Experiment without an API group: kubectl rejects it (no matches for kind)",
                             f"use apiVersion: {API}", OBJ)]
    assert result.counts.summary() == "1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings"


def test_experiment_with_a_near_miss_group() -> None:
    result = run(VALID.replace(f"apiVersion: {API}", "apiVersion: testbench.agentic-layer.io/v1alpha1"))
    assert rows(result) == [("kind/group", "error", 1, 13, "apiVersion",
                             'no API group "testbench.agentic-layer.io" serves Experiments: kubectl rejects it '
                             "(no matches for kind)",
                             f'did you mean "testbench.agentic-layer.ai"? use apiVersion: {API}', OBJ)]
    assert result.counts.summary() == "1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings"


def test_unknown_kind_in_our_group() -> None:
    result = run(VALID.replace("kind: Experiment", "kind: Experimnt"))
    assert rows(result) == [("kind/api-version", "error", 2, 7, "kind", f'no kind "Experimnt" in {API}',
                             'the kind is "Experiment"', "")]
    assert result.counts.summary() == "1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings"


def test_unserved_version() -> None:
    result = run(VALID.replace("v1alpha1", "v1beta1"))
    assert rows(result) == [("kind/api-version", "error", 1, 13, "apiVersion",
                             'Experiment is not served in version "testbench.agentic-layer.ai/v1beta1"',
                             f"use apiVersion: {API}", OBJ)]


def test_other_kinds_are_skipped_and_kept_only_when_rendered() -> None:
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    result = run(config_map, keep_manifests=True)
    assert result.diagnostics == [] and result.manifests == [] and result.counts.skipped == 1


def test_status_is_reported_once_with_its_unknown_fields() -> None:
    result = run(VALID + "status:\n  phase: x\n")
    assert rows(result) == [
        ("semantic/status-ignored", "warning", 24, 1, "status",
         "status is discarded by the API server on create; the operator or the cluster sets it",
         "remove the status section from the file", OBJ),
        ("schema/unknown-field", "error", 25, 3, "status.phase", 'unknown field "status.phase"', "", OBJ)]
    fix = result.diagnostics[0].fix
    assert fix is not None and (fix.kind, fix.title) == (FixKind.DELETE, "remove status")
    assert result.diagnostics[1].fix is None, "removing status fixes them all"


def test_duplicate_key_hint() -> None:
    result = run(VALID.replace("    name: weather-agent\n", "    name: weather-agent\n    name: x\n", 1))
    assert rows(result) == [("yaml/duplicate-key", "error", 9, 5, "spec.agentRef.name",
                             'duplicate key "name" (first at line 8, column 5): the later value wins',
                             "remove one of the two entries", OBJ)]


def test_the_findings_cap_counts_what_it_hides() -> None:
    bad = VALID.replace("  agentRef:\n", "  x1: 1\n  x2: 2\n  x3: 3\n  agentRef:\n")
    capped = run(bad, limits=dataclasses.replace(DEFAULT_LIMITS, max_findings=2))
    assert [(d.rule, d.line, d.message) for d in capped.diagnostics] == [
        ("validate/too-many-findings", 1, "1 more finding (1 error) not shown"),
        ("schema/unknown-field", 7, 'unknown field "spec.x1"'),
        ("schema/unknown-field", 8, 'unknown field "spec.x2"')]
    exact = run(bad, limits=dataclasses.replace(DEFAULT_LIMITS, max_findings=3))
    assert [d.path for d in exact.diagnostics] == ["spec.x1", "spec.x2", "spec.x3"]


def test_strict_fails_on_warnings_and_valid_experiments_are_kept() -> None:
    no_gateway = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
    assert run(no_gateway).counts.summary() == "1 file, 1 experiment: 1 valid, 0 invalid, 1 warning"
    assert run(no_gateway, strict=True).counts.summary() == "1 file, 1 experiment: 0 valid, 1 invalid, 1 warning"
    kept = run(VALID, keep_experiments=True)
    assert [(e.file, e.index, e.line, e.data["metadata"]["name"]) for e in kept.experiments] == [
        ("f.yaml", 0, 1, "weather-eval")]
    assert kept.checked == [(OBJ, 1)]
    assert run(VALID).experiments == []
    invalid = run(VALID.replace("  agentRef:\n", "  x1: 1\n  agentRef:\n"), keep_experiments=True)
    assert invalid.experiments == [] and invalid.checked == [(OBJ, 1)]


def test_a_defaults_file_gateway_silences_no_gateway() -> None:
    no_gateway = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
    asked: list[bool] = []

    def gateway() -> bool:
        asked.append(True)
        return True

    assert validate_text(no_gateway, "f.yaml", Options(), gateway_default=gateway).diagnostics == []
    assert asked == [True]
    assert [d.rule for d in validate_text(no_gateway, "f.yaml", Options(), gateway_default=lambda: False)
            .diagnostics] == ["semantic/no-gateway"]
    validate_text(VALID, "f.yaml", Options(), gateway_default=gateway)
    assert asked == [True], "asked only when an Experiment names no gateway"


def test_cel_hint_names_the_sources_found() -> None:
    both = VALID.replace("  dataset:\n", "  dataset:\n    url: http://x/a.json\n")
    assert rows(run(both)) == [("cel/dataset-exactly-one", "error", 9, 3, "spec.dataset",
                                'Invalid value: exactly one of s3, url, or inline must be set',
                                "found url and inline: keep one", OBJ)]


def test_rules_not_evaluated_follow_the_blocking_errors() -> None:
    blocked = VALID.replace("      defaultThreshold: 0.8\n", "      defaultThreshold: [1]\n")
    result = run(blocked)
    [note] = [d for d in result.diagnostics if d.rule == "cel/not-evaluated"]
    assert note.message == ("some validation rules were not checked because the object was invalid; correct the "
                            "existing errors to complete validation")
    errors = [(d.line, d.col) for d in result.diagnostics if d.severity.value == "error"]
    assert note.follows == max(errors)
    assert result.diagnostics[-1] == note


def test_list_items_are_validated_as_objects() -> None:
    listed = "apiVersion: v1\nkind: List\nitems:\n- " + VALID.replace("\n", "\n  ").rstrip() + "\n"
    result = run(listed)
    assert result.counts.summary() == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings"
    assert result.checked == [(OBJ, 4)]


def fixes(result: FileResult) -> list[tuple[Any, ...]]:
    return [(d.rule, d.path, d.fix.kind.value if d.fix else None, d.fix.value if d.fix else None,
             [(e.start, e.end, e.text) for e in d.fix.edits] if d.fix else None) for d in result.diagnostics]


def test_yaml11_booleans_in_a_boolean_field_are_written_as_kubernetes_reads_them() -> None:
    text = VALID + "  trigger:\n    enabled: yes\n"
    result = run(text)
    at = text.index("yes")
    assert [(d.rule, d.severity.value, d.message, d.hint) for d in result.diagnostics] == [
        ("yaml/yaml11-boolean", "warning", 'yes is read as the boolean true by Kubernetes (YAML 1.1) but as the string '
         '"yes" by YAML 1.2 tools (editors, yq, Python)', "write true")]
    assert fixes(result) == [("yaml/yaml11-boolean", "spec.trigger.enabled", "replace", True, [(at, at + 3, "true")])]
    off = run(VALID + "  trigger:\n    enabled: off\n")
    assert [(d.hint, d.fix.value if d.fix else None) for d in off.diagnostics] == [("write false", False)]


def test_a_yaml11_boolean_in_a_string_field_is_one_type_error() -> None:
    result = run(VALID.replace("- input: Will it rain in Berlin tomorrow?", "- input: yes"))
    assert [(d.rule, d.path, d.hint) for d in result.diagnostics if d.severity.value != "info"] == [
        ("schema/type", "spec.dataset.inline.scenarios[0].steps[0].input",
         'yes is a YAML 1.1 boolean for Kubernetes: write "yes" in quotes')]


def test_sexagesimal_text_is_quoted_only_in_a_string_field() -> None:
    text = VALID.replace("- input: Will it rain in Berlin tomorrow?", "- input: 1:30")
    at = text.index("1:30")
    assert fixes(run(text)) == [("yaml/sexagesimal", "spec.dataset.inline.scenarios[0].steps[0].input", "quote",
                                 "1:30", [(at, at + 4, '"1:30"')])]
    assert [(d.rule, d.message) for d in run(text).diagnostics] == [
        ("yaml/sexagesimal", "1:30 is a string for Kubernetes but a base-60 number for YAML 1.1 tools; "
         'quote it ("1:30")')]
    number = run(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 1:30"))
    assert [(d.rule, d.fix is not None and bool(d.fix.edits)) for d in number.diagnostics
            if d.rule.startswith("yaml/")] == [("yaml/sexagesimal", False)]


def test_unreadable_files_are_one_error_each_at_their_place(tmp_path: Any) -> None:
    from kubectl_testbench.pipeline.inputs import validate_paths
    from kubectl_testbench.validate.engine import validate_bytes

    binary = validate_bytes(b"\x00\x01", "b.yaml", Options())
    assert [(d.rule, d.file, d.line, d.col, d.message) for d in binary.diagnostics] == [
        ("input/binary", "b.yaml", 1, 1, "binary file (NUL byte at offset 0), not YAML or JSON")]
    latin = validate_bytes(b"a: \xff\n", "b.yaml", Options())
    assert [(d.rule, d.line, d.col) for d in latin.diagnostics] == [("input/encoding", 1, 4)]
    missing = next(validate_paths([str(tmp_path / "absent.yaml")], Options(), jobs=1))
    assert [(d.severity.value, d.line, d.col, d.location) for d in missing.diagnostics] == [
        ("error", 0, 0, str(tmp_path / "absent.yaml"))]
    for result in (binary, latin):  # content that is not text: malformed (exit 1); a path not opened: exit 2
        assert (result.counts.files, result.counts.malformed, result.counts.unreadable, result.counts.errors) == (
            1, 1, 0, 1)
    assert (missing.counts.files, missing.counts.malformed, missing.counts.unreadable, missing.counts.errors) == (
        1, 0, 1, 1)


def test_template_notice_names_its_file() -> None:
    result = template_notice("chart.yaml")
    assert (result.path, [d.file for d in result.diagnostics]) == ("chart.yaml", ["chart.yaml"])


def test_an_empty_dataset_is_told_what_to_add() -> None:
    result = run(VALID.replace("  dataset:\n    inline:", "  dataset: {}\n  x:\n    inline:"))
    assert [(d.rule, d.line, d.col, d.hint) for d in result.diagnostics if d.rule.startswith("cel/")] == [
        ("cel/dataset-exactly-one", 9, 12, "add one of spec.dataset.inline, spec.dataset.s3 or spec.dataset.url")]
    s3 = run(VALID.replace("  dataset:\n", "  dataset:\n    s3:\n      bucket: b\n      key: k.json\n"))
    assert [d.hint for d in s3.diagnostics if d.rule == "cel/dataset-exactly-one"] == ["found s3 and inline: keep one"]


def test_the_not_evaluated_note_names_the_object_at_its_root() -> None:
    blocked = VALID.replace("      defaultThreshold: 0.8\n", "      defaultThreshold: [1]\n")
    notes = [d for d in run(blocked).diagnostics if d.rule == "cel/not-evaluated"]
    assert [(d.path, d.line, d.object) for d in notes] == [("", 1, OBJ)]

