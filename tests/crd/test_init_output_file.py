"""``init --output-file`` never overwrites an existing file unless --force, as kubectl create and helm create."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import run_cli, run_process


def test_an_existing_file_is_kept_and_the_refusal_says_how_to_replace_it(tmp_path: Path) -> None:
    out = tmp_path / "exp.yaml"
    out.write_text("# my edited Experiment\n")
    proc = run_process("init", "e", "--agent", "a", "--output-file", str(out))
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode().endswith(
        f"error: {out} already exists: nothing was written (pass --force to replace it)\n")
    assert out.read_text() == "# my edited Experiment\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"], "no temp file left behind"


def test_force_replaces_it_atomically(tmp_path: Path) -> None:
    out = tmp_path / "exp.yaml"
    out.write_text("old\n")
    result = run_cli("init", "e", "--agent", "a", "--output-file", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert "kind: Experiment\n" in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"]


def test_a_symlink_or_a_dangling_link_counts_as_existing(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.yaml"
    link = tmp_path / "exp.yaml"
    os.symlink(target, link)
    result = run_cli("init", "e", "--agent", "a", "--output-file", str(link))
    assert result.exit_code == 1 and "already exists" in result.output
    assert not target.exists()


def test_a_new_file_is_written_with_the_usual_permissions(tmp_path: Path) -> None:
    out = tmp_path / "new.yaml"
    assert run_cli("init", "e", "--agent", "a", "--output-file", str(out)).exit_code == 0
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
    assert "name: e\n" in out.read_text()
