"""The precompiled CEL parser on its own terms (not only "the same as the built one"): celpy's lexer
callback turns keywords into literals, positions are kept for error carets, trees are plain Lark trees,
and it never runs in Lark's debug mode; a table file that is not a table is not loaded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import lark
import pytest

from kubectl_testbench.generate import cel_parser
from kubectl_testbench.validate.cel import parser_tables as cel_tables


@pytest.fixture(scope="module")
def parser() -> Any:
    loaded = cel_tables.load()
    assert loaded is not None
    return loaded


def test_keywords_are_literals_and_positions_are_kept(parser: Any) -> None:
    tree = parser.parse("true && null == x\n  || false")
    assert type(tree) is lark.Tree
    tokens = [(t.type, str(t)) for t in tree.scan_values(lambda _: True)]
    assert tokens == [("BOOL_LIT", "true"), ("NULL_LIT", "null"), ("IDENT", "x"), ("BOOL_LIT", "false")]
    [x] = [t for t in tree.scan_values(lambda t: t.type == "IDENT")]
    assert (x.line, x.column, x.end_pos) == (1, 17, 17)
    spanning = parser.parse("x\n  || y")
    assert (spanning.meta.line, spanning.meta.column, spanning.meta.end_line) == (1, 1, 2)


def test_the_loaded_parser_is_not_in_debug_mode_and_starts_at_expr(parser: Any) -> None:
    assert parser.options.debug is False
    assert parser.parse("1").data == "expr"


def test_the_stamp_names_the_installed_lark_and_celpys_grammar() -> None:
    import celpy

    grammar = (Path(celpy.__file__).parent / "cel.lark").read_bytes()
    assert cel_tables.stamp() == {"lark": lark.__version__, "grammar_sha256": hashlib.sha256(grammar).hexdigest()}
    assert json.loads(cel_tables.GENERATED.read_text(encoding="utf-8"))["stamp"] == cel_tables.stamp()


@pytest.mark.parametrize("text", ["[]", '"tables"', "null"])
def test_a_file_that_is_not_a_table_is_not_loaded(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    assert cel_tables.load(path) is None


def test_the_generated_tables_are_what_lark_builds_from_the_grammar_today() -> None:
    assert cel_parser.tables_text() == cel_tables.GENERATED.read_text(encoding="utf-8")
