"""Expand command-line paths into input sources: files, directories (recursive) and stdin."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kubectl_testbench.load.limits import Limits
from kubectl_testbench.rules.input import INPUT_NOT_A_FILE, INPUT_NOT_FOUND, INPUT_TOO_LARGE, INPUT_UNREADABLE

STDIN = "-"
EXTENSIONS = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class Source:
    """One input: its display name, and whether a directory scan found it (not named explicitly)."""

    path: str
    scanned: bool = False
    root: str = ""
    """The command-line argument this source came from (a directory for scanned files)."""
    chart: bool = False
    """A Helm chart's directory a scan met (it holds Chart.yaml): its files are chart sources, not manifests, and
    are not read; the caller says so once."""


class SourceError(Exception):
    """An input that cannot be read at all (missing, a directory loop, not a regular file, too big)."""

    def __init__(self, path: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.rule = rule
        self.message = message


def expand(paths: list[str] | tuple[str, ...], charts: bool = False) -> Iterator[Source | SourceError]:
    """Sources in a stable order: arguments as given, directory contents sorted by name.

    Directory scans take ``*.yaml``, ``*.yml`` and ``*.json``, skip dot-files and dot-directories
    (``.git``, ``.github``), do not follow symlinked directories (no loops) and skip special files. With
    ``charts``, a Helm chart a scan meets comes once, as a chart source, instead of its files.
    """
    seen_stdin = False
    for path in paths:
        if path == STDIN:
            if not seen_stdin:
                seen_stdin = True
                yield Source(STDIN, root=STDIN)
            continue
        try:
            st = os.stat(path)
        except FileNotFoundError:
            yield SourceError(path, INPUT_NOT_FOUND.id, "no such file or directory")
            continue
        except OSError as err:
            yield SourceError(path, INPUT_UNREADABLE.id, err.strerror or str(err))
            continue
        if stat.S_ISDIR(st.st_mode):
            yield from _scan(path, path, charts)
        elif stat.S_ISREG(st.st_mode):
            yield Source(path, root=path)
        else:
            yield SourceError(path, INPUT_NOT_A_FILE.id, "not a regular file")


CHART_FILES = ("Chart.yaml", "Chart.yml")
"""What makes a directory a Helm chart (helm reads Chart.yaml; Chart.yml is a common slip helm refuses)."""


def _scan(directory: str, root: str, charts_apart: bool) -> Iterator[Source | SourceError]:
    """The files a scan finds; a Helm chart below ``directory`` comes once, as its directory, instead of its files
    (Chart.yaml, values files, templates: none of them is a manifest; what the chart renders is)."""
    charts: dict[str, bool] = {}

    def chart_of(path: str) -> str | None:
        parent = os.path.dirname(path)
        found = None
        while len(parent) >= len(directory):  # the outermost chart holds its subcharts
            if parent not in charts:
                charts[parent] = any(os.path.isfile(os.path.join(parent, name)) for name in CHART_FILES)
            if charts[parent]:
                found = parent
            if parent == directory:
                break
            parent = os.path.dirname(parent)
        return found

    reported: set[str] = set()
    for path, err in scan_tree(directory, lambda name: name.endswith(EXTENSIONS)):
        chart = chart_of(path) if err is None and charts_apart else None
        if chart is not None:
            if chart not in reported:
                reported.add(chart)
                yield Source(chart, scanned=True, root=root, chart=True)
        elif err is None:
            yield Source(path, scanned=True, root=root)
        else:
            yield SourceError(path, INPUT_UNREADABLE.id, err.strerror or str(err))


def scan_tree(directory: str, wanted: Callable[[str], bool]) -> Iterator[tuple[str, OSError | None]]:
    """The files below ``directory`` whose name is ``wanted``, as ``(path, None)``, sorted by name level by level.

    Dot-files and dot-directories (``.git``, ``.github``) are skipped, symlinked directories are not followed
    (no loops), symlinked files are, special files are skipped. A directory that cannot be listed, or an entry
    that cannot be examined (a permission problem), comes as ``(path, error)`` in its place: the caller decides
    whether that ends the scan. The one directory scanner of the package (validate's inputs, importers' inputs).
    """
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as err:
        yield directory, err
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from scan_tree(entry.path, wanted)
            elif wanted(entry.name) and entry.is_file(follow_symlinks=True):
                yield entry.path, None
        except OSError as err:  # a dangling symlink or a permission problem on one entry
            yield entry.path, err


def read_bytes(source: Source, limits: Limits) -> bytes:
    """The whole input, refusing anything above ``limits.max_file_bytes`` before reading it."""
    limit = limits.max_file_bytes
    try:
        if source.path == STDIN:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(source.path, "rb") as handle:
                if os.fstat(handle.fileno()).st_size > limit:
                    raise _too_big(source.path, limit)
                data = handle.read(limit + 1)
    except SourceError:
        raise
    except OSError as err:
        raise SourceError(source.path, INPUT_UNREADABLE.id, err.strerror or str(err)) from None
    if len(data) > limit:
        raise _too_big(source.path, limit)
    return data


def _too_big(path: str, limit: int) -> SourceError:
    return SourceError(path, INPUT_TOO_LARGE.id, f"larger than the {limit // (1024 * 1024)} MiB limit "
                       "(raise with --max-file-size)")
