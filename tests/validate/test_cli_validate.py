"""``kubectl testbench validate`` as users run it: exit codes, stdin, trees, formats, no tracebacks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli, run_process
from tests.validate.helpers import VALID


def test_examples_are_valid() -> None:
    result = run_cli("validate", str(EXAMPLES))
    assert result.exit_code == 0, result.output
    assert "0 invalid" in result.output


def test_invalid_file_exits_1_with_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 1.5"))
    result = run_cli("validate", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:11:25: error[schema/maximum] spec.dataset.inline.defaultThreshold:" in result.output
    assert result.output.strip().splitlines()[-1] == "1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings"


def test_stdin(tmp_path: Path) -> None:
    result = run_cli("validate", "-", input=VALID)
    assert result.exit_code == 0 and "1 valid" in result.output


def test_directories_are_searched_recursively_skipping_hidden_and_other_extensions(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "exp.yml").write_text(VALID)
    (tmp_path / "a" / "exp.json").write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap"}))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "bad.yaml").write_text("a: [")
    (tmp_path / "notes.txt").write_text("a: [")
    (tmp_path / "empty.yaml").write_text("")
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "3 files, 1 experiment: 1 valid, 0 invalid, 0 warnings (1 other document skipped)" in result.output


@pytest.mark.parametrize(("content", "rule"), [
    (b"", "input/empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "input/binary"),
    (b"name: caf\xe9\n", "input/encoding"),
    (b"a: [1, 2\n", "yaml/syntax"),
])
def test_malformed_inputs_exit_1_with_one_line_and_no_traceback(tmp_path: Path, content: bytes, rule: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_bytes(content)
    proc = run_process("validate", str(path))
    assert proc.returncode == 1, "invalid input, as for kubeconform and kubectl-validate (docs/validation.md)"
    out = proc.stdout.decode()
    assert f"error[{rule}]" in out
    assert "Traceback" not in out + proc.stderr.decode()


def test_missing_and_unreadable_paths_exit_2(tmp_path: Path) -> None:
    proc = run_process("validate", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2 and b"error[input/not-found] no such file or directory" in proc.stdout
    if os.geteuid() != 0:
        locked = tmp_path / "locked.yaml"
        locked.write_text(VALID)
        locked.chmod(0)
        assert run_process("validate", str(locked)).returncode == 2


def test_no_arguments_is_a_usage_error() -> None:
    proc = run_process("validate")
    assert proc.returncode == 2 and proc.stderr.decode().startswith("error: no input")


def test_too_large_file_names_the_limit_and_the_flag(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(VALID + "#" + "x" * (1024 * 1024 + 10) + "\n")
    result = run_cli("validate", "--max-file-size", "1", str(big))
    assert result.exit_code == 1, "a file over a reading limit is invalid input (exit 2 is for paths not opened)"
    assert "larger than the 1 MiB limit (raise with --max-file-size)" in result.output


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_machine_formats_keep_stdout_parseable(tmp_path: Path, fmt: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(VALID.replace("name: weather-agent", "name: Weather_Agent"))
    proc = run_process("validate", "-o", fmt, str(bad))
    assert proc.returncode == 1
    out = proc.stdout.decode()
    if fmt == "junit":
        assert out.startswith("<?xml")
    else:
        json.loads(out)
    assert "1 invalid" in proc.stderr.decode()


def test_parallel_run_keeps_input_order_and_totals(tmp_path: Path) -> None:
    for i in range(80):
        text = VALID.replace("weather-eval", f"exp-{i:03d}")
        if i % 10 == 3:
            text = text.replace("defaultThreshold: 0.8", "defaultThreshold: 9")
        (tmp_path / f"exp-{i:03d}.yaml").write_text(text)
    serial = run_process("validate", "-j", "1", str(tmp_path))
    parallel = run_process("validate", "-j", "2", str(tmp_path))
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    assert b"80 files, 80 experiments: 72 valid, 8 invalid" in parallel.stdout


def test_list_rules() -> None:
    result = run_cli("validate", "--list-rules")
    assert result.exit_code == 0 and "cel/dataset-exactly-one" in result.output


def test_usage_reads_kubectl_testbench() -> None:
    assert "Usage: kubectl testbench validate" in run_cli("validate", "--help").output
