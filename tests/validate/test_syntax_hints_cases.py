"""Each hint of the YAML syntax rules, verbatim, as ``validate`` prints it under libyaml's message: one file per
mistake, read as the first document of a file and again as the second (file lines, not document lines)."""

from __future__ import annotations

import re

import pytest

from kubectl_testbench.validate.engine import validate_text
from kubectl_testbench.validate.syntax_hints import syntax_hint

K = "k" * 1024
FIRST = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\n"

CASES = [
    ('tab-after-spaces', 'a:\n  b: 1\n  \tc: 2\n',
     '3:3', 'found a tab character that violates indentation while scanning a plain scalar',
     'YAML does not allow tabs for indentation: use spaces'),
    ('tab-after-the-content-is-not-indentation', 'a: b\tc\nd: [\n',
     '3:1', 'did not find expected node content while parsing a flow node',
     'a [ or { opened earlier is not closed, or a value inside it needs quotes'),
    ('control-character', 'a: \x07\n',
     '1:4', 'unacceptable character #x0007: control characters are not allowed',
     'remove the control character, or write it as an escape (\\x07) inside double quotes'),
    ('yaml-directive', '%YAML 1.1\n---\na: 1\n',
     '2:1', 'did not find expected <document start>',
     "kubectl splits files on '---' lines, which cuts a %YAML directive off its document: remove it"),
    ('yaml-directive-without-separator', '%YAML 1.2\na: 1\n',
     '2:1', 'did not find expected <document start>',
     "kubectl splits files on '---' lines, which cuts a %YAML directive off its document: remove it"),
    ('unclosed-brace', 'a: {b: 1\nc: 2\n',
     '2:2', "did not find expected ',' or '}' while parsing a flow mapping",
     'the { opened at line 1, column 4 is not closed: close it with }, or quote the value if the brackets are text'),
    ('unclosed-flow-without-its-bracket', 'a: [1,\t\n',
     '2:1', 'did not find expected node content while parsing a flow node',
     'a [ or { opened earlier is not closed, or a value inside it needs quotes'),
    ('value-starts-with-backtick', 'a: `\n',
     '1:4', 'found character that cannot start any token while scanning for the next token',
     'a value cannot start with `: quote the whole value'),
    ('value-starts-with-ampersand', 'a: &\nb: 1\n',
     '1:5', 'did not find expected alphabetic or numeric character while scanning an anchor',
     'a value starting with & is read as an anchor: quote the whole value'),
    ('key-of-1025-characters', "k" * 1025 + ": 1\n",
     '1:1026', 'mapping values are not allowed in this context',
     "YAML keys without a '?' indicator are limited to 1024 characters"),
    ('key-of-1024-characters-then-a-colon-in-the-value', K + ": b: c\n",
     '1:1028', 'mapping values are not allowed in this context',
     f"a value containing ': ' must be quoted: write {K}: 'b: c'"),
    ('colon-space-in-a-value-with-an-apostrophe', "a: it's: here\n",
     '1:8', 'mapping values are not allowed in this context',
     'a value containing \': \' must be quoted: write a: "it\'s: here"'),
    ('colon-space-in-a-value-with-both-quotes', 'a: it\'s "x": here\n',
     '1:12', 'mapping values are not allowed in this context',
     'a value containing \': \' must be quoted: write a: "it\'s \\"x\\": here"'),
    ('colon-space-in-a-list-item-value', '- a\n- b: c: d\n',
     '2:7', 'mapping values are not allowed in this context',
     "a value containing ': ' must be quoted: write b: 'c: d'"),
    ('deeper-line-under-a-list-item', 'l:\n  - a: 1\n      b: 2\n',
     '3:8', 'mapping values are not allowed in this context',
     "line 3 is indented more than line 2, whose key 'a' already has a value: indent it 4 spaces like"
     " 'a', or move the value of line 2 below its key"),
    ('deeper-line-under-a-list-item-wide', 'l:\n  -   a: 1\n         b: 2\n',
     '3:11', 'mapping values are not allowed in this context',
     "line 3 is indented more than line 2, whose key 'a' already has a value: indent it 6 spaces like"
     " 'a', or move the value of line 2 below its key"),
    ('one-space-under-a-key-with-a-value', 'a: 1\n b: 2\n',
     '2:3', 'mapping values are not allowed in this context',
     "line 2 is indented more than line 1, whose key 'a' already has a value: indent it 0 spaces like"
     " 'a', or move the value of line 1 below its key"),
    ('key-without-colon-then-a-nested-key', 'a:\n  b\n  c: d\n',
     '3:4', 'mapping values are not allowed in this context',
     'line 2 has no \':\' after its key: write "b:"'),
    ('value-starts-with-bracket', 'a:\n  b: [x] y\n',
     '2:10', 'did not find expected key while parsing a block mapping',
     "a value starting with [ is a flow list: quote the whole value: '[x] y'"),
    ('value-in-single-quotes-then-more', "a: 'x' y\n",
     '1:8', 'did not find expected key while parsing a block mapping',
     "the value starts with ', so it ends at the next ' (column 6) and the rest of the line is an err"
     'or: quote the whole value with the other quote: "\'x\' y"'),
    ('value-in-double-quotes-then-more', 'a: "x" y\n',
     '1:8', 'did not find expected key while parsing a block mapping',
     'the value starts with ", so it ends at the next " (column 6) and the rest of the line is an err'
     'or: quote the whole value with the other quote: \'"x" y\''),
    ('continues-after-a-value', "a: 1\n'x' y: 2\n",
     '2:5', 'did not find expected key while parsing a block mapping',
     'line 2 continues after its value at column 5: quote the whole value'),
    ('list-item-misaligned', 'a:\n  - 1\n - 2\n',
     '3:2', 'did not find expected key while parsing a block mapping',
     "line 3 starts a list item at 1 space, the items above it (line 2) at 2 spaces: align the '-' with theirs"),
    ('list-item-where-a-key-belongs', 'a: 1\n- 2\n',
     '2:1', 'did not find expected key while parsing a block mapping',
     'line 2 starts a list item where the mapping of line 1 expects a key: put the list under a key ('
     "the key on its own line, the '- ' items indented below it)"),
    ('list-item-deeper-misaligned', "- 'a b': 1\n  - c\n",
     '2:3', 'did not find expected key while parsing a block mapping',
     "line 2 starts a list item at 2 spaces, the items above it (line 1) at 0 spaces: align the '-' with theirs"),
    ('item-key-one-space-short', 'a:\n  -   b: 1\n     c: 1\n',
     '3:6', "did not find expected '-' indicator while parsing a block collection",
     "line 3 is indented 5 spaces; the item above starts its keys at 6 spaces (after the '- ' on line"
     ' 2): indent it 6 spaces to belong to that item'),
    ('plain-line-after-a-list', '- a\n- b\nc\n',
     '4:1', "could not find expected ':' while scanning a simple key",
     'line 3 has no \':\' after its key: write "c:"'),
    ('plain-line-between-items-keys', 'a:\n  - b: 1\n  c\n',
     '4:1', "could not find expected ':' while scanning a simple key",
     "line 3 is at the indentation of the keys, so it reads as a key without ':'. To continue the val"
     'ue of line 2, indent it more than \'b\' or put the whole value in quotes; if it is a key, write "'
     'c:"'),
    ('undefined-tag-handle', 'a: !x!y b\n',
     '1:4', 'found undefined tag handle while parsing a node',
     'check the indentation and the quoting of line 1 and the line above it'),
    ('bad-block-scalar-header', 'a: |x\n  b\n',
     '1:5', 'did not find expected comment or line break while scanning a block scalar',
     'check the indentation and the quoting of line 1 and the line above it'),
    ('unknown-directive', '%FOO\n---\na: 1\n',
     '1:5', 'found unknown directive name while scanning a directive',
     'check the indentation and the quoting of line 1 and the line above it'),
    ('unclosed-quote-at-the-end', 'a: "x" "\n',
     '2:1', 'found unexpected end of stream while scanning a quoted scalar',
     'the " opened at line 1, column 8 is never closed: end the value with " (a " inside it is written \\")'),
    ('unclosed-quote-at-the-end-of-the-file', 'a: "x',
     '1:6', 'found unexpected end of stream while scanning a quoted scalar',
     'the " opened at line 1, column 4 is never closed: end the value with " (a " inside it is written \\")'),
    ('one-space-too-far', 'a:\n    b: 1\n   c: 1\n',
     '3:4', 'did not find expected key while parsing a block mapping',
     'line 3 is indented 3 spaces, which matches none of the keys above it (at 0, 4 spaces): indent i'
     "t like the key it belongs with, 4 spaces like 'b' (line 2)"),
    ('dash-inside-a-key', 'l:\n  - a-b: 1\n      c: 2\n',
     '3:8', 'mapping values are not allowed in this context',
     "line 3 is indented more than line 2, whose key 'a-b' already has a value: indent it 4 spaces li"
     "ke 'a-b', or move the value of line 2 below its key"),
    ('no-space-after-dash-only-up-to-the-error-line', 'a:\n    b: 1\n   c: 1\n  -d\n',
     '3:4', 'did not find expected key while parsing a block mapping',
     'line 3 is indented 3 spaces, which matches none of the keys above it (at 0, 4 spaces): indent i'
     "t like the key it belongs with, 4 spaces like 'b' (line 2)"),
    ('flow-value-two-spaces-after-the-colon', 'a:  [x] y\n',
     '1:9', 'did not find expected key while parsing a block mapping',
     "a value starting with [ is a flow list: quote the whole value: '[x] y'"),
    ('flow-value-trailing-spaces', 'a: [x] y   \n',
     '1:8', 'did not find expected key while parsing a block mapping',
     "a value starting with [ is a flow list: quote the whole value: '[x] y'"),
    ('quoted-value-trailing-spaces', "a: 'x' y  \n",
     '1:8', 'did not find expected key while parsing a block mapping',
     "the value starts with ', so it ends at the next ' (column 6) and the rest of the line is an err"
     'or: quote the whole value with the other quote: "\'x\' y"'),
    ('quoted-value-ending-in-its-quote', "a: 'x' y'\n",
     '1:8', 'did not find expected key while parsing a block mapping',
     "the value starts with ', so it ends at the next ' (column 6) and the rest of the line is an err"
     'or: quote the whole value with the other quote: "x\' y"'),
    ('list-item-misaligned-under-a-nested-key', 'x:\n  a:\n    - 1\n    - 2\n   - 3\n',
     '5:4', 'did not find expected key while parsing a block mapping',
     "line 5 starts a list item at 3 spaces, the items above it (line 4) at 4 spaces: align the '-' with theirs"),
    ('list-item-in-a-nested-mapping', 'x:\n  y:\n    a: 1\n    - 2\n',
     '4:5', 'did not find expected key while parsing a block mapping',
     'line 4 starts a list item where the mapping of line 3 expects a key: put the list under a key ('
     "the key on its own line, the '- ' items indented below it)"),
    ('stray-bracket-at-a-key-level', 'a:\n  b: 1\n  ]\n',
     '3:3', 'did not find expected key while parsing a block mapping',
     "line 3 is at the indentation of a key above it (2 spaces) but is not a 'key: value' entry: writ"
     'e it as one, or put it in the quoted value it belongs to'),
    ('stray-bracket-at-the-top-level', 'a: 1\n]\n',
     '2:1', 'did not find expected key while parsing a block mapping',
     "line 2 is at the indentation of a key above it (0 spaces) but is not a 'key: value' entry: writ"
     'e it as one, or put it in the quoted value it belongs to'),
    ('a-comment-line-between', 'a: 1\n# c\n b: 2\n',
     '3:2', 'did not find expected key while parsing a block mapping',
     'line 3 is indented 1 space, which matches none of the keys above it (at 0 spaces): indent it li'
     "ke the key it belongs with, 0 spaces like 'a' (line 1)"),
    ('blank-line-between', 'a: 1\n\nb: 2\n c: 3\n',
     '4:3', 'mapping values are not allowed in this context',
     "line 4 is indented more than line 3, whose key 'b' already has a value: indent it 0 spaces like"
     " 'b', or move the value of line 3 below its key"),
    ('tab-at-the-start', 'a:\n\tb: 1\n',
     '2:1', 'found character that cannot start any token while scanning for the next token',
     'YAML does not allow tabs for indentation: use spaces'),
    ('tab-after-indentation', 'a:\n  b:\n  \t c: 1\n',
     '3:3', 'found character that cannot start any token while scanning for the next token',
     'YAML does not allow tabs for indentation: use spaces'),
    ('item-key-one-space-short-after-two-keys', 'l:\n  - a: 1\n    b: 1\n   c: 1\n',
     '4:4', "did not find expected '-' indicator while parsing a block collection",
     "line 4 is indented 3 spaces; the item above starts its keys at 4 spaces (after the '- ' on line"
     ' 2): indent it 4 spaces to belong to that item'),
    ('block-text-left-of-its-key', 'a: |\n b\nc\nd: 1\n',
     '4:1', "could not find expected ':' while scanning a simple key",
     'line 3 has no \':\' after its key: write "c:"'),
    ('key-without-colon-under-an-empty-key', 'a:\nb\nc: 1\n',
     '3:1', "could not find expected ':' while scanning a simple key",
     'line 2 has no \':\' after its key: write "b:"'),
    ('value-with-an-apostrophe-and-a-backslash', "a: it's C:\\x: here\n",
     '1:13', 'mapping values are not allowed in this context',
     'a value containing \': \' must be quoted: write a: "it\'s C:\\\\x: here"'),
    ('the-nearest-line-above-not-two-above', 'a:\n  x\n  b\n  c: d\n',
     '4:4', 'mapping values are not allowed in this context',
     'line 3 has no \':\' after its key: write "b:"'),
    ('yaml-directive-after-a-blank-line', '\n%YAML 1.1\n---\na: 1\n',
     '3:1', 'did not find expected <document start>',
     "kubectl splits files on '---' lines, which cuts a %YAML directive off its document: remove it"),
    ('a-tab-inside-the-key-is-not-indentation', 'a: 1\nb\tc: d: e\n',
     '2:7', 'mapping values are not allowed in this context',
     "a value containing ': ' must be quoted: write b\tc: 'd: e'"),
    ('keys-of-list-items-count-as-levels', 'x:\n  - a:\n      b: 1\n     c: 1\n',
     '4:6', 'did not find expected key while parsing a block mapping',
     'line 4 is indented 5 spaces, which matches none of the keys above it (at 0, 4, 6 spaces): inden'
     "t it like the key it belongs with, 4 spaces like 'a' (line 2) or 6 spaces like 'b' (line 3)"),
    ('a-key-starting-with-a-dash-then-a-deeper-key', '-a: 1\n b: 2\n c\n',
     '2:3', 'mapping values are not allowed in this context',
     "a value containing ': ' must be quoted"),
]


def _found(text: str) -> tuple[str, str, str]:
    result = validate_text(text, "x.yaml")
    (found,) = [d for d in result.diagnostics if d.rule == "yaml/syntax"]
    return f"{found.line}:{found.col}", found.message, found.hint


@pytest.mark.parametrize(("text", "where", "message", "hint"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_hint_names_the_cause(text: str, where: str, message: str, hint: str) -> None:
    assert _found(text) == (where, message, hint)


SECOND = [c for c in CASES if not c[1].startswith("%")]


@pytest.mark.parametrize(("text", "where", "message", "hint"), [c[1:] for c in SECOND], ids=[c[0] for c in SECOND])
def test_in_the_second_document_the_lines_are_the_files(text: str, where: str, message: str, hint: str) -> None:
    line, col = where.split(":")
    shifted = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + 5}", hint)
    assert _found(FIRST + text) == (f"{int(line) + 5}:{col}", message, shifted)


# libyaml's marks can point past the text it was given (the end of the stream, a context on a line that is not
# there): the hint then falls back to words that need no source character.
QUOTED = "found unexpected end of stream while scanning a quoted scalar"
TOKEN = "found character that cannot start any token while scanning for the next token"


def test_marks_past_the_text_fall_back_to_generic_words() -> None:
    text = "a: 1\n"
    assert syntax_hint(text, QUOTED, (2, 1), (9, 4), 0) == (
        'the " opened at line 9, column 4 is never closed: end the value with " (a " inside it is written \\")')
    assert syntax_hint(text, TOKEN, (9, 1), None, 0) == (
        "check the indentation and the quoting of line 9 and the line above it")
    assert syntax_hint(text, "did not find expected ',' or ']' while parsing a flow sequence", (2, 1), None, 0) == (
        "a [ or { opened earlier is not closed, or a value inside it needs quotes")
    for message in (QUOTED, "did not find expected '-' indicator while parsing a block collection",
                    "did not find expected key while parsing a block mapping",
                    "could not find expected ':' while scanning a simple key"):
        assert syntax_hint(text, message, (1, 1), None, 0) == (
            "check the indentation and the quoting of line 1 and the line above it")


def test_lines_before_the_document_read_as_empty() -> None:
    # the document starts at file line 4 (0-based 3); a mark on an earlier line has no text to quote
    assert syntax_hint("a: `\n", TOKEN, (3, 4), None, 3) == (
        "check the indentation and the quoting of line 3 and the line above it")
    assert syntax_hint("a: `\n", TOKEN, (4, 4), None, 3) == "a value cannot start with `: quote the whole value"
