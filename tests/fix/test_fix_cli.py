"""``kubectl testbench fix`` as users run it: in place, --diff, --check, --select/--ignore, stdin, atomic writes,
the summary on stderr and the exit codes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli, run_process
from tests.validate.helpers import VALID

CORPUS = ROOT / "tests" / "validate" / "corpus"
ENUM = VALID + "  trigger:\n    enabled: true\n    concurrencyPolicy: allow  # lower case\n"
ENUM_FIXED = ENUM.replace("allow  #", "Allow  #")


def _file(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_fix_rewrites_the_file_and_summarises_on_stderr(tmp_path: Path) -> None:
    path = _file(tmp_path, ENUM)
    result = run_cli("fix", str(path))
    assert result.exit_code == 0, result.output
    assert path.read_text() == ENUM_FIXED
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"fixed {path}: 1 fix (schema/enum)",
        "1 file changed: 1 fix applied: schema/enum 1",
        "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"], "no temporary file is left behind"


def test_findings_left_are_listed_with_why_they_have_no_safe_fix_and_fail(tmp_path: Path) -> None:
    path = _file(tmp_path, ENUM.replace("metricName: AgentGoalAccuracyWithReference",
                                        "metricName: AgentGoalAccuracyWithReference\n                  threshold: 1.5"))
    result = run_cli("fix", str(path))
    assert result.exit_code == 1
    assert path.read_text().endswith("concurrencyPolicy: Allow  # lower case\n")
    line = path.read_text().splitlines().index("                  threshold: 1.5") + 1
    assert (f"{path}:{line}:30: error[schema/maximum] spec.dataset.inline.scenarios[0].steps[0].metrics[0].threshold: "
            "Invalid value: 1.5: must be less than or equal to 1\n"
            "  not fixed: no safe fix in this case (schema/maximum fixes: writes a threshold above 10 and at most 100 "
            "as the fraction it reads as a percentage of (90 becomes 0.9))\n") in result.stderr
    assert result.stderr.endswith("1 file, 1 experiment: 0 valid, 1 invalid, 0 warnings\n")
    assert run_cli("fix", "--exit-zero", str(path)).exit_code == 0


def test_check_writes_nothing_and_exits_1_only_when_a_fix_is_available(tmp_path: Path) -> None:
    path = _file(tmp_path, ENUM)
    result = run_cli("fix", "--check", str(path))
    assert result.exit_code == 1 and path.read_text() == ENUM
    assert f"would fix {path}: 1 fix (schema/enum)" in result.stderr
    assert "1 file to change: 1 fix available: schema/enum 1" in result.stderr
    clean = _file(tmp_path, VALID, "clean.yaml")
    ok = run_cli("fix", "--check", str(clean))
    assert ok.exit_code == 0 and "nothing to fix" in ok.stderr


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = _file(tmp_path, ENUM)
    result = run_cli("fix", "--diff", str(path))
    assert result.exit_code == 1 and path.read_text() == ENUM
    name = str(path).lstrip("/")
    last = ENUM.splitlines()
    first = len(last) - 3  # three lines of context before the changed last line
    context = "".join(f" {line}\n" for line in last[-4:-1])
    assert result.stdout == (f"--- a/{name}\n+++ b/{name}\n@@ -{first},4 +{first},4 @@\n" + context +
                             "-    concurrencyPolicy: allow  # lower case\n"
                             "+    concurrencyPolicy: Allow  # lower case\n")


def test_fix_reads_the_defaults_file_as_validate_does(tmp_path: Path) -> None:
    """A gateway named in testbench-defaults.yaml silences semantic/no-gateway in fix's report too."""
    no_gateway = ENUM.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
    path = _file(tmp_path, no_gateway)
    assert "warning[semantic/no-gateway]" in run_cli("fix", "--check", str(path)).stderr
    (tmp_path / "testbench-defaults.yaml").write_text("apiVersion: testbench.agentic-layer.ai/v1alpha1\n"
                                                      "kind: RenderDefaults\nspec:\n  aiGateway:\n    name: gw\n")
    result = run_cli("fix", "--strict", str(path))
    assert result.exit_code == 0, result.output
    assert "no-gateway" not in result.stderr and path.read_text() == no_gateway.replace("allow  #", "Allow  #")


def test_select_and_ignore_choose_rules_by_id_or_group(tmp_path: Path) -> None:
    text = ENUM.replace("            - input: Will it rain in Berlin tomorrow?", "            - input: yes")
    path = _file(tmp_path, text)
    run_cli("fix", "--select", "schema/enum", str(path))
    assert path.read_text() == text.replace("allow  #", "Allow  #")
    path.write_text(text)
    run_cli("fix", "--ignore", "schema/enum,yaml", str(path))
    assert path.read_text() == text.replace("input: yes", 'input: "yes"')
    path.write_text(text)
    ignored = run_cli("fix", "--select", "schema", "--ignore", "schema/type", str(path))
    assert "not fixed: its fix is not selected (--select/--ignore)" in ignored.stderr
    bad = run_cli("fix", "--select", "schema/enums", str(path))
    assert bad.exit_code == 2
    assert bad.stderr == ('error: "schema/enums" is not a rule id or group (did you mean "schema/enum"?): '
                          "kubectl testbench validate --list-rules lists them\n")


def test_stdin_is_fixed_to_stdout_byte_for_byte_in_a_real_process() -> None:
    data = ENUM.replace("\n", "\r\n").encode()
    proc = run_process("fix", "-", input=data)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ENUM_FIXED.replace("\n", "\r\n").encode()
    assert b"fixed stdin: 1 fix (schema/enum)" in proc.stderr and b"Traceback" not in proc.stderr
    untouched = run_process("fix", "-", input=VALID.encode())
    assert untouched.returncode == 0 and untouched.stdout == VALID.encode()
    checked = run_process("fix", "--check", "-", input=data)
    assert checked.returncode == 1 and checked.stdout == b""


def test_writes_keep_the_file_mode_and_rewrite_a_symlinks_target(tmp_path: Path) -> None:
    target = _file(tmp_path, ENUM, "target.yaml")
    os.chmod(target, 0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    assert run_cli("fix", str(link)).exit_code == 0
    assert link.is_symlink() and target.read_text() == ENUM_FIXED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_failed_write_leaves_the_file_whole_and_no_temporary_file(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = _file(tmp_path, ENUM)

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)  # the rename into place fails after the temp file was written
    result = run_cli("fix", str(path))
    assert result.exit_code == 2 and f"error: cannot write {path}: Permission denied" in result.stderr
    assert path.read_text() == ENUM
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"]


def test_exit_non_zero_on_fix_fails_when_a_file_changed(tmp_path: Path) -> None:
    path = _file(tmp_path, ENUM)
    assert run_cli("fix", "--exit-non-zero-on-fix", str(path)).exit_code == 1
    assert run_cli("fix", "--exit-non-zero-on-fix", str(path)).exit_code == 0


def test_unreadable_input_and_no_input_exit_2_and_malformed_input_1(tmp_path: Path) -> None:
    missing = run_cli("fix", str(tmp_path / "nope.yaml"))
    assert missing.exit_code == 2 and "error[input/not-found]" in missing.stderr
    assert run_cli("fix").exit_code == 2
    broken = _file(tmp_path, "a: [\n")
    assert run_cli("fix", str(broken)).exit_code == 1 and broken.read_text() == "a: [\n"


def test_directories_are_fixed_recursively_and_only_testbench_files_skips_foreign_yaml(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    one = _file(tmp_path / "sub", ENUM, "one.yaml")
    helm = _file(tmp_path, "{{- if .Values.x }}\nkind: Deployment\n{{- end }}\n", "helm.yaml")
    result = run_cli("fix", "--only-testbench-files", str(one), str(helm))
    assert result.exit_code == 0 and one.read_text() == ENUM_FIXED
    one.write_text(ENUM)
    assert run_cli("fix", str(tmp_path / "sub")).exit_code == 0 and one.read_text() == ENUM_FIXED


def test_the_same_input_gives_the_same_bytes_and_the_same_summary(tmp_path: Path) -> None:
    runs = []
    for i in range(2):
        path = _file(tmp_path, (CORPUS / "status-in-file.yaml").read_text(), f"s{i}.yaml")
        result = run_cli("fix", str(path))
        runs.append((path.read_bytes(), result.stderr.replace(str(path), "P")))
    assert runs[0] == runs[1]


def test_many_files_are_fixed_in_a_process_pool_in_input_order(tmp_path: Path) -> None:
    paths = [_file(tmp_path, ENUM if i % 3 == 0 else VALID, f"e{i:03}.yaml") for i in range(210)]
    result = run_cli("fix", "-j", "2", str(tmp_path))
    assert result.exit_code == 0, result.stderr[-500:]
    fixed = [line.split()[1].rstrip(":") for line in result.stderr.splitlines() if line.startswith("fixed ")]
    assert fixed == [str(p) for p in paths[::3]]
    assert all(p.read_text() == ENUM_FIXED for p in paths[::3])
