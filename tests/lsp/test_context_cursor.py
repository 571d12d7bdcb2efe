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
])
def test_splitting_a_key(rest: str, split: tuple[str, int, int] | None) -> None:
    assert split_key(rest) == split
