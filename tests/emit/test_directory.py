"""The directory writer on its own (install's side of it too): the record that proves JSON files ours, the swap's
rollback, and what an interrupted swap leaves for the next run."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.emit import directory, swap
from kubectl_testbench.install.bundle import HEADER_LINE
from tests.conftest import ROOT

INSTALL_KUSTOMIZATION = directory.kustomization(["a.json", "b.json"], HEADER_LINE, extra_header="#   install\n")
FILES = {"a.json": '{"kind": "A"}\n', "b.json": '{"kind": "B"}\n', "kustomization.yaml": INSTALL_KUSTOMIZATION}


def _names(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def test_install_json_files_are_recorded_after_the_header_lines_and_stay_ours(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = directory.write(out, FILES, HEADER_LINE)
    assert first.added == ["a.json", "b.json", "kustomization.yaml"]
    lines = (out / "kustomization.yaml").read_text().splitlines()
    assert lines[:4] == [
        HEADER_LINE, "#   install",
        "# kubectl-testbench wrote a.json sha256:" + directory.digest("a.json", FILES["a.json"]),  # type: ignore[operator]
        "# kubectl-testbench wrote b.json sha256:" + directory.digest("b.json", FILES["b.json"]),  # type: ignore[operator]
    ]
    second = directory.write(out, {**FILES, "a.json": '{"kind": "A2"}\n'}, HEADER_LINE)
    assert (second.added, second.changed, second.removed) == ([], ["a.json", "kustomization.yaml"], [])
    third = directory.write(out, {"kustomization.yaml": directory.kustomization([], HEADER_LINE)}, HEADER_LINE)
    assert third.removed == ["a.json", "b.json"] and _names(out) == ["kustomization.yaml"]


def test_a_record_line_below_the_header_block_proves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    directory.write(out, FILES, HEADER_LINE)
    (out / "mine.json").write_text("{}\n")
    checksum = directory.digest("mine.json", "{}\n")
    with open(out / "kustomization.yaml", "a") as handle:
        handle.write(f"# kubectl-testbench wrote mine.json sha256:{checksum}\n")
    found = directory.scan(out, HEADER_LINE)
    assert "mine.json" in found.foreign and "a.json" in found.owned


def test_a_failed_second_rename_puts_the_old_directory_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    directory.write(out, FILES, HEADER_LINE)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = os.rename

    def failing(src: Any, dst: Any) -> None:
        if os.path.basename(src).startswith(".out.new-"):
            raise OSError(errno.EIO, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(directory.OutputDirError, match="Input/output error"):
        directory.write(out, {**FILES, "a.json": "{}\n"}, HEADER_LINE)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _names(tmp_path) == ["out"]


def test_a_directory_created_again_beside_a_backup_is_left_to_the_user(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / ".out.old-x").mkdir()
    (tmp_path / ".out.new-x").mkdir()
    with pytest.raises(swap.OutputDirError, match=r"out was created again after a run was interrupted while "
                                                  r"replacing it; the earlier version is in \.out\.old-x"):
        swap.recover(out)
    assert _names(tmp_path) == [".out.new-x", ".out.old-x", "out"]


def test_garbage_from_a_cut_short_removal_goes_silently(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / ".out.del-x").mkdir()
    (tmp_path / ".out.del-x" / "f").write_text("old")
    (tmp_path / ".other.old-x").mkdir()  # another directory's: not ours to touch
    assert swap.recover(out) == []
    assert _names(tmp_path) == [".other.old-x", "out"]


_ABORT_READ_ONLY = """
import os, sys
from pathlib import Path
from kubectl_testbench.emit import directory, swap
out = Path(sys.argv[1])
out.mkdir()
os.chmod(out, 0o555)
staging = directory.Staging(out)
staging.add("x.yaml", "x")
swap.set_final_mode(staging.path, out)
staging.abort()
print(sorted(os.listdir(out.parent)))
"""


def test_an_aborted_run_leaves_nothing_even_after_a_read_only_mode_was_set(tmp_path: Path) -> None:
    """Permissions must apply, so as root the child runs in a user namespace (see tests.conftest.run_process)."""
    os.chmod(tmp_path, 0o777)
    prefix: list[str] = []
    if os.geteuid() == 0:
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.skip("root ignores a read-only directory, and unshare (util-linux) is not installed")
        prefix = [unshare, "--user"]
    proc = subprocess.run([*prefix, sys.executable, "-c", _ABORT_READ_ONLY, str(tmp_path / "out")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "['out']\n"


def test_unchanged_files_are_linked_from_the_old_version_and_changed_ones_written(tmp_path: Path) -> None:
    """Regenerating a directory (issue 34): a file of ours with the same bytes keeps its inode (a hard link, not a
    new file's blocks), a changed one is written anew, and the directory reads as if every file had been written."""
    out = tmp_path / "out"
    directory.write(out, FILES, HEADER_LINE)
    inode = {name: os.stat(out / name).st_ino for name in FILES}
    second = directory.write(out, {**FILES, "b.json": '{"kind": "B2"}\n'}, HEADER_LINE)
    assert (second.added, second.changed, second.removed) == ([], ["b.json", "kustomization.yaml"], [])
    assert os.stat(out / "a.json").st_ino == inode["a.json"]
    assert os.stat(out / "b.json").st_ino != inode["b.json"] and (out / "b.json").read_text() == '{"kind": "B2"}\n'
    assert os.stat(out / "a.json").st_nlink == 1  # the old version is gone: no second name left behind
    assert _names(out) == ["a.json", "b.json", "kustomization.yaml"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_file_edited_to_the_same_size_is_compared_by_its_bytes(tmp_path: Path) -> None:
    """Same size, other bytes (an edit the record cannot see for a YAML file): written anew, never linked."""
    out = tmp_path / "out"
    files = {"a.yaml": directory.with_header("kind: A\n"), "kustomization.yaml": directory.kustomization(["a.yaml"])}
    directory.write(out, files)
    inode = os.stat(out / "a.yaml").st_ino
    new = {**files, "a.yaml": directory.with_header("kind: B\n")}
    assert directory.write(out, new).changed == ["a.yaml"]
    assert os.stat(out / "a.yaml").st_ino != inode and (out / "a.yaml").read_text() == new["a.yaml"]


def test_a_file_unchanged_in_bytes_but_touched_since_the_scan_is_written_not_linked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The link is only for our file as first seen: one replaced after the scan is left alone, and the run stops."""
    out = tmp_path / "out"
    directory.write(out, FILES, HEADER_LINE)
    staging = directory.Staging(out, HEADER_LINE)
    (out / "a.json").unlink()
    (out / "a.json").write_text(FILES["a.json"])  # same bytes, another file
    staging.add("a.json", FILES["a.json"])
    assert "a.json" not in staging.unchanged
    with pytest.raises(directory.OutputDirError, match="changed while"):
        staging.commit(FILES["kustomization.yaml"])
    assert (out / "a.json").read_text() == FILES["a.json"]
