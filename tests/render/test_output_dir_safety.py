"""render --output-dir never loses what a user owns: files it did not write (even when the kustomization lists them),
the directory's mode, owner and group, the previous output after a crash mid-swap, and edits made while it ran."""

from __future__ import annotations

import grp
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.emit import directory
from tests.conftest import ROOT, run_cli

FIXTURES = Path(__file__).parent / "fixtures"
ONE = FIXTURES / "url-triggered.yaml"
MINE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n"


def _snapshot(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def _render(out: Path, *args: str, source: Path = ONE) -> Any:
    return run_cli("render", "-j", "1", str(source), "--output-dir", str(out), *args)


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


# --- 1. ownership ------------------------------------------------------------------------------------------------


def test_a_user_file_listed_in_the_kustomization_is_kept_and_render_refuses(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out).exit_code == 0
    (out / "my-extra.yaml").write_text(MINE)
    kustomization = out / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "- my-extra.yaml\n")
    before = _snapshot(out)
    result = _render(out)
    assert result.exit_code == 1, result.output
    assert (f"error: {out}/kustomization.yaml lists my-extra.yaml, which kubectl testbench render did not write: "
            "render regenerates kustomization.yaml and would drop it; list it in a kustomization of your own "
            "that includes this directory, and remove it here (nothing written)") in result.output
    assert _snapshot(out) == before
    checked = _render(out, "--check")
    assert checked.exit_code == 1 and "lists my-extra.yaml, which kubectl testbench render did not write" in \
        checked.output
    assert _snapshot(out) == before and _leftovers(out) == []


def test_a_listed_user_file_with_a_name_render_writes_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out).exit_code == 0
    name = "testtrigger_testkube_research-regression-research-trigger.yaml"
    (out / name).write_text(MINE)  # the user's own file, no header: render's listing must not make it ours
    before = _snapshot(out)
    result = _render(out)
    assert result.exit_code == 1
    assert (f"error: {out / name} was not written by kubectl-testbench; refusing to overwrite it (a name in "
            "kustomization.yaml proves nothing; delete the file if an earlier run wrote it)\n") in result.output
    assert _snapshot(out) == before


def test_json_files_are_owned_through_their_checksum_in_the_kustomization(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out, "-o", "json").exit_code == 0
    kustomization = (out / "kustomization.yaml").read_text()
    record = [line for line in kustomization.splitlines() if line.startswith("# kubectl-testbench wrote ")]
    assert [line.split()[3] for line in record] == sorted(p.name for p in out.iterdir() if p.suffix == ".json")
    again = _render(out, "-o", "json")
    assert again.exit_code == 0 and "0 added, 0 changed, 0 removed" in again.output
    assert (out / "kustomization.yaml").read_text() == kustomization
    assert _render(out, "-o", "json", "--check").exit_code == 0


def test_a_listed_user_json_file_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out, "-o", "json").exit_code == 0
    (out / "mine.json").write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}}\n')
    kustomization = out / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "- mine.json\n")
    before = _snapshot(out)
    result = _render(out, "-o", "json")
    assert result.exit_code == 1 and "lists mine.json, which kubectl testbench render did not write" in result.output
    assert _snapshot(out) == before


def test_an_edited_json_file_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out, "-o", "json").exit_code == 0
    name = "testtrigger_testkube_research-regression-research-trigger.json"
    (out / name).write_text((out / name).read_text().replace('"kind"', '"kind" ', 1))
    before = _snapshot(out)
    result = _render(out, "-o", "json")
    assert result.exit_code == 1
    assert (f"error: {out / name} changed since kubectl testbench render wrote it (its checksum in "
            "kustomization.yaml differs); refusing to overwrite it: keep your change elsewhere and delete the file, "
            "or choose another --output-dir") in result.output
    assert _snapshot(out) == before


def test_a_dangling_symlink_or_a_fifo_among_the_users_files_is_carried_over(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(out / "pipe")
    result = _render(out)
    assert result.exit_code == 0, result.output
    assert (out / "dangling").is_symlink() and os.readlink(out / "dangling") == str(tmp_path / "nowhere")
    assert stat.S_ISFIFO(os.lstat(out / "pipe").st_mode)


# --- 2. mode, owner and group --------------------------------------------------------------------------------------

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another group needs root")


@needs_root
def test_a_private_setgid_directory_keeps_its_mode_owner_and_group(tmp_path: Path) -> None:
    daemon = grp.getgrnam("daemon").gr_gid
    out = tmp_path / "out"
    out.mkdir()
    os.chown(out, 0, daemon)
    os.chmod(out, 0o2770)
    notes = out / "notes.txt"
    notes.write_text("mine")
    os.chown(notes, 1, daemon)
    os.chmod(notes, 0o640)
    inode = notes.stat().st_ino
    assert _render(out).exit_code == 0
    st = out.stat()
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o2770, 0, daemon)
    for path in out.iterdir():
        assert path.stat().st_gid == daemon, f"{path.name}: a file written in a setgid directory takes its group"
    kept = notes.stat()
    assert (kept.st_ino, kept.st_uid, kept.st_gid, stat.S_IMODE(kept.st_mode)) == (inode, 1, daemon, 0o640)
    assert _render(out).exit_code == 0  # and again, from the swapped-in directory
    st = out.stat()
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o2770, 0, daemon)


@needs_root
def test_without_setgid_new_files_take_the_writers_group_as_if_written_in_place(tmp_path: Path) -> None:
    daemon = grp.getgrnam("daemon").gr_gid
    out = tmp_path / "out"
    out.mkdir()
    os.chown(out, 1, daemon)
    os.chmod(out, 0o750)
    assert _render(out).exit_code == 0
    st = out.stat()
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o750, 1, daemon)
    assert {p.stat().st_gid for p in out.iterdir()} == {os.getegid()}


def test_a_new_directory_gets_the_mode_mkdir_gives(tmp_path: Path) -> None:
    out = tmp_path / "new"
    assert _render(out).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask


# --- 3. a crash between the two renames of the swap ------------------------------------------------------------------

_CRASH = """
import os, sys
def dying(real):
    def rename(src, dst, *args, **kwargs):
        if os.path.basename(src).startswith(".out.new-"):  # the old directory was moved aside a moment ago
            os._exit(137)  # killed between the two renames: no except, no finally
        return real(src, dst, *args, **kwargs)
    return rename
os.rename, os.replace = dying(os.rename), dying(os.replace)
from kubectl_testbench.cli.main import cli
sys.argv = ["kubectl-testbench", *sys.argv[1:]]
cli()
"""


def _crash_while_swapping(out: Path, source: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_CRASH), "render", "-j", "1", str(source),
                           "--output-dir", str(out)], capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=120, check=False)
    assert proc.returncode == 137, proc.stderr.decode()
    assert not out.exists(), "the crash happened between the renames: the directory is gone"


@pytest.mark.parametrize("next_run", [(), ("--check",)], ids=["render", "check"])
def test_the_next_run_restores_the_directory_a_crash_mid_swap_left_missing(tmp_path: Path,
                                                                           next_run: tuple[str, ...]) -> None:
    out = tmp_path / "out"
    assert _render(out).exit_code == 0
    (out / "notes.txt").write_text("mine")
    before = _snapshot(out)
    _crash_while_swapping(out, FIXTURES)
    result = _render(out, *next_run)
    assert result.exit_code == 0, result.output
    assert f"notice: {out}: restored the previous version from .out.old-" in result.output
    assert "(an earlier run was interrupted while replacing it)" in result.output
    assert _snapshot(out) == before
    assert _leftovers(out) == []


def test_a_backup_left_after_a_completed_swap_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out).exit_code == 0
    stale = tmp_path / ".out.old-abc123"
    stale.mkdir()
    (stale / "kustomization.yaml").write_text("partly removed")
    result = _render(out)
    assert result.exit_code == 0 and _leftovers(out) == []
    assert f"notice: {out}: removed {stale.name}, left by an earlier run that was interrupted" in result.output


def test_two_backups_and_no_directory_are_left_to_the_user(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for token in ("a", "b"):
        (tmp_path / f".out.old-{token}").mkdir()
    result = _render(out)
    assert result.exit_code == 1
    assert (f"error: {out} is missing and 2 earlier versions are beside it (.out.old-a, .out.old-b): an earlier run "
            "was interrupted; rename the one to keep to out and run again") in result.output
    assert _leftovers(out) == [".out.old-a", ".out.old-b"] and not out.exists()


# --- 4. a change made while render ran ---------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["edit-kustomization", "new-file", "replace-user-file"])
def test_a_change_made_while_render_ran_is_kept_and_nothing_is_written(tmp_path: Path, change: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    assert _render(out, source=FIXTURES / "s3-scheduled.yaml").exit_code == 0
    (out / "notes.txt").write_text("mine")
    real = directory.Staging.commit

    def edit_then_commit(self: directory.Staging, text: str | None) -> directory.Changes:
        if change == "edit-kustomization":
            with open(out / "kustomization.yaml", "a") as handle:
                handle.write("- added-by-hand.yaml\n")
        elif change == "new-file":
            (out / "todo.txt").write_text("written during the render")
        else:
            (out / "notes.new").write_text("mine, saved by an editor")
            os.replace(out / "notes.new", out / "notes.txt")
        return real(self, text)

    monkeypatch.setattr(directory.Staging, "commit", edit_then_commit)
    before_kustomization = (out / "kustomization.yaml").read_text()
    result = _render(out)
    monkeypatch.undo()
    assert result.exit_code == 1, result.output
    name = {"edit-kustomization": "kustomization.yaml", "new-file": "todo.txt", "replace-user-file": "notes.txt"}
    assert (f"error: {out / name[change]} changed while kubectl testbench render ran; nothing written (run it "
            "again)") in result.output
    if change == "edit-kustomization":
        assert (out / "kustomization.yaml").read_text() == before_kustomization + "- added-by-hand.yaml\n"
    elif change == "new-file":
        assert (out / "todo.txt").read_text() == "written during the render"
    else:
        assert (out / "notes.txt").read_text() == "mine, saved by an editor"
    assert "testworkflow_testkube_research-regression-research-workflow.yaml" not in os.listdir(out)
    assert _leftovers(out) == []
