"""``kubectl testbench import``: output, exit codes, nothing written on error, atomic files, --dataset-out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from importer_helpers import FIXTURES, cli, process

from kubectl_testbench.integrations.importers import ImportOptions, import_dataset
from kubectl_testbench.model.experiment_json import experiment_json
from kubectl_testbench.starter import SCHEMA_COMMENT

BASE = ("import", "--name", "triage", "--agent", "support")
TRIAGE = "orloj/triage-dataset.yaml"
NO_GATEWAY = ("notice: no --gateway: the Experiment has no spec.aiGatewayRef, so validate --strict and render --strict "
              "fail on it (semantic/no-gateway) until it has one (--gateway NAME [--gateway-namespace NS]) or a "
              "testbench-defaults.yaml beside it names a default gateway (spec.aiGateway.name)\n")


def library(fmt: str, *paths: str, **options: str) -> dict[str, object]:
    experiment: dict[str, object] = import_dataset(
        fmt, list(paths), ImportOptions(name="triage", agent="support", **options)).experiment  # type: ignore[arg-type]
    return experiment


def test_yaml_on_stdout_warnings_and_summary_on_stderr() -> None:
    result = cli(*BASE, "--from", "orloj", TRIAGE)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(SCHEMA_COMMENT)
    assert yaml.safe_load(result.stdout) == library("orloj", TRIAGE)
    assert result.stderr.splitlines() == [
        "orloj/triage-dataset.yaml:9:7: warning: rubric \"rubric\" is kept verbatim in customValues.rubrics but not "
        "scored (2 steps): agentic-layer-testbench 0.10.0 scores no metric that judges a free-text criterion "
        "(AspectCritic, InstanceSpecificRubrics cannot score) (spec.samples[0])",
        "orloj/triage-dataset.yaml:19:9: warning: expected.output_not_contains is not carried over: no RAGAS metric "
        "checks that a text is absent (spec.samples[1].expected.output_not_contains)",
        'orloj/triage-dataset.yaml:27:3: warning: EvalRun "triage-eval-llm": system is not carried over (the '
        "Experiment evaluates the agent given with --agent) (spec.system)",
        'orloj/triage-dataset.yaml:30:5: warning: EvalRun "triage-eval-llm": model_ref "gpt-4o-judge" names an Orloj '
        "ModelEndpoint, not a model: set the judge model with --judge-model (spec.scoring.model_ref)",
        'orloj/triage-dataset.yaml:32:3: warning: EvalRun "triage-eval-llm": concurrency is not carried over (not an '
        "Experiment setting) (spec.concurrency)",
        # the fidelity report: one line per source case, then the warnings about no single case
        "orloj/triage-dataset.yaml:9: billing-question: carried with changes (1 step): rubric \"rubric\" is kept "
        "verbatim in customValues.rubrics but not scored (2 steps): agentic-layer-testbench 0.10.0 scores no metric "
        "that judges a free-text criterion (AspectCritic, InstanceSpecificRubrics cannot score)",
        "orloj/triage-dataset.yaml:14: password-reset: carried with changes (1 step): rubric \"rubric\" is kept "
        "verbatim in customValues.rubrics but not scored (2 steps): agentic-layer-testbench 0.10.0 scores no metric "
        "that judges a free-text criterion (AspectCritic, InstanceSpecificRubrics cannot score) (+1 more, above)",
        "orloj/triage-dataset.yaml: 3 warnings about no single case (above): they concern every case read with it",
        "imported 2 scenarios (2 steps) from 1 file, 5 warnings; 0 cases carried, 2 carried with changes, 0 dropped",
        NO_GATEWAY.rstrip("\n"),
    ]


def test_json_output_and_options() -> None:
    result = cli(*BASE, "--from", "csv", "csv/v01.csv", "-o", "json", "-n", "evals", "--agent-namespace", "agents",
                 "--judge-model", "gpt-4o-mini", "--default-threshold", "0.7", "--metric", "AnswerAccuracy=0.8",
                 "--metric", "FactualCorrectness")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["metadata"]["namespace"] == "evals"
    assert doc["spec"]["agentRef"] == {"name": "support", "namespace": "agents"}
    inline = doc["spec"]["dataset"]["inline"]
    assert (inline["llmAsAJudgeModel"], inline["defaultThreshold"]) == ("gpt-4o-mini", 0.7)
    assert inline["scenarios"][0]["steps"][0]["metrics"] == [{"metricName": "AnswerAccuracy", "threshold": 0.8},
                                                             {"metricName": "FactualCorrectness"}]


def test_output_file_is_written_atomically(tmp_path: Path) -> None:
    target = tmp_path / "triage.yaml"
    target.write_text("old content\n", encoding="utf-8")
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--output-file", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert yaml.safe_load(target.read_text(encoding="utf-8")) == library("orloj", TRIAGE)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["triage.yaml"]  # no temporary file left behind


def test_invalid_result_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("old content\n", encoding="utf-8")
    dataset = tmp_path / "experiment.json"
    result = cli("import", "--from", "orloj", TRIAGE, "--name", "Not_Valid", "--agent", "support",
                 "--output-file", str(target), "--dataset-out", str(dataset), "--s3-bucket", "datasets")
    assert result.exit_code == 1
    assert "error[metadata" in result.stderr or "error[schema" in result.stderr
    assert result.stderr.rstrip().endswith("error: the imported Experiment is invalid; nothing was written "
                                           "(2 scenarios (2 steps) from 1 file, 7 warnings; 0 cases carried, 2 "
                                           "carried with changes, 0 dropped)"), \
        "5 + no-gateway + s3-default-minio (an S3 Experiment without MINIO_*, no defaults file next to it)"
    assert "warning[semantic/s3-default-minio] spec.dataset.s3: none of MINIO_ENDPOINT" in result.stderr
    assert target.read_text(encoding="utf-8") == "old content\n"
    assert not dataset.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_dataset_out_with_s3(tmp_path: Path) -> None:
    dataset = tmp_path / "triage.json"
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--dataset-out", str(dataset), "--s3-bucket", "datasets")
    assert result.exit_code == 0, result.stderr
    inline = library("orloj", TRIAGE)["spec"]["dataset"]["inline"]  # type: ignore[index]
    assert dataset.read_text(encoding="utf-8") == experiment_json(inline) + "\n"
    doc = yaml.safe_load(result.stdout)
    assert doc["spec"]["dataset"] == {"s3": {"bucket": "datasets", "key": "triage.json"}}
    assert json.loads(dataset.read_text(encoding="utf-8"))["scenarios"][0]["steps"][0]["metrics"] == \
        [{"metric_name": "StringPresence"}]


def test_dataset_out_with_s3_key_or_url(tmp_path: Path) -> None:
    dataset = tmp_path / "d.json"
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--dataset-out", str(dataset), "--s3-bucket", "datasets",
                 "--s3-key", "triage/experiment.json")
    assert yaml.safe_load(result.stdout)["spec"]["dataset"] == {"s3": {"bucket": "datasets",
                                                                       "key": "triage/experiment.json"}}
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--dataset-out", str(dataset), "--dataset-url",
                 "https://example.com/triage.json")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load(result.stdout)["spec"]["dataset"] == {"url": "https://example.com/triage.json"}


def test_a_dataset_too_large_for_a_configmap_needs_dataset_out(tmp_path: Path) -> None:
    table = tmp_path / "big.csv"
    rows = "".join(f"question {i},{'x' * 2000}\n" for i in range(600))
    table.write_text("user_input,reference\n" + rows, encoding="utf-8")
    result = cli(*BASE, "--from", "csv", str(table))
    assert result.exit_code == 1
    assert "error[semantic/inline-size]" in result.stderr
    assert "hint: write the dataset to a file for S3 instead: --dataset-out FILE.json --s3-bucket BUCKET" in \
        result.stderr
    out = tmp_path / "big.json"
    result = cli(*BASE, "--from", "csv", str(table), "--dataset-out", str(out), "--s3-bucket", "datasets")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(out.read_text(encoding="utf-8"))["scenarios"]) == 600


def test_no_gateway_is_reported_only_where_the_file_lands_without_one(tmp_path: Path) -> None:
    """On stdout the destination is unknown (validate/render check it there); next to a testbench-defaults.yaml
    that names a gateway the file is fine."""
    on_stdout = cli(*BASE, "--from", "orloj", TRIAGE).stderr
    assert "warning[semantic/no-gateway]" not in on_stdout and on_stdout.splitlines()[-1].startswith(
        "notice: no --gateway:"), "on stdout a notice instead (issue 33 item 7)"
    bare = cli(*BASE, "--from", "orloj", TRIAGE, "--output-file", str(tmp_path / "bare.yaml"))
    assert "warning[semantic/no-gateway]" in bare.stderr
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n  aiGateway: {name: gw}\n")
    covered = cli(*BASE, "--from", "orloj", TRIAGE, "--output-file", str(tmp_path / "team" / "exp.yaml"))
    assert covered.exit_code == 0 and "semantic/no-gateway" not in covered.stderr


def test_strict_turns_warnings_into_failures(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--strict", "--output-file", str(target))
    assert result.exit_code == 1
    assert result.stderr.rstrip().endswith("error: --strict: a case was changed or dropped (see the warnings); "
                                           "nothing was written (2 scenarios (2 steps) from 1 file, 6 warnings; 0 "
                                           "cases carried, 2 carried with changes, 0 dropped)"), "5 + no-gateway"
    assert not target.exists()
    result = cli(*BASE, "--from", "json", "json/split.json", "--strict")  # nothing to report
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ("json/split.json:1: split-1: carried (1 step)\n"
                             "imported 1 scenario (1 step) from 1 file, 0 warnings; 1 case carried, 0 carried with "
                             "changes, 0 dropped\n" + NO_GATEWAY)


@pytest.mark.parametrize(("args", "message"), [
    (("--dataset-out", "x.json"), "--dataset-out needs --s3-bucket BUCKET [--s3-key KEY] or --dataset-url URL"),
    (("--s3-bucket", "b"), "--s3-bucket describe where --dataset-out is uploaded: add --dataset-out FILE.json"),
    (("--dataset-out", "x.json", "--s3-bucket", "b", "--dataset-url", "https://e.com/x.json"),
     "--dataset-url and --s3-bucket/--s3-key are alternatives"),
    (("--dataset-out", "x.json", "--s3-bucket", "b", "--output-file", "x.json"),
     "--dataset-out and --output-file name the same file"),
    (("--metric", "Nope"), '--metric "Nope" cannot be used: agentic-layer-testbench 0.10.0 has no metric of that '
                           "name"),
])
def test_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = cli(*BASE, "--from", "orloj", TRIAGE, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}")
    assert result.stdout == ""


@pytest.mark.parametrize(("fmt", "path", "message"), [
    ("orloj", "missing.yaml", "error: missing.yaml: no such file or directory"),
    ("adk", "csv/v01.csv", "error: csv/v01.csv: is not an ADK EvalSet or legacy eval array"),
    ("agentv", "csv/v01.csv", "error: csv/v01.csv: is not an AgentV eval suite"),
    ("json", "csv", "error: csv: no JSON files under this directory (looked for *.json, *.jsonl, *.ndjson)"),
    ("orloj", "json/split.json", "error: json/split.json: no Orloj EvalDataset in the input"),
])
def test_unreadable_or_unsupported_input_exits_2(tmp_path: Path, fmt: str, path: str, message: str) -> None:
    target = tmp_path / "out.yaml"
    result = cli(*BASE, "--from", fmt, path, "--output-file", str(target))
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert not target.exists()


def test_missing_pyarrow_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = cli(*BASE, "--from", "parquet", str(path))
    assert result.exit_code == 2
    assert result.stderr == ("error: reading parquet needs pyarrow: pip install pyarrow (the parquet extra of "
                             "kubectl-testbench)\n")


def test_help_lists_the_command_and_missing_options_are_usage_errors() -> None:
    assert "  import      Convert other agent-eval datasets into an Experiment." in cli("--help").stdout
    result = cli("import", "--from", "csv", "csv/v01.csv", "--agent", "a")
    assert result.exit_code == 2
    assert "Missing option '--name'" in result.stderr


def test_real_process_reads_stdin_and_its_output_validates() -> None:
    table = (FIXTURES / "csv/multiturn.csv").read_bytes()
    imported = process("import", "--from", "csv", "-", "--name", "multi", "--agent", "a", input=table)
    assert imported.returncode == 0, imported.stderr
    assert b"<stdin>:4:1: warning: scenario \"booking\" repeats a step number" in imported.stderr
    assert b"Traceback" not in imported.stderr
    validated = process("validate", "-", input=imported.stdout)
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_real_process_exit_codes() -> None:
    assert process("import", "--from", "csv", "nope.csv", "--name", "x", "--agent", "a").returncode == 2
    bad = process("import", "--from", "csv", "csv/v01.csv", "--name", "Bad_Name", "--agent", "a")
    assert bad.returncode == 1
    assert bad.stdout == b""


def test_report_json_lists_every_case_for_ci(tmp_path: Path) -> None:
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--report", "json", "--output-file", str(tmp_path / "e.yaml"))
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stderr)  # stderr is the one JSON document
    assert report["outcome"] == "written"
    assert report["counts"] == {"carried": 0, "carried with changes": 2, "dropped": 0}
    assert [(c["name"], c["line"], c["status"], c["steps"]) for c in report["cases"]] == [
        ("billing-question", 9, "carried with changes", 1), ("password-reset", 14, "carried with changes", 1)]
    assert [w["line"] for w in report["cases"][1]["warnings"]] == [9, 19]  # the dataset's rubric, its own field
    assert [w["field"] for w in report["general"]] == ["spec.system", "spec.scoring.model_ref", "spec.concurrency"]


def test_report_json_under_strict_says_why_and_exits_1(tmp_path: Path) -> None:
    result = cli(*BASE, "--from", "orloj", TRIAGE, "--report", "json", "--strict")
    assert result.exit_code == 1
    assert json.loads(result.stderr)["outcome"] == "strict"
    assert result.stdout == ""


def test_a_dropped_case_is_reported_and_fails_strict(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("user_input,reference\nHello,Hi\n,no question\n", encoding="utf-8")
    result = cli(*BASE, "--from", "csv", str(table))
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert f"{table}:2: t-1: carried (1 step)" in lines
    assert f"{table}:3: row 2: dropped: row 2 has no user_input: skipped" in lines
    assert cli(*BASE, "--from", "csv", str(table), "--strict").exit_code == 1


def test_from_auto_says_which_format_and_reads_a_mixed_directory(tmp_path: Path) -> None:
    import shutil

    real = Path(__file__).resolve().parent / "real"
    shutil.copytree(real / "agent-starter-pack" / "agent_starter_pack" / "agents" / "adk" / "tests" / "eval",
                    tmp_path / "adk")
    shutil.copytree(real / "agentv" / "examples" / "features" / "multi-turn-conversation", tmp_path / "agentv")
    shutil.copytree(FIXTURES / "orloj", tmp_path / "orloj")
    shutil.copy(FIXTURES / "csv" / "v01.csv", tmp_path / "table.csv")  # in a directory: not an eval file
    result = cli(*BASE, "--from", "auto", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    detected = [line for line in result.stderr.splitlines() if ": detected " in line]
    assert detected == [
        f"{tmp_path}/adk/evalsets/basic.evalset.json: detected adk (ADK file name (*.test.json, *.evalset.json))",
        f"{tmp_path}/agentv/evals/suite.yaml: detected agentv (AgentV suite name (suite.yaml, *.eval.yaml, "
        "EVAL.yaml))",
        f"{tmp_path}/orloj/run-docs.yaml: detected orloj (kind EvalRun (Orloj))",
        f"{tmp_path}/orloj/triage-dataset.yaml: detected orloj (kind EvalDataset (Orloj))",
        f"{tmp_path}/orloj/variants.yaml: detected orloj (kind EvalDataset (Orloj))",
    ]
    doc = yaml.safe_load(result.stdout)
    assert doc["metadata"]["annotations"]["import.testbench.agentic-layer.ai/format"] == "adk+agentv+orloj"
    names = [s["name"] for s in doc["spec"]["dataset"]["inline"]["scenarios"]]
    assert names[:4] == ["greeting", "weather_query", "support-context-retention", "support-troubleshooting-flow"]
    single = cli(*BASE, "--from", "auto", "csv/v01.csv")
    assert single.exit_code == 0 and "csv/v01.csv: detected csv (CSV file)" in single.stderr


def test_from_auto_refuses_what_it_cannot_tell(tmp_path: Path) -> None:
    odd = tmp_path / "notes.txt"
    odd.write_text("hello\n", encoding="utf-8")
    result = cli(*BASE, "--from", "auto", str(odd))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {odd}: --from auto cannot tell its format: name it with --from"


def test_a_defaults_file_with_minio_settings_next_to_the_output_drops_the_minio_warning(tmp_path: Path) -> None:
    """As for the gateway: the setup phase gets the defaults file's env, so the S3 Experiment reaches that MinIO."""
    plain, configured = tmp_path / "plain", tmp_path / "configured"
    plain.mkdir()
    configured.mkdir()
    (configured / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nmetadata: {name: d}\n"
        "spec:\n  env:\n    - {name: MINIO_ENDPOINT, value: 'http://minio.storage:9000'}\n", encoding="utf-8")
    for directory, warned in ((plain, True), (configured, False)):
        result = cli(*BASE, "--from", "orloj", TRIAGE, "--dataset-out", str(directory / "d.json"), "--s3-bucket",
                     "datasets", "--output-file", str(directory / "e.yaml"))
        assert result.exit_code == 0, result.stderr
        assert ("semantic/s3-default-minio" in result.stderr) is warned, (directory, result.stderr)
    on_stdout = cli(*BASE, "--from", "orloj", TRIAGE, "--dataset-out", str(plain / "f.json"), "--s3-bucket", "d1")
    assert "semantic/s3-default-minio" not in on_stdout.stderr, "destination unknown: left to validate and render"
