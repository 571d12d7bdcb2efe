"""Command-line paths to inputs: order, what a directory scan takes and skips, and each refusal with its rule."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.sources import Source, SourceError, expand, read_bytes, scan_tree


def _seen(paths: list[str], base: Path) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for item in expand(paths):
        if isinstance(item, Source):
            out.append(("source", os.path.relpath(item.path, base) if item.path != "-" else "-", str(item.scanned),
                        os.path.relpath(item.root, base) if item.root != "-" else "-"))
        else:
            out.append(("error", os.path.relpath(item.path, base), item.rule, item.message))
    return out


def test_a_directory_scan_is_sorted_recursive_and_takes_only_yaml_and_json(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yml", "c.json", "d.txt", "e.yaml.bak", ".hidden.yaml", "sub/z.yaml", ".git/x.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("a: 1\n")
    os.mkfifo(tmp_path / "pipe.yaml")
    os.symlink(tmp_path / "sub", tmp_path / "link")
    os.symlink(tmp_path / "b.yaml", tmp_path / "f.yaml")
    os.symlink(tmp_path / "missing.yaml", tmp_path / "g.yaml")
    assert _seen([str(tmp_path)], tmp_path) == [
        ("source", "a.yml", "True", "."), ("source", "b.yaml", "True", "."), ("source", "c.json", "True", "."),
        ("source", "f.yaml", "True", "."), ("source", "sub/z.yaml", "True", "."),
    ]


def test_arguments_keep_their_order_and_stdin_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("a: 1\n")
    (tmp_path / "a.yaml").write_text("a: 1\n")
    assert _seen([str(tmp_path / "b.txt"), "-", str(tmp_path / "a.yaml"), "-"], tmp_path) == [
        ("source", "b.txt", "False", "b.txt"), ("source", "-", "False", "-"), ("source", "a.yaml", "False", "a.yaml"),
    ]


def test_inputs_that_cannot_be_read_are_errors_with_a_rule(tmp_path: Path) -> None:
    (tmp_path / "file.yaml").write_text("a: 1\n")
    os.mkfifo(tmp_path / "pipe")
    os.symlink("loop", tmp_path / "loop")
    assert _seen([str(tmp_path / "missing.yaml"), str(tmp_path / "file.yaml" / "x"), str(tmp_path / "pipe"),
                  str(tmp_path / "loop")], tmp_path) == [
        ("error", "missing.yaml", "input/not-found", "no such file or directory"),
        ("error", "file.yaml/x", "input/unreadable", "Not a directory"),
        ("error", "pipe", "input/not-a-file", "not a regular file"),
        ("error", "loop", "input/unreadable", "Too many levels of symbolic links"),
    ]


def test_a_directory_that_cannot_be_listed_is_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text("a: 1\n")
    real = os.scandir

    def scandir(path: str) -> object:
        if path.endswith("sub"):
            raise PermissionError(13, "Permission denied")  # what a directory without read permission gives
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert _seen([str(tmp_path)], tmp_path) == [
        ("source", "a.yaml", "True", "."), ("error", "sub", "input/unreadable", "Permission denied")]


def test_read_bytes_takes_exactly_the_limit_and_refuses_one_byte_more(tmp_path: Path) -> None:
    limits = Limits(max_file_bytes=3 * 1024 * 1024)
    path = tmp_path / "a.yaml"
    path.write_bytes(b"#" * limits.max_file_bytes)
    assert read_bytes(Source(str(path)), limits) == b"#" * limits.max_file_bytes
    path.write_bytes(b"#" * (limits.max_file_bytes + 1))
    with pytest.raises(SourceError) as info:
        read_bytes(Source(str(path)), limits)
    assert (info.value.rule, info.value.message) == (
        "input/too-large", "larger than the 3 MiB limit (raise with --max-file-size)")


def test_stdin_is_read_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = Limits(max_file_bytes=4)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a: 1")))
    assert read_bytes(Source("-"), limits) == b"a: 1"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a: 12")))
    with pytest.raises(SourceError) as info:
        read_bytes(Source("-"), limits)
    assert (info.value.path, info.value.rule, info.value.message) == (
        "-", "input/too-large", "larger than the 0 MiB limit (raise with --max-file-size)")


def test_a_file_that_cannot_be_opened_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as info:
        read_bytes(Source(str(tmp_path)), Limits())
    assert (info.value.path, info.value.rule, info.value.message) == (
        str(tmp_path), "input/unreadable", "Is a directory")


def test_an_entry_that_cannot_be_examined_is_unreadable_and_the_scan_goes_on(tmp_path: Path) -> None:
    os.symlink("loop.yaml", tmp_path / "loop.yaml")
    (tmp_path / "next.yaml").write_text("a: 1\n")
    assert _seen([str(tmp_path)], tmp_path) == [
        ("error", "loop.yaml", "input/unreadable", "Too many levels of symbolic links"),
        ("source", "next.yaml", "True", "."),
    ]


def test_scan_tree_takes_the_names_asked_for_and_reports_what_it_cannot_examine(tmp_path: Path) -> None:
    """The one scanner behind validate's and the importers' directory arguments."""
    for name in ("b.csv", "a.txt", ".hidden.csv", "sub/c.csv", ".git/d.csv"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    os.symlink("sub", tmp_path / "linked")  # a symlinked directory is not followed
    os.symlink("loop.csv", tmp_path / "loop.csv")
    found = [(os.path.relpath(path, tmp_path), err is not None) for path, err in
             scan_tree(str(tmp_path), lambda name: name.endswith(".csv"))]
    assert found == [("b.csv", False), ("loop.csv", True), ("sub/c.csv", False)]


def test_an_importer_input_that_cannot_be_examined_is_an_import_error(tmp_path: Path) -> None:
    from kubectl_testbench.integrations.importers.common import ImportInputError, expand_inputs

    (tmp_path / "a.csv").write_text("x\n")
    os.symlink("loop.csv", tmp_path / "loop.csv")
    with pytest.raises(ImportInputError, match="Too many levels of symbolic links"):
        expand_inputs([str(tmp_path)], ["*.csv"], "CSV files")
    assert expand_inputs([str(tmp_path)], ["a.*"], "CSV files") == [str(tmp_path / "a.csv")]


class _Endless(io.RawIOBase):
    """A stdin that never ends (``yes | kubectl testbench validate -``)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        buffer[:] = b"y" * len(buffer)
        return len(buffer)


def test_an_endless_stdin_is_refused_after_reading_one_byte_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Endless())))
    with pytest.raises(SourceError) as info:
        read_bytes(Source("-"), Limits(max_file_bytes=1024 * 1024))
    assert (info.value.rule, str(info.value)) == (
        "input/too-large", "larger than the 1 MiB limit (raise with --max-file-size)")
