"""Where the CEL parser and outcomes are cached (a directory only we can write, or none), and what building
the environment leaves behind in the process: the precompiled parser, the caller's recursion limit."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.validate.cel import environment as cel_env
from kubectl_testbench.validate.cel import parser_tables as cel_tables


@pytest.fixture()
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KUBECTL_TESTBENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def test_the_cache_is_a_new_private_directory_under_xdg_cache_home(cache_home: Path) -> None:
    directory = cel_env.private_cache_dir()
    assert directory == cache_home / "kubectl-testbench"
    assert stat.S_IMODE(directory.stat().st_mode) & 0o077 == 0, "nobody else may read or write it"


def test_without_xdg_cache_home_the_cache_is_under_the_home_directory(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECTL_TESTBENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cel_env.private_cache_dir() == tmp_path / ".cache" / "kubectl-testbench"


def test_no_cache_is_used_when_the_user_says_so(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECTL_TESTBENCH_NO_CACHE", "1")
    assert cel_env.private_cache_dir() is None
    assert not cache_home.exists(), "not even created"


@pytest.mark.parametrize("mode", [0o720, 0o702, 0o777])
def test_a_directory_others_can_write_is_not_used(cache_home: Path, mode: int) -> None:
    directory = cache_home / "kubectl-testbench"
    directory.mkdir(parents=True)
    directory.chmod(mode)
    assert cel_env.private_cache_dir() is None


@pytest.mark.parametrize("mode", [0o700, 0o750, 0o755])
def test_a_directory_others_can_only_read_is_used(cache_home: Path, mode: int) -> None:
    directory = cache_home / "kubectl-testbench"
    directory.mkdir(parents=True)
    directory.chmod(mode)
    assert cel_env.private_cache_dir() == directory


def test_a_directory_another_user_owns_is_not_used(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (cache_home / "kubectl-testbench").mkdir(parents=True, mode=0o700)
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)
    assert cel_env.private_cache_dir() is None


def test_a_directory_we_cannot_write_is_not_used(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = cache_home / "kubectl-testbench"
    directory.mkdir(parents=True, mode=0o700)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, m: False if Path(p) == directory and m == os.W_OK
                        else real_access(p, m))
    assert cel_env.private_cache_dir() is None


def test_a_cache_path_that_cannot_be_a_directory_is_not_used(cache_home: Path) -> None:
    cache_home.parent.mkdir(parents=True, exist_ok=True)
    cache_home.write_text("a file where the cache home should be")
    assert cel_env.private_cache_dir() is None


def test_the_built_parser_is_cached_in_the_private_directory(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import lark

    monkeypatch.setattr(cel_tables, "load", lambda path=None: None)
    parser = cel_env.parser()
    assert parser.parse("1 + 2 == 3").data == "expr"
    cached = cache_home / "kubectl-testbench" / f"cel-parser-lark{lark.__version__}.pickle"
    assert cached.is_file()


def test_the_built_parser_parses_as_celpy_asks_and_never_in_debug_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECTL_TESTBENCH_NO_CACHE", "1")
    monkeypatch.setattr(cel_tables, "load", lambda path=None: None)
    parser = cel_env.parser()
    options = parser.options
    assert (options.parser, options.start, options.debug, options.priority) == ("lalr", ["expr"], False, "invert")
    tree = parser.parse("self.a\n  > 1")
    assert (tree.meta.line, tree.meta.end_line) == (1, 2), "positions are propagated for error carets"


def test_building_the_environment_installs_the_precompiled_parser_and_keeps_the_recursion_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import lark.parsers.lalr_analysis as analysis
    from celpy.celparser import CELParser

    analysed: list[Any] = []
    original = analysis.LALR_Analyzer.compute_lalr
    monkeypatch.setattr(analysis.LALR_Analyzer, "compute_lalr", lambda self: analysed.append(self) or original(self))
    monkeypatch.setattr(CELParser, "CEL_PARSER", None)
    monkeypatch.setenv("KUBECTL_TESTBENCH_NO_CACHE", "1")  # a Lark cache hit would hide a built parser
    limit = sys.getrecursionlimit()
    env = cel_env.build_environment()
    assert sys.getrecursionlimit() == limit
    assert CELParser.CEL_PARSER is not None and CELParser.CEL_PARSER.options.debug is False
    assert analysed == [], "the grammar was not analysed: the tables came with the package"
    assert env.compile("1 + 1 == 2") is not None


def test_the_environment_is_built_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cel_env, "_ENV", None)
    first = cel_env.environment()
    assert cel_env.environment() is first
