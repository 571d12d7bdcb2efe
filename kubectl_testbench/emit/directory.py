"""A directory of generated manifests, replaced as a whole and only where we own it.

Ownership: our ``kustomization.yaml`` starts with the writer's header line (one per command: render,
install) and lists the files we wrote; YAML files also start with that header. Files in neither are the
user's: kept, copied across, never overwritten. (JSON cannot carry a comment, hence the listing.)
The new content is built in a sibling temp directory and swapped in by rename, so an interrupted run
leaves either the old or the new directory, never a mix.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kubectl_testbench.emit.headers import HEADER, INSTALL_HEADER_MARK

KUSTOMIZATION = "kustomization.yaml"
_FOREIGN_COPY_LIMIT = 16 * 1024 * 1024


class OutputDirError(Exception):
    """The output directory cannot be written safely; nothing was changed."""


@dataclass
class Changes:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

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


def writer_of(first_line: str) -> str | None:
    """Which of our commands wrote a file that starts with ``first_line`` (render, install), or None."""
    if first_line == HEADER:
        return "kubectl testbench render"
    if first_line.startswith(INSTALL_HEADER_MARK):
        return "kubectl testbench install"
    return None


def _first_line(path: Path) -> str:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.readline().rstrip("\r\n")
    except OSError:
        return ""


def _listed(kustomization_file: Path) -> set[str]:
    import yaml

    try:
        doc = yaml.safe_load(kustomization_file.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return set()
    resources = doc.get("resources") if isinstance(doc, dict) else None
    return {r for r in resources if isinstance(r, str) and "/" not in r} if isinstance(resources, list) else set()


def _existing(target: Path, header: str = HEADER) -> tuple[dict[str, Path], dict[str, Path], list[str]]:
    """The files a writer with ``header`` owns, the user's files, and subdirectories."""
    owned: dict[str, Path] = {}
    foreign: dict[str, Path] = {}
    dirs: list[str] = []
    if not target.exists():
        return owned, foreign, dirs
    entries = sorted(target.iterdir())
    listed: set[str] = set()
    kustomization_file = target / KUSTOMIZATION
    if kustomization_file.is_file() and _first_line(kustomization_file) == header:
        listed = _listed(kustomization_file) | {KUSTOMIZATION}
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            dirs.append(entry.name)
        elif entry.is_file() and not entry.is_symlink() and (entry.name in listed or _first_line(entry) == header):
            owned[entry.name] = entry
        else:
            foreign[entry.name] = entry
    return owned, foreign, dirs


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
        if self.target.exists() and not self.target.is_dir():
            raise OutputDirError(f"{self.target} exists and is not a directory")
        self.owned, self.foreign, dirs = _existing(self.target, header)
        other = writer_of(_first_line(self.target / KUSTOMIZATION)) if KUSTOMIZATION in self.foreign else None
        if other is not None:
            raise OutputDirError(f"{self.target} holds what {other} wrote (its {KUSTOMIZATION} says so); render and "
                                 "install each need a directory of their own: choose another --output-dir")
        if dirs:
            raise OutputDirError(f"{self.target} contains directories ({', '.join(dirs[:3])}); render owns a flat "
                                 "directory of manifests: choose an empty or new --output-dir")
        if sum(p.stat().st_size for p in self.foreign.values()) > _FOREIGN_COPY_LIMIT:
            raise OutputDirError(f"{self.target} holds more than 16 MiB of other files; choose a dedicated "
                                 "--output-dir")
        parent = self.target.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.new-", dir=parent))
        except OSError as err:
            raise OutputDirError(f"cannot write to {parent}: {err.strerror or err}") from None
        self.names: list[str] = []

    def add(self, name: str, text: str) -> None:
        if not name or name != os.path.basename(name) or name in (".", ".."):
            raise OutputDirError(f"not a plain file name: {name!r}")
        if name in self.foreign:
            raise OutputDirError(f"{self.target / name} was not written by kubectl-testbench; refusing to overwrite it")
        try:
            with open(self.path / name, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as err:
            raise OutputDirError(f"cannot write {self.target}: {err.strerror or err}") from None
        self.names.append(name)

    def commit(self, kustomization_text: str | None) -> Changes:
        """Add kustomization.yaml, carry over the user's files, and swap the directory in."""
        if kustomization_text is not None:
            self.add(KUSTOMIZATION, kustomization_text)
        changes = Changes()
        for name in self.names:
            old = self.owned.get(name)
            if old is None:
                changes.added.append(name)
            elif old.read_bytes() != (self.path / name).read_bytes():
                changes.changed.append(name)
        changes.removed = sorted(set(self.owned) - set(self.names))
        try:
            for name, path in self.foreign.items():
                shutil.copy2(path, self.path / name, follow_symlinks=False)
            os.chmod(self.path, 0o777 & ~_umask())
            _swap(self.path, self.target)
        except OSError as err:
            self.abort()
            raise OutputDirError(f"cannot write {self.target}: {err.strerror or err}") from None
        return changes

    def abort(self) -> None:
        """Forget everything written so far; the target directory is untouched."""
        shutil.rmtree(self.path, ignore_errors=True)


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        os.rename(staging, target)
        return
    backup = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(backup)
    os.rename(target, backup)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(backup, target)
        raise
    shutil.rmtree(backup, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
