"""LSP positions at their edges: code units inside and past a character, offsets before and after the text,
lines past the end, edits given end first, and an index that follows the negotiated encoding."""

from __future__ import annotations

import json

import pytest

from kubectl_testbench.lsp.text import (
    UTF8,
    UTF16,
    UTF32,
    Document,
    Position,
    TextIndex,
    chars_for_units,
    units,
)


@pytest.mark.parametrize(("count", "utf16", "utf8", "utf32"), [
    (-1, 0, 0, 0),
    (0, 0, 0, 0),
    (1, 1, 1, 1),  # after "a"
    (2, 1, 1, 2),  # inside the emoji (UTF-16, UTF-8): before it
    (3, 2, 1, 3),  # just after the emoji in UTF-16
    (4, 3, 1, 3),
    (5, 3, 2, 3),  # just after the emoji in UTF-8
    (6, 3, 3, 3),
    (99, 3, 3, 3),  # past the end: the line's length
])
def test_characters_spanned_by_a_count_of_code_units(count: int, utf16: int, utf8: int, utf32: int) -> None:
    text = "a😀b"
    assert chars_for_units(text, count, UTF16) == utf16
    assert chars_for_units(text, count, UTF8) == utf8
    assert chars_for_units(text, count, UTF32) == utf32


def test_ascii_text_counts_one_unit_per_character_in_every_encoding() -> None:
    for encoding in (UTF8, UTF16, UTF32):
        assert units("key: value", encoding) == 10
        assert chars_for_units("key: value", 4, encoding) == 4
        assert chars_for_units("key: value", -3, encoding) == 0
        assert chars_for_units("key: value", 50, encoding) == 10


def test_utf8_counts_bytes_and_utf16_counts_pairs() -> None:
    assert units("é😀", UTF8) == 6
    assert units("é😀", UTF16) == 3
    assert units("é😀", UTF32) == 2


def test_positions_of_offsets_outside_the_text_are_clamped() -> None:
    index = TextIndex("ab\ncd")
    assert index.position(-1) == Position(0, 0)
    assert index.position(5) == Position(1, 2)
    assert index.position(40) == Position(1, 2)
    assert index.position(3) == Position(1, 0)
    assert index.position(2) == Position(0, 2)


def test_offsets_of_positions_outside_the_text() -> None:
    index = TextIndex("ab\ncd\n")
    assert index.offset(Position(-1, 5)) == 0
    assert index.offset(Position(2, 0)) == 6  # the empty line after the last break exists
    assert index.offset(Position(2, 7)) == 6
    assert index.offset(Position(3, 0)) == 6
    assert index.offset(Position(1, -2)) == 3


def test_an_edit_whose_end_comes_first_replaces_the_same_span() -> None:
    doc = Document("file:///x.yaml", "key: old\n")
    doc.apply(Position(0, 8), Position(0, 5), "new", UTF16)
    assert doc.text == "key: new\n"


def test_the_index_follows_the_encoding_asked_for_and_the_latest_text() -> None:
    doc = Document("file:///x.yaml", "k: 😀x\n")
    assert doc.index(UTF16).position(doc.text.index("x")) == Position(0, 5)
    assert doc.index(UTF8).position(doc.text.index("x")) == Position(0, 7)
    assert doc.index(UTF32).position(doc.text.index("x")) == Position(0, 4)
    doc.text = "kk\nk: 😀x\n"  # the server replaces the text on didChange
    assert doc.index(UTF32).position(doc.text.index("x")) == Position(1, 4)
    doc.apply(Position(1, 0), Position(1, 1), "", UTF32)
    assert doc.index(UTF32).position(doc.text.index("x")) == Position(1, 3)


def test_an_edit_counts_in_the_negotiated_encoding() -> None:
    doc = Document("file:///x.yaml", "k: 😀x\n")
    doc.apply(Position(0, 7), Position(0, 8), "y", UTF8)  # after the emoji's four bytes
    assert doc.text == "k: 😀y\n"


def test_a_change_without_a_full_range_replaces_the_whole_text() -> None:
    for start, end in ((Position(0, 1), None), (None, Position(0, 1)), (None, None)):
        doc = Document("file:///x.yaml", "old\n")
        doc.apply(start, end, "new\n", UTF16)
        assert doc.text == "new\n"


def test_code_unit_counts_are_integers_as_json_rpc_sends_them() -> None:
    assert json.dumps([units("a😀", UTF16), units("é", UTF8), units("é", UTF32)]) == "[3, 2, 1]"
    assert json.dumps(TextIndex("é😀x").position(3).character) == "4"
