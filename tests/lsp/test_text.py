"""LSP text positions: lines break at CRLF/CR/LF only, characters count UTF-16 units (or the negotiated
UTF-8/UTF-32), incremental edits land where the editor made them."""

from __future__ import annotations

import pytest

from kubectl_testbench.lsp.text import UTF8, UTF16, UTF32, Document, Position, TextIndex, engine_lines, units


@pytest.mark.parametrize(("text", "utf8", "utf16", "utf32"), [
    ("abc", 3, 3, 3),
    ("ä", 2, 1, 1),
    ("€", 3, 1, 1),
    ("😀", 4, 2, 1),
    ("a😀b", 6, 4, 3),
    ("\ud83d", 3, 1, 1),  # a lone surrogate, as a client holding one counts it
])
def test_code_units_per_encoding(text: str, utf8: int, utf16: int, utf32: int) -> None:
    assert (units(text, UTF8), units(text, UTF16), units(text, UTF32)) == (utf8, utf16, utf32)


def test_positions_count_utf16_units_and_only_lsp_line_breaks() -> None:
    text = "a: 😀x\r\nb: \u2028c\rd\ne\x0cf"
    index = TextIndex(text)
    assert index.position(text.index("x")) == Position(0, 5)  # 'a: ' + two units for the emoji
    assert index.position(text.index("c")) == Position(1, 4)  # U+2028 is no line break for editors
    assert index.position(text.index("d")) == Position(2, 0)  # a lone CR is
    assert index.position(text.index("f")) == Position(3, 2)  # a form feed is not
    for offset in range(len(text) + 1):
        if text[offset - 1:offset + 1] != "\r\n":  # inside a CRLF there is no position of its own
            assert index.offset(index.position(offset)) == offset


def test_positions_in_other_encodings() -> None:
    text = "k: 'ä😀'\n"
    assert TextIndex(text, UTF8).position(text.index("'", 4)) == Position(0, 10)
    assert TextIndex(text, UTF32).position(text.index("'", 4)) == Position(0, 6)
    assert TextIndex(text, UTF8).offset(Position(0, 10)) == text.index("'", 4)


def test_out_of_range_positions_are_clamped_to_the_line_and_the_text() -> None:
    text = "ab\r\ncd"
    index = TextIndex(text)
    assert index.offset(Position(0, 99)) == 2  # "defaults back to the line length", not into the CRLF
    assert index.offset(Position(7, 0)) == len(text)
    assert index.offset(Position(0, 1)) == 1
    assert index.offset(Position(1, 1)) == 5
    assert TextIndex("😀").offset(Position(0, 1)) == 0  # inside a surrogate pair: before the character


def test_incremental_edits_below_a_u2028_land_on_the_editors_line() -> None:
    """pygls' own TextDocument splits with str.splitlines, which breaks at U+2028: the edit would land a line
    too far down. Ours counts as the editor does."""
    doc = Document("file:///x.yaml", 'a: "x\u2028y"\nb: 1\nc: 2\n')
    doc.apply(Position(1, 3), Position(1, 4), "2", UTF16)
    assert doc.text == 'a: "x\u2028y"\nb: 2\nc: 2\n'
    doc.apply(Position(0, 6), Position(0, 6), "😀", UTF16)
    doc.apply(Position(0, 8), Position(0, 9), "Y", UTF16)  # after the emoji: two units
    assert doc.text == 'a: "x\u2028😀Y"\nb: 2\nc: 2\n'
    doc.apply(None, None, "whole", UTF16)
    assert doc.text == "whole"


def test_engine_lines_follow_the_reader_the_engine_used() -> None:
    yaml_text = "a: 1\u2028b\x85c\n"
    assert engine_lines(yaml_text).starts == [0, 5, 7, 9]  # libyaml breaks YAML lines at LS and NEL too
    json_text = '{"a": "1\u2028b", \r"c": 2}\n'
    assert engine_lines(json_text).starts == [0, len(json_text)]  # the JSON reader counts LF only
