"""Replacing a whole directory by a new one with two renames, keeping its mode, owner and group, and repairing what a
run killed between the renames left behind.

rename(2) cannot put a directory over a non-empty one, so the old directory first moves aside to ``.NAME.old-TOKEN``
(TOKEN is the staging directory's own: ``.NAME.new-TOKEN``), then the new one moves in, then the old one is renamed
``.NAME.del-TOKEN`` and removed. So a ``.old-`` directory is always a whole earlier version, never a half-deleted
one: when NAME is missing beside it, a run was killed between the renames and :func:`recover` puts it back before
anything else happens. A ``.del-`` directory is only ever garbage.

The staging directory takes the old directory's owner, group and setgid bit before anything is written into it, so
each new file gets the owner and group it would get if written in place, and the old directory's exact mode at the
end: a private ``2770`` directory stays private, and the GitOps checkout that reads it keeps its access.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path


class OutputDirError(Exception):
    """The output directory cannot be written safely; nothing was changed."""


def stage(target: Path) -> Path:
    """A new, empty sibling of ``target`` to build the next version in, with its owner, group and setgid bit."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    try:
        _adopt_owner(path, target)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    return path


def _adopt_owner(path: Path, target: Path) -> None:
    try:
        old = os.stat(target)
    except FileNotFoundError:
        return  # a new directory: mkdir's owner, group and (from a setgid parent) setgid bit are already right
    new = os.stat(path)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.chown(path, old.st_uid, old.st_gid)
        except OSError as err:
            raise OutputDirError(
                f"cannot give the new {target} the owner and group of the old one (uid {old.st_uid}, gid "
                f"{old.st_gid}): {err.strerror or err}; the directory is replaced as a whole, which takes its owner "
                "or root") from None
    os.chmod(path, 0o700 | (old.st_mode & stat.S_ISGID))  # private while incomplete; the group passes to new files


def set_final_mode(path: Path, target: Path) -> None:
    """The old directory's mode (setgid bit included), or for a new one the mode mkdir gives."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = (0o777 & ~_umask()) | (os.stat(path).st_mode & stat.S_ISGID)
    os.chmod(path, mode)


def swap(staging: Path, target: Path) -> None:
    """Put ``staging`` at ``target``; the old ``target`` is moved aside first and removed once the new one is in."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return
    backup = _sibling(target, "old", _token(staging, target, "new"))
    os.rename(target, backup)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(backup, target)
        raise
    _discard(backup, target)


def recover(target: Path) -> list[str]:
    """Finish what an interrupted swap of ``target`` left; one notice per repair.

    ``target`` missing beside exactly one ``.old-`` directory: a run was killed between the renames, and the old
    version goes back (the next render writes the new one again; ``--check`` compares with what was there).
    ``target`` present beside a ``.old-`` directory whose staging directory is gone: the swap had completed, only
    the removal was cut short."""
    old = _leftovers(target, "old")
    for name in _leftovers(target, "del"):
        shutil.rmtree(target.parent / name, ignore_errors=True)
    if not old:
        return []
    if not os.path.lexists(target):
        if len(old) > 1:
            raise OutputDirError(f"{target} is missing and {len(old)} earlier versions are beside it "
                                 f"({', '.join(old[:3])}): an earlier run was interrupted; rename the one to keep to "
                                 f"{target.name} and run again")
        _restore(target.parent / old[0], target)
        return [f"{target}: restored the previous version from {old[0]} (an earlier run was interrupted while "
                "replacing it)"]
    notices = []
    for name in old:
        if os.path.lexists(_sibling(target, "new", _token(target.parent / name, target, "old"))):
            raise OutputDirError(f"{target} was created again after a run was interrupted while replacing it; the "
                                 f"earlier version is in {name}: move what you need out of it, delete it and run again")
        _discard(target.parent / name, target)
        notices.append(f"{target}: removed {name}, left by an earlier run that was interrupted")
    return notices


def _restore(backup: Path, target: Path) -> None:
    token = _token(backup, target, "old")
    try:
        os.rename(backup, target)
    except OSError as err:
        raise OutputDirError(f"cannot restore {target} from {backup.name}: {err.strerror or err}") from None
    shutil.rmtree(_sibling(target, "new", token), ignore_errors=True)  # the version that was being swapped in


def _leftovers(target: Path, kind: str) -> list[str]:
    prefix = f".{target.name}.{kind}-"
    try:
        with os.scandir(target.parent) as entries:
            return sorted(e.name for e in entries if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _discard(backup: Path, target: Path) -> None:
    """Rename ``backup`` to ``.del-`` first: a removal cut short must not leave a whole-looking ``.old-`` directory."""
    garbage = _sibling(target, "del", _token(backup, target, "old"))
    with contextlib.suppress(OSError):
        os.rename(backup, garbage)
        shutil.rmtree(garbage, ignore_errors=True)


def _token(sibling: Path, target: Path, kind: str) -> str:
    """The random part of a ``.NAME.KIND-TOKEN`` sibling's name: it ties a staging directory to its backup."""
    return sibling.name[len(f".{target.name}.{kind}-"):]


def _sibling(target: Path, kind: str, token: str) -> Path:
    return target.parent / f".{target.name}.{kind}-{token}"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
