"""fix never overwrites an edit made to a file while it ran: the file is read again just before the atomic replace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.fix import apply
from tests.conftest import run_cli
from tests.validate.helpers import VALID

ENUM = VALID + "  trigger:\n    enabled: true\n    concurrencyPolicy: allow  # lower case\n"
ENUM_FIXED = ENUM.replace("allow  #", "Allow  #")
EDITED = ENUM.replace("# lower case", "# edited by hand while fix ran")


def _edit_after_reading(monkeypatch: pytest.MonkeyPatch, edit: Any) -> None:
    real = apply.fix_source

    def read_then_edit(source: Any, options: apply.FixOptions) -> apply.FileFix:
        outcome = real(source, options)
        edit(Path(source.path))
        return outcome

    monkeypatch.setattr(apply, "fix_source", read_then_edit)


@pytest.mark.parametrize("how", ["in-place", "editor-save", "same-size"])
def test_an_edit_made_while_fix_ran_is_kept_and_the_run_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              how: str) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(ENUM)
    other = tmp_path / "other.yaml"
    other.write_text(ENUM)
    edited = {"in-place": EDITED, "editor-save": EDITED, "same-size": ENUM.replace("lower case", "LOWER CASE")}[how]

    def edit(target: Path) -> None:
        if target != path:
            return
        if how == "editor-save":
            (tmp_path / "exp.yaml.swp").write_text(edited)
            os.replace(tmp_path / "exp.yaml.swp", path)
        else:
            stat = path.stat()
            path.write_text(edited)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the old mtime

    _edit_after_reading(monkeypatch, edit)
    result = run_cli("fix", "-j", "1", str(path), str(other))
    assert result.exit_code == 2, result.output
    assert (f"error: {path} changed while fix ran; not written, the changed file is kept (run kubectl testbench fix "
            "again)") in result.stderr.splitlines()
    assert f"fixed {path}" not in result.stderr
    assert path.read_text() == edited
    assert other.read_text() == ENUM_FIXED, "the other files are still fixed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml", "other.yaml"], "no temporary file left"


def test_a_file_removed_while_fix_ran_is_not_recreated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(ENUM)
    _edit_after_reading(monkeypatch, lambda target: target.unlink())
    result = run_cli("fix", "-j", "1", str(path))
    assert result.exit_code == 2
    assert f"error: {path} changed while fix ran; not written" in result.stderr
    assert not path.exists()
