"""Writing a set of manifests as a directory, atomically: readers see the old tree or the new one, never a mix.

The files are written into a temporary sibling directory which is then renamed into place. A directory that
already exists is replaced only when it is empty or carries ``marker`` at the start of ``marker_file`` (we
wrote it before); anything else may hold a user's files, so we refuse instead of deleting them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


class OutputError(Exception):
    """The directory cannot be written as asked; the message says why and what to do."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _ours(directory: Path, marker_file: str, marker: str) -> bool:
    entries = list(directory.iterdir())
    if not entries:
        return True
    try:
        with (directory / marker_file).open(encoding="utf-8") as handle:
            return handle.read(len(marker)) == marker
    except (OSError, UnicodeDecodeError):
        return False


def write_directory(path: str | os.PathLike[str], files: dict[str, str], *, marker_file: str, marker: str) -> None:
    """Replace the directory ``path`` with exactly ``files`` (plain names, no subdirectories)."""
    target = Path(path)
    for name in files:
        if not name or name != os.path.basename(name) or name in (".", ".."):
            raise ValueError(f"not a plain file name: {name!r}")
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} exists and is not a directory")
    if target.is_dir() and not _ours(target, marker_file, marker):
        raise OutputError(f"{target} is not empty and was not written by this command; "
                          "remove it or choose another directory")
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
    try:
        for name, text in files.items():
            with (tmp / name).open("w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp / name, 0o666 & ~_umask())
        os.chmod(tmp, 0o777 & ~_umask())
        if target.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=parent))
            os.rename(target, old / "tree")
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(old / "tree", target)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
