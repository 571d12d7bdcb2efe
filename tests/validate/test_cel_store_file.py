"""The user's cache of CEL outcomes as a file: what is kept (the newest outcomes, keys up to the limit),
when it is written (only by the process that loaded it, only when it grew, atomically) and which files
are ignored (another version or celpy, another shape)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kubectl_testbench.validate.cel import store as cel_store


def _saved(directory: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((directory / cel_store.FILE_NAME).read_text(encoding="utf-8"))
    return data


def test_keys_up_to_the_limit_are_remembered_and_longer_ones_are_not(tmp_path: Path) -> None:
    store = cel_store.Store(tmp_path)
    longest, too_long = "k" * cel_store.MAX_KEY, "k" * (cel_store.MAX_KEY + 1)
    store.put_outcome(too_long, [True, "", "", []])
    assert store.outcomes == {} and not store.dirty
    store.put_outcome(longest, [False, "m", "", []])
    assert store.outcomes == {longest: [False, "m", "", []]} and store.dirty


def test_the_file_keeps_the_newest_outcomes_up_to_the_limit(tmp_path: Path) -> None:
    store = cel_store.Store(tmp_path)
    for i in range(cel_store.MAX_OUTCOMES + 1):
        store.put_outcome(f"key{i}", [True, "", "", []])
    store.put_analysis("rule", {"presence": [], "values": [[]], "transition": False})
    store.save()
    data = _saved(tmp_path)
    outcomes = data["outcomes"]
    assert isinstance(outcomes, dict) and len(outcomes) == cel_store.MAX_OUTCOMES
    assert "key0" not in outcomes and "key1" in outcomes and f"key{cel_store.MAX_OUTCOMES}" in outcomes
    assert data["analyses"] == {"rule": {"presence": [], "values": [[]], "transition": False}}
    assert data["stamp"] == store.stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == [cel_store.FILE_NAME], "no temporary file is left"
    reloaded = cel_store.Store(tmp_path)
    assert reloaded.outcomes == outcomes and not reloaded.dirty


def test_nothing_is_written_when_nothing_was_added(tmp_path: Path) -> None:
    cel_store.Store(tmp_path).save()
    assert not (tmp_path / cel_store.FILE_NAME).exists()


def test_a_worker_process_never_writes_the_file(tmp_path: Path) -> None:
    store = cel_store.Store(tmp_path)
    store.put_outcome("k", [True, "", "", []])
    store.owner = os.getpid() + 1  # as in a forked worker: the store was loaded by its parent
    store.save()
    assert not (tmp_path / cel_store.FILE_NAME).exists()


def test_a_second_save_writes_only_what_was_added_since(tmp_path: Path) -> None:
    store = cel_store.Store(tmp_path)
    store.put_outcome("a", [True, "", "", []])
    store.save()
    (tmp_path / cel_store.FILE_NAME).write_text("{}")  # someone else's write in between
    store.save()
    assert (tmp_path / cel_store.FILE_NAME).read_text() == "{}", "the store had nothing new to write"
    store.put_outcome("b", [True, "", "", []])
    store.save()
    assert set(_saved(tmp_path)["outcomes"]) == {"a", "b"}  # type: ignore[arg-type]


def test_a_cache_directory_that_went_away_is_no_error(tmp_path: Path) -> None:
    store = cel_store.Store(tmp_path / "gone")
    store.put_outcome("k", [True, "", "", []])
    store.save()
    assert not (tmp_path / "gone").exists()


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = cel_store.Store(tmp_path)
    store.put_outcome("k", [True, "", "", []])

    def refuse(src: object, dst: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(os, "replace", refuse)
    store.save()
    assert list(tmp_path.iterdir()) == []


def test_without_a_cache_directory_nothing_is_loaded_or_written(tmp_path: Path) -> None:
    store = cel_store.Store(None)
    store.put_outcome("k", [True, "", "", []])
    store.save()
    assert store.path is None and store.outcomes == {"k": [True, "", "", []]}
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("payload", [
    [1, 2],
    {"analyses": {}, "outcomes": {"k": [True, "", "", []]}},
    {"stamp": "STAMP", "analyses": [], "outcomes": {"k": [True, "", "", []]}},
    {"stamp": "STAMP", "analyses": {}, "outcomes": [["k", [True, "", "", []]]]},
    {"stamp": "STAMP", "outcomes": {"k": [True, "", "", []]}},
])
def test_a_file_of_another_shape_is_ignored(tmp_path: Path, payload: object) -> None:
    stamp = cel_store.Store(None).stamp
    text = json.dumps(payload).replace("STAMP", stamp)
    (tmp_path / cel_store.FILE_NAME).write_text(text)
    store = cel_store.Store(tmp_path)
    assert (store.analyses, store.outcomes) == ({}, {})


def test_a_file_of_this_version_is_loaded(tmp_path: Path) -> None:
    stamp = cel_store.Store(None).stamp
    (tmp_path / cel_store.FILE_NAME).write_text(json.dumps(
        {"stamp": stamp, "analyses": {"r": {"presence": []}}, "outcomes": {"k": [True, "", "", []]}}))
    store = cel_store.Store(tmp_path)
    assert (store.analyses, store.outcomes) == ({"r": {"presence": []}}, {"k": [True, "", "", []]})


def test_the_stamp_names_our_version_and_the_installed_celpy(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    import celpy

    from kubectl_testbench import __version__

    st = os.stat(celpy.__file__)
    assert cel_store.Store(None).stamp == f"{__version__}|{celpy.__file__}:{st.st_size}:{int(st.st_mtime)}"
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert cel_store.Store(None).stamp == f"{__version__}|missing"


def test_the_process_store_lives_in_the_private_cache_directory(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECTL_TESTBENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cel_store, "_STORE", None)
    store = cel_store.store()
    assert store.path == tmp_path / "kubectl-testbench" / cel_store.FILE_NAME
    assert cel_store.store() is store


def test_a_process_that_remembers_one_outcome_writes_it_at_exit(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("from pathlib import Path; from kubectl_testbench.validate.cel.store import Store;"
            f"s = Store(Path({str(tmp_path)!r})); s.put_outcome('k', [True, '', '', []])")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert _saved(tmp_path)["outcomes"] == {"k": [True, "", "", []]}
    code = "from kubectl_testbench.validate.cel.store import Store; s = Store(None); s.put_outcome('k', [True])"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [cel_store.FILE_NAME]
