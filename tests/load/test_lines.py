"""The one line index: each line-break rule counts the lines its reader counts, and indentation widths."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kubectl_testbench.load.lines import (
    EDITOR_BREAK,
    JSON_BREAK,
    SPLITLINES_BREAK,
    YAML_BREAK,
    LineIndex,
    indent_width,
)

BREAKING = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character that ends a line under one of the rules (``str.splitlines`` breaks at the most)."""
TEXT = st.text(st.sampled_from("ab \t" + BREAKING), max_size=40)


@pytest.mark.parametrize(("source", "offset", "position"), [
    ("ab\ncd", 0, (1, 1)), ("ab\ncd", 2, (1, 3)), ("ab\ncd", 3, (2, 1)), ("ab\r\ncd", 4, (2, 1)),
    ("ab\rcd", 3, (2, 1)), ("ab\ncd\n", 6, (3, 1)),
])
def test_line_index_counts_every_kind_of_line_break(source: str, offset: int, position: tuple[int, int]) -> None:
    assert LineIndex(source).position(offset) == position


def test_lines_break_where_their_rules_say_and_clamp_offsets() -> None:
    lines = LineIndex("ab\r\ncd\re\n")
    assert len(lines) == 4
    assert lines.starts == [0, 4, 7, 9]
    assert lines.ends == [2, 6, 8, 9]
    assert [lines.content(n) for n in range(4)] == ["ab", "cd", "e", ""]
    assert lines.line_of(-3) == 0
    assert lines.line_of(0) == 0
    assert lines.line_of(3) == 0  # inside the CRLF: the line it ends
    assert lines.line_of(4) == 1
    assert lines.line_of(100) == 3


@pytest.mark.parametrize(("line", "column", "offset"), [
    (0, 0, 0),
    (0, 1, 1),
    (0, 2, 2),
    (0, 5, 2),  # clamped to the content, never into the CRLF
    (0, -4, 0),
    (1, 1, 5),
    (1, 9, 6),  # clamped to its own line's content
    (2, 5, 8),
    (-2, 1, 1),  # a negative line is the first one
    (2, 0, 7),
    (3, 0, 9),  # the empty last line
    (4, 0, 9),  # past the last line: the end of the text
    (9, 3, 9),
])
def test_offset_of_an_engine_line_and_column(line: int, column: int, offset: int) -> None:
    assert LineIndex("ab\r\ncd\re\n").offset_of(line, column) == offset


def test_the_editor_rule_ends_lines_at_crlf_cr_and_lf_only() -> None:
    """LSP's rule (and the fixes' line:column): NEL, U+2028 and form feeds are characters of the line."""
    lines = LineIndex("a\x85b\u2028c\x0cd\r\ne\rf\ng", EDITOR_BREAK)
    assert [lines.content(n) for n in range(len(lines))] == ["a\x85b\u2028c\x0cd", "e", "f", "g"]
    assert LineIndex("x").starts == LineIndex("x", EDITOR_BREAK).starts  # the default rule


def test_the_yaml_rule_counts_the_lines_libyaml_counts() -> None:
    text = "a: 1\x85b: 2\u2028c: 3\u2029d: 4\r\ne: [\n"
    with pytest.raises(yaml.MarkedYAMLError) as caught:
        yaml.load(text, Loader=yaml.CSafeLoader)
    mark = caught.value.problem_mark
    assert mark is not None
    assert LineIndex(text, YAML_BREAK).position(mark.index) == (mark.line + 1, mark.column + 1)
    assert len(LineIndex(text, YAML_BREAK)) == 6


def test_the_json_rule_ends_lines_at_lf_only() -> None:
    lines = LineIndex('{"a":\r1,\u2028"b":\x852}\n{}', JSON_BREAK)
    assert len(lines) == 2
    assert lines.position(lines.text.index("{}")) == (2, 1)


@given(TEXT)
def test_the_splitlines_rule_is_str_splitlines(text: str) -> None:
    """The lines split_documents counts: a document's start_line maps back to its offset."""
    lines = LineIndex(text, SPLITLINES_BREAK)
    assert lines.with_breaks() == text.splitlines(keepends=True)
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True)):
        assert lines.start(number) == offset
        offset += len(line)
    assert lines.start(len(text.splitlines())) == len(text)  # just past the last line: the end of the text


@given(TEXT)
def test_with_breaks_keeps_the_editor_lines_and_their_breaks(text: str) -> None:
    lines = LineIndex(text).with_breaks()
    assert "".join(lines) == text
    assert lines == re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def test_start_past_the_last_line_is_the_end_of_the_text() -> None:
    lines = LineIndex("a\nb")
    assert [lines.start(n) for n in range(4)] == [0, 2, 3, 3]


@pytest.mark.parametrize(("line", "spaces", "with_tabs"), [
    ("", 0, 0),
    ("key: 1", 0, 0),
    ("  key: 1", 2, 2),
    ("\tkey: 1", 0, 1),  # YAML: a tab is content, not indentation
    ("  \t key", 2, 4),  # a tab counts as one character, not up to a tab stop
    ("\t  key", 0, 3),
    ("    ", 4, 4),
    ("  # note", 2, 2),
    ("\u00a0 key", 0, 0),  # other white space is content under both rules
])
def test_indent_width_counts_spaces_and_tabs_only_when_asked(line: str, spaces: int, with_tabs: int) -> None:
    assert indent_width(line) == spaces
    assert indent_width(line, tabs=True) == with_tabs
