"""Atomic file output: a reader never sees a half-written file, an interrupted run leaves nothing behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to a temp file next to ``path`` and rename it into place."""
    write_atomic_bytes(path, text.encode("utf-8"))


class ChangedMeanwhile(Exception):
    """The file is no longer what was read: someone edited, replaced or removed it; it was left as it is."""


def sha256_of(data: bytes) -> str:
    import hashlib  # only where a file is rewritten: a clean run never needs it

    return hashlib.sha256(data).hexdigest()


def write_atomic_bytes(path: str | os.PathLike[str], data: bytes, keep_mode: bool = False,
                       expect_sha256: str | None = None) -> None:
    """Write ``data`` to a temp file next to ``path`` and rename it into place.

    With ``keep_mode`` an existing file keeps its permission bits, and a symlink its target: the link's
    target is rewritten, not replaced by a regular file (what an editor saving in place does).
    With ``expect_sha256`` (the digest of the bytes the new content was made from) the file is read again
    just before the rename; if it is not those bytes any more, :class:`ChangedMeanwhile` is raised and the
    user's version stays: a rewrite must never undo an edit made while it was being computed.
    """
    target = Path(os.path.realpath(path)) if keep_mode else Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    mode = 0o666 & ~_umask()
    if keep_mode:
        with contextlib.suppress(OSError):
            mode = os.stat(target).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if expect_sha256 is not None and _sha256_or_none(target) != expect_sha256:
            raise ChangedMeanwhile(str(path))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_new_atomic(path: str | os.PathLike[str], text: str) -> None:
    """As :func:`write_atomic`, but never replace an existing file: raises :class:`FileExistsError`.

    The complete temp file is hard-linked to ``path``, which fails when ``path`` exists, so no other writer
    can slip in between a check and the write. Where hard links are not supported, a check and a rename.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise
        except OSError:
            if os.path.lexists(target):
                raise FileExistsError(17, "File exists", str(target)) from None
            os.replace(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _sha256_or_none(path: Path) -> str | None:
    try:
        return sha256_of(path.read_bytes())
    except OSError:
        return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
