"""``fix --migrate``: both earlier upstream shapes become Experiments that validate and render, comments in place,
with a note per moved field; what cannot be moved mechanically is refused with the reason and left alone."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kubectl_testbench.fix.apply import FixOptions, fix_text
from kubectl_testbench.fix.migrate import migrate_text
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.validate.engine import validate_text
from tests.conftest import ROOT, UPSTREAM, require_reference, run_cli

HERE = Path(__file__).parent / "migrate"
FIXTURES = sorted(HERE.glob("*.yaml"))
MIGRATE = FixOptions(migrate=True)


def _comments(text: str) -> list[str]:
    """Comment texts, read with a plain scan of the lines (not the reader fix uses)."""
    return [m.group(1).strip() for m in re.finditer(r"(?:^|\s)(#[^\r\n]*)", text)]


def _migrated(text: str) -> tuple[str, list[str]]:
    outcome = fix_text(text, "m.yaml", MIGRATE)
    assert outcome.after is not None
    return outcome.after, [str(n) for n in outcome.notes]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_earlier_shape_migrates_to_the_golden_text(fixture: Path) -> None:
    text = fixture.read_bytes().decode()
    after, _ = _migrated(text)
    assert after == (HERE / "golden" / fixture.name).read_bytes().decode()


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_migrated_experiment_validates_renders_and_keeps_every_comment(fixture: Path, tmp_path: Path) -> None:
    text = fixture.read_bytes().decode()
    before = validate_text(text, "m.yaml")
    assert any(d.rule == "schema/unknown-field" and "fix --migrate" in d.hint for d in before.diagnostics)
    after, _ = _migrated(text)
    result = validate_text(after, "m.yaml")
    assert result.counts.errors == 0 and result.counts.invalid == 0, [d.rule for d in result.diagnostics]
    for comment in _comments(text):
        assert comment in after, f"comment {comment!r} was lost"
    path = tmp_path / "migrated.yaml"
    path.write_text(after)
    rendered = run_cli("render", str(path))
    assert rendered.exit_code == 0, rendered.output
    assert "kind: TestWorkflow" in rendered.stdout
    again, notes = _migrated(after)
    assert again == after and notes == []


def test_older_shape_notes_name_every_moved_field_with_its_line() -> None:
    _, notes = _migrated((HERE / "older-inline.yaml").read_text())
    assert notes == [
        "m.yaml:15: migrated spec.llmAsAJudgeModel to spec.dataset.inline.llmAsAJudgeModel",
        "m.yaml:17: wrote spec.dataset.inline.defaultThreshold: 0.9, the default the earlier CRD applied",
        "m.yaml:17: migrated spec.scenarios to spec.dataset.inline.scenarios",
        "m.yaml:32: migrated spec.otlpEndpoint to spec.env OTEL_EXPORTER_OTLP_ENDPOINT",
        "m.yaml:35: commented out spec.trigger.event: modified is the only event now",
    ]


def test_older_shape_renders_the_otlp_endpoint_as_workflow_env_and_the_dataset_as_a_configmap(tmp_path: Path) -> None:
    path = tmp_path / "older.yaml"
    path.write_text(_migrated((HERE / "older-inline.yaml").read_text())[0])
    out = run_cli("render", str(path)).stdout
    assert "name: OTEL_EXPORTER_OTLP_ENDPOINT\n" in out
    assert "value: http://lgtm.monitoring.svc.cluster.local:4318" in out
    assert '"default_threshold": 0.9' in out and '"llm_as_a_judge_model": "gemini-2.5-flash-lite"' in out


def test_reference_sample_of_the_later_shape_migrates_validates_and_renders(tmp_path: Path) -> None:
    sample = require_reference(UPSTREAM / "samples" / "old-schema-experiment@8c1c97d.yaml")
    path = tmp_path / "sample.yaml"
    shutil.copyfile(sample, path)
    result = run_cli("fix", "--migrate", "--exit-zero", str(path))
    assert result.exit_code == 0, result.output
    assert "sample.yaml:12: commented out spec.llmAsAJudgeModel: with an s3 dataset" in result.stderr
    assert "sample.yaml:13: commented out spec.defaultThreshold: with an s3 dataset" in result.stderr
    migrated = path.read_text()
    assert "\n  # llmAsAJudgeModel: gemini-2.5-flash-lite\n" in migrated
    assert "\n  # defaultThreshold: 0.9\n  dataset:\n" in migrated
    # what is left has nothing to do with the earlier shape: the sample's dataset.csv, which the setup image
    # cannot read, and no AI gateway (choices only the user can make; the exit code above is --migrate's)
    left = run_cli("validate", "-o", "json", str(path))
    assert sorted(d["rule"] for d in json.loads(left.stdout)["diagnostics"]) == [
        "semantic/dataset-format-converted", "semantic/no-gateway", "semantic/s3-default-minio"]
    path.write_text(migrated.replace("key: dataset.csv", "key: dataset.json"))
    shutil.copyfile(ROOT / "examples" / "experiments" / "testbench-defaults.yaml", tmp_path / "testbench-defaults.yaml")
    check = run_cli("validate", str(path))
    assert check.exit_code == 0 and "1 valid" in check.output, check.output
    assert run_cli("render", str(path)).exit_code == 0


@pytest.mark.parametrize(("change", "reason"), [
    (lambda t: t.replace("  trigger:\n", "  dataset:\n    url: https://x.example.com/e.json\n  trigger:\n"),
     "spec.scenarios and spec.dataset are both set"),
    (lambda t: t.replace("event: modified", "event: deleted"),
     "spec.trigger.event 'deleted' has no counterpart"),
    (lambda t: t.replace("  trigger:\n", "  env:\n    - name: OTEL_EXPORTER_OTLP_ENDPOINT\n      value: http://other\n"
                         "  trigger:\n"), "spec.env already sets OTEL_EXPORTER_OTLP_ENDPOINT to something else"),
])
def test_what_cannot_be_migrated_mechanically_is_refused_and_left_alone(change, reason) -> None:  # type: ignore[no-untyped-def]
    text = change((HERE / "older-inline.yaml").read_text())
    migration = migrate_text(text, Limits())
    assert migration.text == text and migration.moved == 0
    (note,) = migration.notes
    assert note[1].startswith("cannot migrate this Experiment: " + reason), note


def test_judge_settings_without_a_dataset_and_a_flow_spec_are_refused() -> None:
    head = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata: {name: x}\n"
    lonely = head + "spec:\n  agentRef: {name: a}\n  llmAsAJudgeModel: m\n"
    assert migrate_text(lonely, Limits()).notes == [
        (6, "cannot migrate this Experiment: spec.llmAsAJudgeModel belongs to a dataset, and there is no "
            "spec.dataset.s3/url or spec.scenarios: move it into spec.dataset.inline by hand")]
    flow = head + "spec: {agentRef: {name: a}, scenarios: []}\n"
    assert migrate_text(flow, Limits()).notes == [
        (4, "cannot migrate this Experiment: spec is written in flow style ({...}): migrate it by hand")]


def test_fix_migrate_cli_refuses_with_exit_1_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    text = (HERE / "older-inline.yaml").read_text().replace("event: modified", "event: deleted")
    path.write_text(text)
    result = run_cli("fix", "--migrate", str(path))
    assert result.exit_code == 1
    assert f"{path}:35: cannot migrate this Experiment: spec.trigger.event 'deleted'" in result.stderr
    assert path.read_text() == text


def test_without_migrate_fix_leaves_earlier_shapes_and_validate_points_to_migrate(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    shutil.copyfile(HERE / "older-inline.yaml", path)
    result = run_cli("fix", str(path))
    assert result.exit_code == 1 and path.read_text() == (HERE / "older-inline.yaml").read_text()
    hint = "hint: written for an earlier Experiment schema: kubectl testbench fix --migrate upgrades it"
    assert hint in result.stderr


def test_a_line_break_only_python_counts_before_the_experiment_does_not_move_the_edits() -> None:
    """split_documents counts U+2028 as a line break (str.splitlines); the chunk's offset must be found with the
    same count, or every edit of the Experiment after it lands one line off."""
    old = FIXTURES[0].read_bytes().decode()
    first = "# a\u2028b\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n---\n"
    alone = migrate_text(old, Limits())
    after = migrate_text(first + old, Limits())
    assert after.text == first + alone.text
