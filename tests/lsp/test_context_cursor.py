"""Where the cursor is, read from half-typed text without parsing it: the document path, key or value, the
token and what is typed of it, the keys already written around it, the document's kind."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.lines import LineIndex
from kubectl_testbench.lsp.context import KEY, VALUE, cursor_at, split_key

Seen = tuple[tuple[object, ...], str, str, str, str, list[str], str | None, bool, str] | None


def seen(marked: str) -> Seen:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    found = cursor_at(text, offset)
    if found is None:
        return None
    return (found.path, found.role, text[found.start:found.end], found.prefix, found.token, sorted(found.siblings),
            found.kind, found.json, found.quote)


@pytest.mark.parametrize(("marked", "expected"), [
    # block mappings and lists
    ("a:\n  b:\n    c: x|y\n", (("a", "b", "c"), VALUE, "xy", "x", "xy", [], None, False, "")),
    ("a:\n  - b: 1\n    c|\n", (("a", 0), KEY, "c", "c", "c", ["b"], None, False, "")),
    ("a:\n- b: 1\n- c|\n", (("a", 1), KEY, "c", "c", "c", [], None, False, "")),
    ("a:\n  - - x|\n", (("a", 0, 0), KEY, "x", "x", "x", [], None, False, "")),
    ("- a: 1\n  |\n", ((0,), KEY, "", "", "", ["a"], None, False, "")),
    ("a:\tb|\n", (("a",), VALUE, "b", "b", "b", [], None, False, "")),
    ("a: \n", None),  # placeholder replaced below
    # block scalars, comments, plain scalars over several lines
    ("a: >-\n  text\nb|\n", ((), KEY, "b", "b", "b", ["a"], None, False, "")),
    ("a: >\n  te|xt\n", None),
    ("a: >\n\n  more\n  te|xt\n", None),
    ("a: x # c|\n", None),
    ("a:\n  # b|\n", None),
    ("a: long\n  continued|\n", None),
    ("a: &anchor\n  b|\n", (("a",), KEY, "b", "b", "b", [], None, False, "")),
    ("a: !tag\n  b|\n", (("a",), KEY, "b", "b", "b", [], None, False, "")),
    ("a:\n  b: 1 # c\n  |", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    # quoted tokens
    ("a: 'it''s|'\n", (("a",), VALUE, "'it''s'", "it''s", "it''s", [], None, False, "'")),
    ("'q k': 1\n|\n", ((), KEY, "", "", "", ["q k"], None, False, "")),
    ('"q\\tk": 1\n|\n', ((), KEY, "", "", "", ["q\tk"], None, False, "")),
    # keys written above and below, up to the mapping's end, block text skipped
    ("a:\n  b: 1\n  |\n  c: 2\n  d:\n    e: 3\n  f: >\n    g: 1\n  h: 1\nz: 1\n",
     (("a",), KEY, "", "", "", ["b", "c", "d", "f", "h"], None, False, "")),
    ("a:\n  - b: 1\n    |\n    c: 1\n  - d: 1\n", (("a", 0), KEY, "", "", "", ["b", "c"], None, False, "")),
    ("a:\n  |\n\n  # x\n  b: 1\n---\n  c: 1\n", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    # documents and their kind
    ("kind: X\n---\na|\n", ((), KEY, "a", "a", "a", [], None, False, "")),
    ("a: 1\n---\nkind: K\nb|\n---\nkind: L\n", ((), KEY, "b", "b", "b", ["kind"], "K", False, "")),
    ("a: 1\n...\n|\n", ((), KEY, "", "", "", [], None, False, "")),
    ("---|\n", None),
    ("---\n|", ((), KEY, "", "", "", [], None, False, "")),
    ("b|\nkind: Later\n", ((), KEY, "b", "b", "b", ["kind"], "Later", False, "")),
    # flow collections on the cursor's line
    ("a: {b: 1, c|}\n", (("a",), KEY, "c", "c", "c", ["b"], None, False, "")),
    ("a: {b: [1, x|]}\n", (("a", "b", 1), VALUE, "x", "x", "x", [], None, False, "")),
    ("a: {b: 1}|\n", None),
    ("a: {b: 1} |\n", None),
    ("a: [x, {y: |}]\n", (("a", 1, "y"), VALUE, "", "", "", [], None, False, "")),
    ("a: {b: 'x''y|'}\n", (("a", "b"), VALUE, "'x''y'", "x''y", "x'y", [], None, False, "'")),
    ("a: {b: c:d|}\n", (("a", "b"), VALUE, "c:d", "c:d", "c:d", [], None, False, "")),
    ("a: {'k''s': 1, |}\n", (("a",), KEY, "", "", "", ["k's"], None, False, "")),
    ("a: [1, 2, |]\n", (("a", 2), VALUE, "", "", "", [], None, False, "")),
    ("a: {b #c|\n", None),
    ("a: {b: 1, |, d: 2, e: {f: 3}}\n", (("a",), KEY, "", "", "", ["b", "d", "e"], None, False, "")),
    ("- {a: 1, |}\n", ((0,), KEY, "", "", "", ["a"], None, False, "")),
    ("a: {, |}\n", (("a",), KEY, "", "", "", [], None, False, "")),
    # JSON
    ('{"a": {"b": [1, {"c": "|"}]}}', (("a", "b", 1, "c"), VALUE, '""', "", "", [], None, True, '"')),
    ('{"kind": "K", "a": |}', (("a",), VALUE, "", "", "", [], "K", True, "")),
    ('{"a": 1, "b": |', (("b",), VALUE, "", "", "", [], None, True, "")),
    ('{"a": {|, "z": 1, "y": {"q": 1}}}', (("a",), KEY, "", "", "", ["y", "z"], None, True, "")),
    ('{"a": {"b\\"c": 1, "|"}}', (("a",), KEY, '""', "", "", ['b"c'], None, True, '"')),
    ('  {"a": tr|ue}', (("a",), VALUE, "true", "tr", "true", [], None, True, "")),
    ('{"a": {}, "b": |}', (("b",), VALUE, "", "", "", [], None, True, "")),
    ('[{"a": 1}, {|}]', ((1,), KEY, "", "", "", [], None, False, "")),  # a YAML flow sequence
])
def test_the_cursor(marked: str, expected: Seen) -> None:
    if marked == "a: \n":
        marked, expected = "a: |\n", (("a",), VALUE, "", "", "", [], None, False, "")
    assert seen(marked) == expected


def test_the_lines_given_are_used_only_when_they_index_this_text() -> None:
    text = "a:\n  b: 1\n"
    stale = LineIndex("other: text\n")
    found = cursor_at(text, text.index("b"), stale)
    assert found is not None and found.path == ("a",) and found.token == "b"
    same = cursor_at(text, text.index("1"), LineIndex(text))
    assert same is not None and same.path == ("a", "b")


@pytest.mark.parametrize(("rest", "split"), [
    ("a: b", ("a", 1, 2)),
    ("a:", ("a", 1, 2)),
    ("a :", ("a", 1, 3)),
    ("a\t: b", ("a", 1, 3)),
    ("'a': b", ("a", 3, 4)),
    ("'a''b': c", ("a'b", 6, 7)),
    ('"a\\"b": c', ('a"b', 6, 7)),
    ('"a\\qb": c', ("a\\qb", 6, 7)),  # not a JSON escape: kept as written
    ('"a" : b', ("a", 3, 5)),
    ('"a":\tb', ("a", 3, 4)),
    ('"x" :d', None),
    ('"x":d', None),
    ('"x" d', None),
    ("a#b: c", ("a#b", 3, 4)),
    ("a #b: c", None),
    ("a\t#b: c", None),
    ("", None),
    ("#a: b", None),
    ("{a: b}", None),
    ("[a]: b", None),
    ("|", None),
    (">", None),
    ("!t a: b", None),
    ("&a b: c", None),
    ("*a: b", None),
    ("%a: b", None),
    ("@a: b", None),
    ("`a: b", None),
    (",a: b", None),
    ("'open", None),
    ('"open', None),
    ('"a\\', None),
    ("a:b", None),
    ("Xa: b", ("Xa", 2, 3)),
    ('"": b', ("", 2, 3)),
    ('"a\\\\": c', ("a\\", 5, 6)),  # an escaped backslash just before the closing quote
    ("'a''': b", ("a'", 5, 6)),
    ('"a":', ("a", 3, 4)),
])
def test_splitting_a_key(rest: str, split: tuple[str, int, int] | None) -> None:
    assert split_key(rest) == split


@pytest.mark.parametrize(("marked", "expected"), [
    # tabs indent as well as spaces, in the lines above, on the cursor's line, after a dash and below
    ("a:\n\tb:\n\t\tc: 1\n\t\t|", (("a", "b"), KEY, "", "", "", ["c"], None, False, "")),
    ("a:\n\tb|", (("a",), KEY, "b", "b", "b", [], None, False, "")),
    ("-\tb: 1\n  c|", ((0,), KEY, "c", "c", "c", ["b"], None, False, "")),
    ("a:\n\t|\n\tb: 1\n", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    # whitespace of any kind before the cursor puts the token at the cursor
    ("a:\n  \u00a0|", (("a",), KEY, "", "", "", [], None, False, "")),
    # the cursor between a dash and its item's key: a new key of that item, where the cursor is
    ("a:\n  -| b: 1\n    c: 2\n", (("a", 0), KEY, "", "", "", ["c"], None, False, "")),
    ("a:\n  - x: 1\n  -| b: 1\n  - c: 1\n", (("a", 1), KEY, "", "", "", [], None, False, "")),
    # before a flow collection's bracket: not in it
    ("a:\n  |{b: 1}\n", (("a",), KEY, "{b: 1}", "", "{b: 1}", [], None, False, "")),
    # values that are not scalars on the line: an anchor and a value, a comment
    ("a: &x 1\n  b|", None),
    ("a: # c\n  b|", (("a",), KEY, "b", "b", "b", [], None, False, "")),
    ("a: b#|", (("a",), VALUE, "b#", "b#", "b#", [], None, False, "")),  # '#' starts a comment after a blank only
    # keys below: comments skipped wherever they are, up to a shallower line or a list item at the same column
    ("a:\n  |\n# c\n  b: 1\n", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    ("a:\n  b: 1\n  |\nz:\n  y: 1\n", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    ("a:\n  |\n  b:\n    - x\n  c: 1\n", (("a",), KEY, "", "", "", ["b", "c"], None, False, "")),
    ("items:\n|\n- b: 1\n", ((), KEY, "", "", "", ["items"], None, False, "")),
    ("bc: 1\nb|c: 2\n", ((), KEY, "bc", "b", "bc", [], None, False, "")),  # the key being typed is no sibling
    # list items: a dash opens one only before a blank or the line's end; counted per parent; a sibling item
    # or a key with a scalar value at the dash's column ends before it
    ("-x: 1\n|", ((), KEY, "", "", "", ["-x"], None, False, "")),
    ("-X: 1\n|", ((), KEY, "", "", "", ["-X"], None, False, "")),
    ("-\n  a: 1\n  |", ((0,), KEY, "", "", "", ["a"], None, False, "")),
    ("- a: 1\n- b|", ((1,), KEY, "b", "b", "b", [], None, False, "")),
    ("a:\n  b: 1\n  - c|", (("a", 0), KEY, "c", "c", "c", [], None, False, "")),
    ("- a\n- b\n- c|", ((2,), KEY, "c", "c", "c", [], None, False, "")),
    # flow collections: any character that is not a bracket, a comma, a colon or a blank is part of a token
    ("a: {Xb: 1, |}", (("a",), KEY, "", "", "", ["Xb"], None, False, "")),
    ("a: {|, Xb: 1}", (("a",), KEY, "", "", "", ["Xb"], None, False, "")),
    ("a: {b: X|}", (("a", "b"), VALUE, "X", "X", "X", [], None, False, "")),
    ("a: {b: cXd|}", (("a", "b"), VALUE, "cXd", "cXd", "cXd", [], None, False, "")),
    ("a: {b: 1,#c, |}", (("a",), KEY, "", "", "", ["b"], None, False, "")),  # '#' ends what is read of the line
    ("a: {b: 1} {|}", None),
    ("a: [1,x|]", (("a", 1), VALUE, "x", "x", "x", [], None, False, "")),
    ("a: {b , |}", (("a",), KEY, "", "", "", ["b"], None, False, "")),
    ("a: {b: 1, b|}", (("a",), KEY, "b", "b", "b", [], None, False, "")),
    # a colon ends a plain key only before a blank or the end of the text
    ("a: {b:|", (("a", "b"), VALUE, "", "", "", [], None, False, "")),
    ("a: {b:c|", (("a",), KEY, "b:c", "b:c", "b:c", [], None, False, "")),
    ("a: {b:Xc|}", (("a",), KEY, "b:Xc", "b:Xc", "b:Xc", [], None, False, "")),
    ("a: {b: c|", (("a", "b"), VALUE, "c", "c", "c", [], None, False, "")),
    # quoted tokens: escapes, doubled quotes, and an unclosed one ends with the line
    ("a: {'k''': 1, |}", (("a",), KEY, "", "", "", ["k'"], None, False, "")),
    ("a: {b: 'ab|", (("a", "b"), VALUE, "'ab", "ab", "ab", [], None, False, "'")),
    ("a: {b: 'xX|", (("a", "b"), VALUE, "'xX", "xX", "xX", [], None, False, "'")),
    ("a: {'b|' 'c': 1}", (("a",), KEY, "'b'", "b", "b", [], None, False, "'")),
    # keys after the cursor: only those of its own mapping, however deep the values between
    ("a: {|, b: {c: {d: 1}}, e: 1}", (("a",), KEY, "", "", "", ["b", "e"], None, False, "")),
    ("a: {|, b: {c: 1}, e: 1}", (("a",), KEY, "", "", "", ["b", "e"], None, False, "")),
    ("a: {|, b: [{c: 1}], e: 1}", (("a",), KEY, "", "", "", ["b", "e"], None, False, "")),
    ("a: {|,e: 1}", (("a",), KEY, "", "", "", ["e"], None, False, "")),
    ("a: {x: {|, b: 1}, c: 2}", (("a", "x"), KEY, "", "", "", ["b"], None, False, "")),
    # JSON: a colon always ends a word; reading goes on past a closed value to the next one
    ('  |{"a": 1}', None),
    ('{"a": 1} |', None),
    ('{"a": 1},{"b": |}', (("b",), VALUE, "", "", "", [], None, True, "")),
    ('{"a":x|}', (("a",), VALUE, "x", "x", "x", [], None, True, "")),
    ('{b:1, |}', ((), KEY, "", "", "", ["b"], None, True, "")),
    ('{"x": {|, b:1}}', (("x",), KEY, "", "", "", ["b"], None, True, "")),
    ('{"a": 1, |"b": 2}', ((), KEY, "", "", "", ["a"], None, True, "")),  # the cursor is before the quote
    ('{"a": ["x", "|"]}', (("a", 1), VALUE, '""', "", "", [], None, True, '"')),
    ('{"k\\"": 1, |}', ((), KEY, "", "", "", ['k"'], None, True, "")),
    ('{|, "e":[1, "z"], "g": 2}', ((), KEY, "", "", "", ["e", "g"], None, True, "")),
    # a blank that is not JSON's whitespace is an empty token, read past
    ('{"a": \u00a0|}', (("a",), VALUE, "", "", "", [], None, True, "")),
    ('{"a": 1, |, \u00a0}', ((), KEY, "", "", "", ["a"], None, True, "")),
])
def test_the_cursor_in_the_corners_of_the_readers(marked: str, expected: Seen) -> None:
    assert seen(marked) == expected


@pytest.mark.parametrize("text", [
    "a: |\n  x\n  ", "a: |-\n  x\n  ", "a: >-\n  x\n  ", "a: >\n  x\n  ",  # a blank line of block text
    "a: |\n\tx\n\ty",  # block text indented with tabs
])
def test_no_cursor_in_a_block_scalars_text(text: str) -> None:
    assert cursor_at(text, len(text)) is None


def test_a_block_scalars_text_ends_at_its_keys_column() -> None:
    text = "a: |\n  text\nb: 1\n"
    found = cursor_at(text, len(text))
    assert found is not None and (found.path, found.role, sorted(found.siblings)) == ((), KEY, ["a", "b"])


def test_the_lines_given_are_not_indexed_again() -> None:
    text = "a:\n  b: 1\n"
    asked: list[int] = []

    class Recording(LineIndex):
        def line_of(self, offset: int) -> int:
            asked.append(offset)
            return super().line_of(offset)

    found = cursor_at(text, text.index("b"), Recording(text))
    assert found is not None and found.path == ("a",) and asked == [text.index("b")]


def test_a_token_after_blanks_of_any_kind_starts_at_the_cursor() -> None:
    text = "a:\n  \u00a0"  # a no-break space: blank to str.strip, not indentation
    found = cursor_at(text, len(text))
    assert found is not None and (found.path, found.role, found.start, found.end) == (("a",), KEY, 6, 6)
