"""The range an editor underlines for a finding: exactly the token that starts there, on its own line."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.lines import LineIndex
from kubectl_testbench.lsp.ranges import token_span


def underlined(line: str, at: str, whole_line: bool = False, occurrence: int = 0) -> str:
    text = f"a: 1\n{line}\nb: 2\n"
    offset = text.index(line) + _find(line, at, occurrence)
    start, end = token_span(text, LineIndex(text), offset, whole_line)
    return text[start:end]


def _find(line: str, at: str, occurrence: int) -> int:
    index = line.index(at)
    for _ in range(occurrence):
        index = line.index(at, index + 1)
    return index


@pytest.mark.parametrize(("line", "at", "token"), [
    # double quotes: an escaped quote does not close, an escaped backslash does not escape the quote after it
    ('  k: "a\\"b" # c', '"a', '"a\\"b"'),
    ('  k: "a\\\\" # c', '"a', '"a\\\\"'),
    ('  k: "unclosed # c', '"un', '"unclosed # c'),
    ('  k: "ends in an escape\\', '"ends', '"ends in an escape\\'),
    # single quotes: a doubled quote does not close, a quote at the end of the line does
    ("  k: 'it''s' # c", "'it", "'it''s'"),
    ("  k: 'end'", "'end", "'end'"),
    ("  k: 'a''", "'a", "'a''"),
    ("  k: 'unclosed # c", "'un", "'unclosed # c"),
    ("  k: 'a\\'b' # c", "'a", "'a\\'"),  # no backslash escapes in single quotes
    # flow collections: to the bracket that closes the first one, quotes skipped
    ("  k: {a: 1} {b: 2}", "{a", "{a: 1}"),
    ("  k: [1, [2, 3], 4] # c", "[1", "[1, [2, 3], 4]"),
    ('  k: {a: "}", b: 2} # c', "{a", '{a: "}", b: 2}'),
    ("  k: {a: '}', b: 2} # c", "{a", "{a: '}', b: 2}"),
    ('  k: {a: "\\"}", b: 2}', "{a", '{a: "\\"}", b: 2}'),
    ('  k: {a: "\\"}", b: 2} # c', "{a", '{a: "\\"}", b: 2}'),
    ('  k: {a: "\\\\", b: 2} # c', "{a", '{a: "\\\\", b: 2}'),
    ('  k: {a: "x}"} # c', "{a", '{a: "x}"}'),
    ("  k: [a, b   ", "[a", "[a, b"),  # unclosed: the line without its trailing blanks
    # plain scalars and keys
    ("  key:", "key", "key"),
    ("  key:\tvalue", "key", "key"),
    ("  url: http://h:8000/x", "http", "http://h:8000/x"),
    ("  k: a#b # c", "a#", "a#b"),
    ("  k: #x", "#x", "#x"),
    ("  k: value\t# c", "value", "value"),
    ("  k: value   ", "value", "value"),
    # inside a flow collection a plain scalar ends at , ] or }
    ("  k: [a, b]", "b]", "b"),
    ("  k: {x: a, y: b}", "b}", "b"),
    ("  k: [a, b, c]", "a,", "a"),
    ('  k: ["[", b]', "b]", "b"),
    ("  k: ['[', b]", "b]", "b"),
    ('  k: ["\\"[", b]', "b]", "b"),
    ("  k: a], [b, c]", "c]", "c"),  # a stray closer first: the later bracket still opens a flow
    ("  k: x, y]", "y", "y]"),  # outside a flow , and ] are part of the scalar
    ('  k: "" # c', '""', '""'),
    ("  k: '' # c", "''", "''"),
    ("  k: '''' # c", "''''", "''''"),
    ("  k: a:b", "a:", "a:b"),
    ("  k: a# b", "a#", "a# b"),
    ("  k: a #b", "a #", "a"),
    ("  k: {a: '\\', b: 2} # c", "{a", "{a: '\\', b: 2}"),  # a backslash escapes nothing in single quotes
    ("{a: x, b: y}", "y}", "y"),
    ('"[": [a, b]', "b]", "b"),
    # tokens with an X in them (nothing special about the letter; it pins each character class exactly)
    ("  k: Xyz # c", "Xyz", "Xyz"),
    ("  k: aXb # c", "aXb", "aXb"),
    ("  k: a:X # c", "a:X", "a:X"),
    ("  k: aX#b # c", "aX#", "aX#b"),
    ("  k: abX # c", "abX", "abX"),
    ("  k: [aXb, c]", "aXb", "aXb"),
    ("  k: {a: X, b: 2} # c", "{a", "{a: X, b: 2}"),
    ("  k: {a: [X, 1]} # c", "{a", "{a: [X, 1]}"),
])
def test_the_token_under_a_finding(line: str, at: str, token: str) -> None:
    assert underlined(line, at) == token


def test_whole_line_findings_underline_the_lines_content_without_its_indentation() -> None:
    assert underlined("   spec:  {a: 1}  ", "spec", whole_line=True) == "spec:  {a: 1}"
    assert underlined("\tkey: value", "value", whole_line=True) == "key: value"
    assert underlined("  kind: k", "k", whole_line=True, occurrence=1) == "kind: k"


def test_a_bracket_left_open_on_an_earlier_line_does_not_make_a_flow_of_this_one() -> None:
    text = "k: [a,\n  b], c\n"
    start, end = token_span(text, LineIndex(text), text.index("b]"))
    assert text[start:end] == "b], c"


def test_a_finding_past_the_content_underlines_the_line() -> None:
    text = "a: 1\n  key: value   \nb: 2\n"
    start, end = token_span(text, LineIndex(text), text.index("\nb") - 1)
    assert text[start:end] == "key: value"


def test_a_finding_at_the_end_of_a_line_with_content_underlines_that_content() -> None:
    text = "a: 1\n  key: value\nb: 2\n"
    start, end = token_span(text, LineIndex(text), text.index("\nb"))
    assert text[start:end] == "key: value"


def test_a_blank_line_gets_an_empty_range_where_the_finding_is() -> None:
    text = "a: 1\n   \nb: 2\n"
    offset = text.index("   ") + 1
    assert token_span(text, LineIndex(text), offset) == (offset, offset)
    empty = "a: 1\n\nb: 2\n"
    assert token_span(empty, LineIndex(empty), 5) == (5, 5)


def test_offsets_outside_the_text_stay_on_the_first_or_last_line() -> None:
    text = "key: value\nlast: line"
    assert token_span(text, LineIndex(text), -5) == (0, 3)
    assert text[slice(*token_span(text, LineIndex(text), len(text) + 10))] == "last: line"


def test_the_range_never_crosses_a_line_break() -> None:
    text = 'k: "open\nnext: "x"\n'
    start, end = token_span(text, LineIndex(text), text.index('"open'))
    assert text[start:end] == '"open'
    text = "k: [a,\n  b]\n"
    start, end = token_span(text, LineIndex(text), text.index("[a"))
    assert text[start:end] == "[a,"


@pytest.mark.parametrize(("text", "at", "token"), [
    ("k: 'end'", "'end", "'end'"),
    ("key:", "key", "key"),
    ('k: "end"', '"end', '"end"'),
    ("k: [a, b]", "b", "b"),
    ('k: "open', '"open', '"open'),
    ("k: 'open", "'open", "'open"),
    ("k: 'it''", "'it", "'it''"),
])
def test_tokens_at_the_very_end_of_the_text(text: str, at: str, token: str) -> None:
    start, end = token_span(text, LineIndex(text), text.index(at))
    assert text[start:end] == token
