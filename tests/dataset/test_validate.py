"""``dataset validate`` and ``validate`` on a dataset file: located findings against the phase package's schema,
exit codes, and hostile files bounded with a one-line finding."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_process

SUPPORT_BOT = """{
  "llm_as_a_judge_model": "gemini-2.5-flash-lite",
  "defaultThreshold": 0.8,
  "default_threshold": 90,
  "scenarios": [
    {
      "name": "refund",
      "steps": [
        {"input": "I want my money back", "metrics": [{"metricName": "AnswerAccuracy"}]},
        {"input": null, "reference": {"tool_calls": [{"name": "lookup"}]}}
      ]
    }
  ]
}
"""
FINDINGS = [
    "{f}:3:3: warning[dataset/unknown-field] defaultThreshold: \"defaultThreshold\" is not a field of the schema: "
    "the phase package ignores it",
    "  hint: did you mean \"default_threshold\"?",
    "{f}:4:24: error[dataset/schema] default_threshold: Invalid value: 90: must be less than or equal to 1",
    "{f}:9:55: error[dataset/schema] scenarios[0].steps[0].metrics[0].metric_name: Required value: \"metric_name\" "
    "must be set",
    "{f}:9:56: warning[dataset/unknown-field] scenarios[0].steps[0].metrics[0].metricName: \"metricName\" is not a "
    "field of the schema: the phase package ignores it",
    "  hint: did you mean \"metric_name\"?",
    "{f}:10:10: error[dataset/schema] scenarios[0].steps[1].input: Required value: \"input\" must be set",
    "{f}:10:54: error[dataset/schema] scenarios[0].steps[1].reference.tool_calls[0].args: Required value: \"args\" "
    "must be set",
]


@pytest.fixture
def support_bot(tmp_path: Path) -> Path:
    path = tmp_path / "experiment.json"
    path.write_text(SUPPORT_BOT, encoding="utf-8")
    return path


def test_every_finding_is_located_at_file_line_col(support_bot: Path) -> None:
    done = run_process("dataset", "validate", str(support_bot))
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [*(line.format(f=support_bot) for line in FINDINGS),
                                                 "1 dataset file: 0 valid, 1 invalid, 2 warnings"]


def test_validate_checks_a_dataset_file_it_meets_with_the_same_findings(support_bot: Path) -> None:
    """Before, validate said "1 other document skipped" and exited 0: a dataset file could never be checked."""
    done = run_process("validate", str(support_bot))
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()
    assert lines[:-1] == [line.format(f=support_bot) for line in FINDINGS]
    assert lines[-1] == "1 file, 0 experiments: 0 valid, 0 invalid, 2 warnings (1 dataset file checked)"
    assert done.stderr == b"", "no 'no Experiment found' warning: the file was checked"


def test_an_exported_dataset_is_valid_for_both_commands(tmp_path: Path) -> None:
    out = tmp_path / "weather.json"
    assert run_process("dataset", "export", str(EXAMPLES / "experiments" / "weather-inline.yaml"), "-o",
                       str(out)).returncode == 0
    checked = run_process("dataset", "validate", "--strict", str(tmp_path))
    assert checked.returncode == 0, checked.stdout.decode()
    assert checked.stdout.decode() == "1 dataset file: 1 valid, 0 invalid, 0 warnings\n"
    plain = run_process("validate", "--strict", str(out))
    assert plain.returncode == 0
    assert plain.stdout.decode() == "1 file, 0 experiments: 0 valid, 0 invalid, 0 warnings (1 dataset file checked)\n"


def test_warnings_fail_only_with_strict_and_json_output_carries_the_findings(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"scenarios": [], "defaultThreshold": 0.5}', encoding="utf-8")
    assert run_process("dataset", "validate", str(path)).returncode == 0
    assert run_process("dataset", "validate", "--strict", str(path)).returncode == 1
    report = json.loads(run_process("dataset", "validate", "-o", "json", str(path)).stdout)
    assert [(d["rule"], d["line"], d["column"]) for d in report["diagnostics"]] == \
        [("dataset/unknown-field", 1, 19)]


@pytest.mark.parametrize(("content", "finding"), [
    (b'{"scenarios": []}\n{"scenarios": []}\n', "2:1: error[dataset/not-json] a second JSON value after the first"),
    (b"scenarios: []\n", "1:1: error[dataset/not-json] not JSON: a dataset file is one JSON object"),
    (b'\xef\xbb\xbf{"scenarios": []}', "1:1: error[dataset/not-json] the file starts with a byte-order mark"),
    (b'{"scenarios": [}', "1:16: error[yaml/syntax] JSON: invalid character '}'"),
    (b'{"scenarios": [], "scenarios": []}', '1:19: error[yaml/duplicate-key] scenarios: duplicate field "scenarios": '
                                           "the setup phase's json.loads keeps the later value"),
    (b'{"scenarios": "caf\xe9"}', "1:19: error[input/encoding] not UTF-8 text (byte 0xe9 at line 1, column 19)"),
    (b"", "1:1: error[dataset/not-json] not JSON"),
])
def test_what_the_setup_phase_cannot_read_is_one_located_finding(tmp_path: Path, content: bytes,
                                                                   finding: str) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(content)
    done = run_process("dataset", "validate", str(path))
    assert done.returncode == 1, done.stdout.decode()
    first = done.stdout.decode().splitlines()[0]
    assert first.startswith(f"{path}:{finding}"), first


def test_hostile_files_are_bounded_with_a_one_line_finding(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"scenarios": ' + "[" * 200_000 + "]" * 200_000 + "}", encoding="utf-8")
    wide = tmp_path / "wide.json"
    wide.write_text('{"scenarios": [' + ",".join(["{}"] * 1_200_000) + "]}", encoding="utf-8")
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"scenarios": [], "x": "' + b"a" * (17 * 1024 * 1024) + b'"}')
    cases = [(deep, 1, ":1:270: error[yaml/too-deep] nesting deeper than 256 levels (raise with --max-depth)"),
             (wide, 1, ": error[yaml/too-many-nodes]"),
             (huge, 2, ": error[input/too-large] larger than the 16 MiB limit (raise with --max-file-size)")]
    for path, code, finding in cases:
        started = time.monotonic()
        done = run_process("dataset", "validate", str(path), timeout=120)
        assert time.monotonic() - started < 60
        lines = done.stdout.decode().splitlines()
        assert done.returncode == code, lines
        assert len(lines) == 2, lines
        assert finding in lines[0], lines[0]
        assert done.stderr == b""


def test_a_runs_result_is_no_dataset_and_validate_still_skips_it() -> None:
    """executed/evaluated_experiment.json have scenarios too, and the fields a run adds (id, trace_id, turns,
    evaluations): they are results (kubectl testbench results), not datasets to check."""
    from kubectl_testbench.validate.dataset import is_dataset

    results = EXAMPLES / "results"
    done = run_process("validate", str(results))
    assert done.returncode == 0
    assert done.stdout.decode() == ("2 files, 0 experiments: 0 valid, 0 invalid, 0 warnings "
                                    "(2 other documents skipped)\n")
    assert is_dataset({"scenarios": []}) and is_dataset({"scenarios": [{"name": "s", "steps": [{"input": "x"}]}]})
    assert not is_dataset({"id": "run-1", "scenarios": []})
    assert not is_dataset({"scenarios": [{"name": "s", "trace_id": "t", "steps": []}]})
    assert not is_dataset({"scenarios": [{"name": "s", "steps": [{"input": "x", "turns": []}]}]})
    assert not is_dataset({"kind": "Experiment", "scenarios": []})


def test_stdin_is_read_and_yaml_hints_are_not_given_for_json() -> None:
    done = run_process("dataset", "validate", "-", input=b'{"scenarios": [{"name": "s", "steps": [{"input": 5}]}]}')
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "-:1:50: error[dataset/schema] scenarios[0].steps[0].input: Invalid value: 5: must be of type string",
        "1 dataset file: 0 valid, 1 invalid, 0 warnings"]


def test_retrieved_contexts_are_exported_as_render_writes_them_and_warned_as_unread(tmp_path: Path) -> None:
    """0.10.0's schema and models have no retrieved_contexts: the export keeps render's bytes, validate says so."""
    weather = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
    at = "\n              reference:\n"
    assert at in weather
    source = tmp_path / "weather.yaml"
    source.write_text(weather.replace(at, at + '                retrievedContexts: ["ctx"]\n', 1), encoding="utf-8")
    out = tmp_path / "experiment.json"
    assert run_process("dataset", "export", str(source), "-o", str(out)).returncode == 0, source.read_text()
    assert '"retrieved_contexts": [\n' in out.read_text(encoding="utf-8")
    done = run_process("dataset", "validate", str(out))
    assert done.returncode == 0
    assert [line.split(": ", 1)[1] for line in done.stdout.decode().splitlines() if "unknown-field" in line] == [
        'warning[dataset/unknown-field] scenarios[0].steps[0].reference.retrieved_contexts: "retrieved_contexts" is '
        "not a field of the schema: the phase package ignores it"]
