"""Finding and reading result files: a file, a directory of downloaded executions, a tar archive, or stdin.

``testkube download artifacts ID --download-dir DIR`` keeps the artifact's path, so one execution lands in
``DIR/data/experiments/evaluated_experiment.json``; a directory holding one sub-directory per execution
yields one run per file found, in path order. Tar archives (the API's ``artifact-archive``) are read in
memory, never extracted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kubectl_testbench.results.model import ResultsError, Run, parse_text

STDIN = "-"
RESULT_FILE = "evaluated_experiment.json"
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz")
MAX_ARCHIVE_MEMBER = 512 * 1024 * 1024


@dataclass(frozen=True)
class Document:
    """Raw bytes of one result file and the name to report it by."""

    source: str
    data: bytes


def decode(data: bytes, source: str) -> str:
    """UTF-8 (a byte-order mark is tolerated); a bad byte is reported with its offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ResultsError(source, f"not UTF-8 text (byte {err.start}: {err.reason})") from None


def parse_document_bytes(doc: Document) -> Run:
    text = decode(doc.data, doc.source)
    if not text.strip():
        raise ResultsError(doc.source, "empty input: expected the JSON of evaluated_experiment.json")
    return parse_text(text, doc.source)


def find_results(directory: Path) -> list[Path]:
    """Every ``evaluated_experiment.json`` below ``directory`` (symlinked directories not followed), sorted."""
    found: list[Path] = []
    for root, dirs, files in os.walk(directory, followlinks=False):
        dirs.sort()
        if RESULT_FILE in files:
            found.append(Path(root) / RESULT_FILE)
    return sorted(found)


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ResultsError(path, "no such file or directory") from None
    except IsADirectoryError:
        raise ResultsError(path, "is a directory") from None
    except OSError as err:
        raise ResultsError(path, f"cannot read: {err.strerror or err}") from None


def _read_archive(path: str) -> list[Document]:
    import tarfile

    try:
        with tarfile.open(path, "r:*") as archive:
            docs = []
            for member in sorted(archive.getmembers(), key=lambda m: m.name):
                if not member.isfile() or Path(member.name).name != RESULT_FILE:
                    continue
                if member.size > MAX_ARCHIVE_MEMBER:
                    raise ResultsError(f"{path}!{member.name}", f"larger than {MAX_ARCHIVE_MEMBER // 2**20} MiB")
                handle = archive.extractfile(member)
                if handle is not None:
                    docs.append(Document(f"{path}!{member.name}", handle.read()))
    except (tarfile.TarError, EOFError, OSError) as err:
        raise ResultsError(path, f"cannot read the archive: {err}") from None
    if not docs:
        raise ResultsError(path, f"no {RESULT_FILE} in this archive")
    return docs


def read_source(path: str, stdin: BinaryIO | None = None) -> list[Document]:
    """One argument to documents: ``-`` is stdin, a directory is searched, an archive is opened."""
    if path == STDIN:
        if stdin is None:
            raise ResultsError("stdin", "no standard input to read")
        return [Document("stdin", stdin.read())]
    if os.path.isdir(path):
        found = find_results(Path(path))
        if not found:
            raise ResultsError(path, f"no {RESULT_FILE} below this directory (expected one per execution, as "
                               f"`testkube download artifacts ID --download-dir {path}/ID` writes it)")
        return [Document(str(f), _read_file(str(f))) for f in found]
    if path.endswith(ARCHIVE_SUFFIXES) and os.path.isfile(path):
        return _read_archive(path)
    return [Document(path, _read_file(path))]


def load_runs(paths: Sequence[str], stdin: BinaryIO | None = None) -> list[Run]:
    """Read and parse every source, in argument order; the first unreadable one raises :class:`ResultsError`."""
    if sum(1 for p in paths if p == STDIN) > 1:
        raise ResultsError("stdin", "'-' can be given only once")
    return [parse_document_bytes(doc) for path in paths for doc in read_source(path, stdin)]
