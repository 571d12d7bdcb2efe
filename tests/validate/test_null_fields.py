"""schema/null-field: a null the create path prunes and a server-side apply refuses (checked with kube-apiserver
1.35.4: kubectl apply --dry-run=server accepts ``schedule:``, kubectl apply --server-side refuses it with the message
the warning quotes; tests/controlplane/test_server_parity.py counts such files as ``apply-refuses-null`` only where
the warning stands at every refused path)."""

from __future__ import annotations

from pathlib import Path

from kubectl_testbench.rules.metadata import METADATA_MANAGED_FIELDS_SET
from kubectl_testbench.rules.schema import SCHEMA_NULL_FIELD
from kubectl_testbench.validate.diagnostics import Severity
from kubectl_testbench.validate.engine import validate_text
from tests.conftest import ROOT, run_cli

EXAMPLE = (ROOT / "examples" / "experiments" / "weather-inline.yaml").read_text()


def _with(old: str, new: str) -> str:
    assert old in EXAMPLE
    return EXAMPLE.replace(old, new, 1)


def test_a_null_field_is_a_warning_at_its_key_in_the_servers_words() -> None:
    text = _with("spec:\n", "spec:\n  schedule:\n")
    [d] = [d for d in validate_text(text, "x.yaml").diagnostics if d.rule == SCHEMA_NULL_FIELD.id]
    assert (d.severity, d.path, d.line, d.col) == (Severity.WARNING, "spec.schedule", 12, 3)
    assert d.message == ('Invalid value: "null": spec.schedule in body must be of type object: "null" (under a '
                         "server-side apply; kubectl apply drops the field)")
    assert d.fix is not None and d.fix.title == "remove spec.schedule"


def test_a_null_inside_a_list_item_names_its_index() -> None:
    entry = "    - name: OTEL_EXPORTER_OTLP_ENDPOINT\n"
    text = _with(entry, entry + "      valueFrom:\n")
    found = [(d.path, d.severity) for d in validate_text(text, "x.yaml").diagnostics]
    assert ("spec.env[0].valueFrom", Severity.WARNING) in found


def test_the_experiment_stays_valid_and_other_checks_still_run() -> None:
    text = _with("spec:\n", "spec:\n  schedule:\n").replace("metricName: TopicAdherence", "metricName: TopicAdherance")
    result = validate_text(text, "x.yaml")
    rules = [d.rule for d in result.diagnostics]
    assert SCHEMA_NULL_FIELD.id in rules and "semantic/unknown-metric" in rules
    assert result.counts.invalid == 1  # the metric, not the null


def test_validate_exits_0_and_1_under_strict(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(_with("spec:\n", "spec:\n  schedule:\n"))
    assert run_cli("validate", str(path)).exit_code == 0
    assert run_cli("validate", "--strict", str(path)).exit_code == 1


def test_fix_removes_the_line(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(_with("spec:\n", "spec:\n  schedule:\n"))
    result = run_cli("fix", str(path))
    assert result.exit_code == 0, result.output
    assert path.read_text() == EXAMPLE


def test_managed_fields_in_a_manifest_are_a_warning_with_a_fix(tmp_path: Path) -> None:
    """kube-apiserver 1.35.4 answers a server-side apply of such a file 400 "metadata.managedFields must be nil"
    and creates it from the same file (tests/oracle/server.py: apply-refuses-managed-fields)."""
    managed = ("  managedFields:\n  - manager: kubectl\n    operation: Update\n    apiVersion: "
               "testbench.agentic-layer.ai/v1alpha1\n")
    text = _with("  labels:\n", managed + "  labels:\n")
    [d] = [d for d in validate_text(text, "x.yaml").diagnostics if d.rule == METADATA_MANAGED_FIELDS_SET.id]
    assert (d.severity, d.path, d.line, d.col) == (Severity.WARNING, "metadata.managedFields", 9, 3)
    assert d.message.endswith("a server-side apply refuses the object (metadata.managedFields must be nil)")
    path = tmp_path / "e.yaml"
    path.write_text(text)
    assert run_cli("fix", str(path)).exit_code == 0
    assert path.read_text() == EXAMPLE
