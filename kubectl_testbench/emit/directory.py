"""A directory of generated manifests, replaced as a whole and only where we own it.

Ownership is proven by something a user cannot hand us by accident: a YAML file is ours when its first line is the
writer's header (one per command: render, install); a JSON file, which cannot carry a comment, when our (headed)
``kustomization.yaml`` records its SHA-256 and its bytes still match. A name in the kustomization's ``resources``
proves nothing: users add their own files there. Everything else is the user's: carried into the new directory as the
same inode (owner, mode and content intact), never overwritten. A user's file our kustomization lists stops the run:
regenerating the kustomization would drop it, and a GitOps tool syncing the directory would prune what it deploys.

The new content is built in a sibling directory and swapped in by rename (see :mod:`kubectl_testbench.emit.swap`),
so an interrupted run leaves the old or the new directory, never a mix, and the next run repairs a swap cut short.
Right before the swap, every entry of the old directory is compared with what was seen at the start: an edit made
meanwhile is kept and the run fails, instead of the edit vanishing with the old directory.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from kubectl_testbench.emit import swap
from kubectl_testbench.emit.headers import HEADER, INSTALL_HEADER_MARK
from kubectl_testbench.emit.swap import OutputDirError as OutputDirError

KUSTOMIZATION = "kustomization.yaml"
_RECORD = re.compile(r"# kubectl-testbench wrote (\S+) sha256:([0-9a-f]{64})")
_MAX_KUSTOMIZATION_BYTES = 16 * 1024 * 1024
_HEADER_READ_CHARS = 4096
Fingerprint = tuple[int, int, int, int]
"""An entry as first seen: ``st_mode``, inode, size, mtime in ns. Any edit, replacement or chmod changes it."""


@dataclass
class Changes:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """Repairs made before writing (a swap an earlier run left half-done)."""

    @property
    def any(self) -> bool:
        return bool(self.added or self.changed or self.removed)


def with_header(text: str, header: str = HEADER, name: str = ".yaml") -> str:
    """``text`` with the header line on top (YAML only: a JSON file must stay pure JSON)."""
    return text if name.endswith(".json") else f"{header}\n{text}"


def kustomization(resources: list[str], header: str = HEADER, extra_header: str = "") -> str:
    """The ``kustomization.yaml`` listing our files, so ``kubectl kustomize DIR`` builds the directory."""
    from kubectl_testbench.emit.yamlout import scalar

    body = extra_header + "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    body += "resources:\n" + "".join(f"- {scalar(n)}\n" for n in resources) if resources else "resources: []\n"
    return with_header(body, header)


def digest(name: str, text: str) -> str | None:
    """The SHA-256 the kustomization records for a file we write, or None when its header proves it ours (YAML)."""
    import hashlib  # here: a render to stdout never needs it (tests/validate/test_cold_start.py)

    return hashlib.sha256(text.encode("utf-8")).hexdigest() if name.endswith(".json") else None


def with_record(kustomization_text: str, digests: dict[str, str]) -> str:
    """``kustomization_text`` with one ``# kubectl-testbench wrote NAME sha256:HEX`` line per JSON file, sorted, after
    its leading comment lines: what proves those files ours on the next run."""
    if not digests:
        return kustomization_text
    lines = kustomization_text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    record = [f"# kubectl-testbench wrote {name} sha256:{digests[name]}\n" for name in sorted(digests)]
    return "".join(lines[:at] + record + lines[at:])


def writer_of(first_line: str) -> str | None:
    """Which of our commands wrote a file that starts with ``first_line`` (render, install), or None."""
    if first_line == HEADER:
        return "kubectl testbench render"
    if first_line.startswith(INSTALL_HEADER_MARK):
        return "kubectl testbench install"
    return None


def _first_line(path: Path) -> str:
    """The first line of a regular file, bounded: a FIFO would block, a huge one-line file would fill memory."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ""
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.readline(_HEADER_READ_CHARS).rstrip("\r\n")
    except OSError:
        return ""


@dataclass
class Existing:
    """What is in the target directory before a run, and whose it is."""

    seen: dict[str, Fingerprint] | None = None
    """Every entry as first seen; None when the directory did not exist."""
    owned: dict[str, Path] = field(default_factory=dict)
    foreign: dict[str, Path] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    edited: set[str] = field(default_factory=set)
    """Files the record names whose bytes changed since: the user's now."""
    listed: list[str] = field(default_factory=list)
    """The ``resources`` of our kustomization, as written there."""


def scan(target: Path, header: str = HEADER) -> Existing:
    """Sort the entries of ``target`` into ours (by ``header`` or the record), the user's, and subdirectories."""
    entries = _entries(target)
    if entries is None:
        return Existing()
    found = Existing(seen={name: _fingerprint(st) for name, st in entries.items()})
    record: dict[str, str] = {}
    kustomization_ours = stat.S_ISREG(entries[KUSTOMIZATION].st_mode) if KUSTOMIZATION in entries else False
    if kustomization_ours and _first_line(target / KUSTOMIZATION) == header:
        text = _read_kustomization(target / KUSTOMIZATION, entries[KUSTOMIZATION].st_size)
        record, found.listed = _record(text), _resources(text)
    else:
        kustomization_ours = False
    for name, st in sorted(entries.items()):
        path = target / name
        if stat.S_ISDIR(st.st_mode):
            found.dirs.append(name)
        elif not stat.S_ISREG(st.st_mode):
            found.foreign[name] = path
        elif name == KUSTOMIZATION:
            (found.owned if kustomization_ours else found.foreign)[name] = path
        elif name in record:
            if _sha256(path) == record[name]:
                found.owned[name] = path
            else:
                found.foreign[name] = path
                found.edited.add(name)
        elif _first_line(path) == header:
            found.owned[name] = path
        else:
            found.foreign[name] = path
    return found


def _entries(target: Path) -> dict[str, os.stat_result] | None:
    try:
        with os.scandir(target) as it:
            return {e.name: e.stat(follow_symlinks=False) for e in it}
    except (FileNotFoundError, NotADirectoryError):
        return None  # not there (or under a file: creating it fails with the reason)
    except OSError as err:
        raise OutputDirError(f"cannot read {target}: {err.strerror or err}") from None


def _fingerprint(st: os.stat_result) -> Fingerprint:
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns)


def _read_kustomization(path: Path, size: int) -> str:
    if size > _MAX_KUSTOMIZATION_BYTES:
        return ""  # not something we wrote; owning nothing by it is the safe reading
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _record(text: str) -> dict[str, str]:
    """The JSON files an earlier run wrote, from the leading comment lines of its kustomization."""
    record: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _RECORD.fullmatch(line)
        if match:
            record[match[1]] = match[2]
    return record


def _resources(text: str) -> list[str]:
    """What our kustomization lists, read with libyaml (16 MiB in about a second; one nested past 1,000 levels is
    not ours and lists nothing)."""
    import yaml

    try:  # CSafeLoader, as integrations/discover.py reads kustomizations
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (ValueError, yaml.YAMLError, RecursionError):
        return []
    resources = doc.get("resources") if isinstance(doc, dict) else None
    return [r for r in resources if isinstance(r, str)] if isinstance(resources, list) else []


def _sha256(path: Path) -> str:
    import hashlib

    hasher = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                hasher.update(block)
    except OSError:
        return ""
    return hasher.hexdigest()


def command_of(header: str) -> str:
    """The command a writer's header names (``kubectl testbench render``)."""
    return writer_of(header) or "kubectl-testbench"


def refuse_foreign_listing(found: Existing, target: Path, header: str = HEADER) -> None:
    """Our kustomization lists something we did not write (and are not about to write: :func:`refuse_overwrite`
    has said so already): regenerating it would drop that entry."""
    command = command_of(header)
    for entry in found.listed:
        name = posixpath.normpath(entry)
        if name in found.owned or ("/" not in name and found.seen is not None and name not in found.seen):
            continue  # ours, or a stale entry with nothing behind it to lose
        if name in found.edited:
            raise OutputDirError(edited_message(target / name, command))
        short = command.rsplit(" ", 1)[-1]
        raise OutputDirError(f"{target / KUSTOMIZATION} lists {entry}, which {command} did not write: {short} "
                             f"regenerates {KUSTOMIZATION} and would drop it; list it in a kustomization of your own "
                             "that includes this directory, and remove it here (nothing written)")


def refuse_overwrite(found: Existing, target: Path, name: str, header: str = HEADER) -> None:
    """``name`` is to be written, but the file there is the user's."""
    if name in found.edited:
        raise OutputDirError(edited_message(target / name, command_of(header)))
    if name in found.foreign:
        hint = (f" (a name in {KUSTOMIZATION} proves nothing; delete the file if an earlier run wrote it)"
                if name in found.listed else "")
        raise OutputDirError(f"{target / name} was not written by kubectl-testbench; refusing to overwrite it{hint}")


def edited_message(path: Path, command: str) -> str:
    return (f"{path} changed since {command} wrote it (its checksum in {KUSTOMIZATION} differs); refusing to overwrite "
            "it: keep your change elsewhere and delete the file, or choose another --output-dir")


def write(target: Path, files: dict[str, str], header: str = HEADER) -> Changes:
    """Replace our files in ``target`` with ``files`` (all at once; see :class:`Staging` for streaming)."""
    staging = Staging(target, header)
    try:
        for name, text in files.items():
            if name != KUSTOMIZATION:
                staging.add(name, text)
        return staging.commit(files.get(KUSTOMIZATION))
    except BaseException:
        staging.abort()
        raise


class Staging:
    """A new version of ``target`` being written file by file beside it, swapped in by :meth:`commit`.

    Streaming keeps memory flat on large trees: each rendered object goes to disk as it arrives.
    """

    def __init__(self, target: Path, header: str = HEADER) -> None:
        self.target = Path(os.path.realpath(target))
        self.header = header
        self.command = command_of(header)
        if self.target.exists() and not self.target.is_dir():
            raise OutputDirError(f"{self.target} exists and is not a directory")
        self.notices = swap.recover(self.target)
        self.found = scan(self.target, header)
        self.owned, self.foreign = self.found.owned, self.found.foreign
        other = writer_of(_first_line(self.target / KUSTOMIZATION)) if KUSTOMIZATION in self.foreign else None
        if other is not None:
            raise OutputDirError(f"{self.target} holds what {other} wrote (its {KUSTOMIZATION} says so); render and "
                                 "install each need a directory of their own: choose another --output-dir")
        if self.found.dirs:
            raise OutputDirError(f"{self.target} contains directories ({', '.join(self.found.dirs[:3])}); render owns "
                                 "a flat directory of manifests: choose an empty or new --output-dir")
        try:
            self.path = swap.stage(self.target)
        except OSError as err:
            raise OutputDirError(f"cannot write to {self.target.parent}: {err.strerror or err}") from None
        self.names: list[str] = []
        self.digests: dict[str, str] = {}
        self.unchanged: set[str] = set()
        """Our files whose bytes this run writes again: linked from the old version (:meth:`_keep_unchanged`)."""

    def add(self, name: str, text: str) -> None:
        if not name or name != os.path.basename(name) or name in (".", ".."):
            raise OutputDirError(f"not a plain file name: {name!r}")
        refuse_overwrite(self.found, self.target, name, self.header)
        data = text.encode("utf-8")
        try:
            if not self._keep_unchanged(name, data):
                with open(self.path / name, "wb") as handle:
                    handle.write(data)
        except OSError as err:
            raise OutputDirError(f"cannot write {self.target}: {err.strerror or err}") from None
        self.names.append(name)
        checksum = digest(name, text)
        if checksum is not None:
            self.digests[name] = checksum

    def _keep_unchanged(self, name: str, data: bytes) -> bool:
        """Our file of the same bytes is hard-linked into the new version instead of written again: regenerating
        a directory of thousands of unchanged files then costs a link each, not a new file's blocks and journal
        (render over its own output was several times slower than into a new directory). Anything but our regular
        file, as first seen, with exactly these bytes, is written as usual; a change made to it after this check
        stops the swap (:meth:`_refuse_changes_made_meanwhile`)."""
        old = self.owned.get(name)
        seen = self.found.seen or {}
        if old is None or name not in seen:
            return False
        try:
            st = os.lstat(old)
            if not stat.S_ISREG(st.st_mode) or _fingerprint(st) != seen[name] or st.st_size != len(data):
                return False
            with open(old, "rb") as handle:
                if handle.read(len(data) + 1) != data:
                    return False
            os.link(old, self.path / name, follow_symlinks=False)
        except (OSError, NotImplementedError):
            return False  # gone meanwhile, unreadable, or a file system without hard links: written as usual
        self.unchanged.add(name)
        return True

    def commit(self, kustomization_text: str | None) -> Changes:
        """Add kustomization.yaml (with the record of our JSON files), carry over the user's files, check nothing
        changed since the start, and swap the directory in."""
        if kustomization_text is not None:
            refuse_foreign_listing(self.found, self.target, self.header)
            self.add(KUSTOMIZATION, with_record(kustomization_text, self.digests))
        changes = Changes(notices=self.notices)
        for name in self.names:
            old = self.owned.get(name)
            if old is None:
                changes.added.append(name)
            elif name not in self.unchanged and old.read_bytes() != (self.path / name).read_bytes():
                changes.changed.append(name)
        changes.removed = sorted(set(self.owned) - set(self.names))
        try:
            for name, path in self.foreign.items():
                _carry(path, self.path / name)
            swap.set_final_mode(self.path, self.target)
            self._refuse_changes_made_meanwhile()
            swap.swap(self.path, self.target)
        except OutputDirError:
            self.abort()
            raise
        except OSError as err:
            self.abort()
            raise OutputDirError(f"cannot write {self.target}: {err.strerror or err}") from None
        return changes

    def _refuse_changes_made_meanwhile(self) -> None:
        """The old directory goes away with the swap: anything in it that is not as first seen would be lost."""
        now = _entries(self.target)
        current = None if now is None else {name: _fingerprint(st) for name, st in now.items()}
        if current == self.found.seen:
            return
        before, after = self.found.seen or {}, current or {}
        differing = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
        where = self.target / differing[0] if differing else self.target
        raise OutputDirError(f"{where} changed while {self.command} ran; nothing written (run it again)")

    def abort(self) -> None:
        """Forget everything written so far; the target directory is untouched."""
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o700)  # it may have the old directory's mode already, read-only included
        shutil.rmtree(self.path, ignore_errors=True)


def _carry(path: Path, destination: Path) -> None:
    """The user's file into the new directory: the same inode (owner, group, mode, later edits all kept), or where
    the file system refuses a hard link, a copy with its mode, times and (as far as allowed) owner."""
    try:
        os.link(path, destination, follow_symlinks=False)
        return
    except (OSError, NotImplementedError):
        pass
    shutil.copy2(path, destination, follow_symlinks=False)
    st = os.lstat(path)
    if hasattr(os, "chown"):
        with contextlib.suppress(OSError):  # only root gives a file away: else the copy is ours, with their content
            os.chown(destination, st.st_uid, st.st_gid, follow_symlinks=False)
