"""Tab indentation re-indented with spaces only where the level is certain: each rule of the module docstring,
with the text the fix produces (what ``fix`` writes to the file) or no fix at all."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.fix_placement import apply_edits
from kubectl_testbench.validate.indentation import tab_indentation_edits


def fixed(text: str) -> str | None:
    edits = tab_indentation_edits(text)
    return None if edits is None else apply_edits(text, edits)


REINDENTED = [
    ("one-tab-under-an-opener", "a:\n\tb: 1\nc: 2\n", "a:\n  b: 1\nc: 2\n"),
    ("nested-tabs-keep-their-levels", "a:\n\tb:\n\t\tc: 1\nd: 2\n", "a:\n  b:\n    c: 1\nd: 2\n"),
    ("levels-relative-to-the-least-tabbed-line", "a:\n\t\tb:\n\t\t\tc: 1\n", "a:\n  b:\n    c: 1\n"),
    ("the-file-step-of-four", "x:\n    y: 1\na:\n\tb:\n\t\tc: 1\n", "x:\n    y: 1\na:\n    b:\n        c: 1\n"),
    ("a-blank-line-of-spaces-sets-no-step", "x: 1\n \na:\n\tb: 1\n", "x: 1\n \na:\n  b: 1\n"),
    ("a-comment-after-the-opener", "a:  # c\n\tb: 1\n", "a:  # c\n  b: 1\n"),
    ("a-comment-line-between", "a:\n# hi\n\n\tb: 1\n", "a:\n# hi\n\n  b: 1\n"),
    ("trailing-blanks-after-the-opener-colon", "a: \t\n\tb: 1\n", "a: \t\n  b: 1\n"),
    ("a-quoted-opener-key", "'a':\n\tb: 1\n", "'a':\n  b: 1\n"),
    ("an-opener-after-a-dash", "l:\n- a:\n\tb: 1\n", "l:\n- a:\n    b: 1\n"),
    ("an-opener-after-an-indented-dash", "l:\n  - a:\n\tb: 1\n", "l:\n  - a:\n      b: 1\n"),
    ("an-opener-after-two-dashes", "l:\n- - a:\n\tb: 1\n", "l:\n- - a:\n      b: 1\n"),
    ("the-next-line-back-at-the-opener-level", "a:\n  x:\n\tb: 1\n  c: 1\n", "a:\n  x:\n    b: 1\n  c: 1\n"),
    ("blank-lines-inside-the-block-stay", "a:\n\tb: 1\n\n\tc: 2\nd: 1\n", "a:\n  b: 1\n\n  c: 2\nd: 1\n"),
    ("two-blocks", "a:\n\tb: 1\nc:\n\td: 1\n", "a:\n  b: 1\nc:\n  d: 1\n"),
    ("crlf-and-a-comment-after-the-opener", "a: # c\r\n\tb: 1\r\n", "a: # c\r\n  b: 1\r\n"),
    # the check reads the result as the engine does (libyaml), which takes a tab between a key and its value
    ("a-tab-between-key-and-value", "a:\n\tb:\t1\n", "a:\n  b:\t1\n"),
    ("an-opener-key-starting-with-a-dash", "x:\n  -a:\n\tb: 1\n", "x:\n  -a:\n    b: 1\n"),
    # a space-then-tab line elsewhere is valid YAML inside a flow or a multi-line scalar: it does not block the fix
    ("a-space-tab-line-inside-a-flow-elsewhere", "a:\n\tb: 1\nc: [1,\n \t2]\n", "a:\n  b: 1\nc: [1,\n \t2]\n"),
    ("crlf-line-breaks", "a:\r\n\tb: 1\r\nc: 2\r\n", "a:\r\n  b: 1\r\nc: 2\r\n"),
    ("a-blank-spaces-line-before-the-block", "x: 1\n  \na:\n\tb: 1\n", "x: 1\n  \na:\n  b: 1\n"),
    ("a-list-item-under-the-opener", "a:\n\t- 1\n\t- 2\n", "a:\n  - 1\n  - 2\n"),
    # issue 33: the line after the tabs at the first tabbed line's level is its sibling (nothing else parses)
    ("the-next-line-continues-the-block", "a:\n  x:\n\tb: 1\n    c: 1\n", "a:\n  x:\n    b: 1\n    c: 1\n"),
    ("a-tabbed-key-with-tabbed-children", "s:\n\ta:\n\t\tn: 1\n  d: 2\n", "s:\n  a:\n    n: 1\n  d: 2\n"),
    # and a tabbed key whose children are indented with spaces, deeper than the key will be
    ("a-tabbed-key-with-spaced-children", "s:\n\ta:\n    n: 1\n  d: 2\n", "s:\n  a:\n    n: 1\n  d: 2\n"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in REINDENTED], ids=[c[0] for c in REINDENTED])
def test_tabs_under_a_block_opener_become_the_files_spaces(text: str, expected: str) -> None:
    assert fixed(text) == expected


LEFT_ALONE = [
    ("no-tabs", "a:\n  b: 1\n"),
    ("empty", ""),
    ("a-tab-after-the-content", "a:\n  b:\t1\n"),
    ("only-a-blank-tab-line", "a:\n  b: 1\n\t\nc: 1\n"),
    ("the-line-above-has-a-value", "a: 1\n\tb: 1\n"),
    ("nothing-above", "\tb: 1\n"),
    ("only-comments-above", "# c\n\tb: 1\n"),
    ("the-opener-is-tabbed-itself", "\ta:\n\tb: 1\n"),
    ("the-line-above-is-a-comment-key", "#a:\n\tb: 1\n"),
    ("tabs-and-spaces-on-one-line", "a:\n \tb: 1\n"),
    ("spaces-then-tab-after-a-block", "a:\n\tb: 1\n \tc: 1\n"),
    ("a-literal-block-scalar", "a:\n\tb: |\n\t\ttext\nc: 1\n"),
    ("a-folded-block-scalar-with-indicators", "a:\n\tb: >-2  # c\n\t\t  text\nc: 1\n"),
    ("a-block-scalar-with-crlf", "a:\r\n\tb: |\r\n\t\ttext\r\nc: 1\r\n"),
    ("the-next-line-is-deeper-than-the-opener", "a:\n  x:\n\tb: 1\n   c: 1\n"),
    ("a-tab-indented-comment-without-an-opener", "\t# c\na:\n\tb: 1\n"),
    ("the-next-line-has-a-tab-in-its-indentation", "x:\n  a:\n\tb: [1,\n \t2]\n"),
    ("the-next-line-is-tabbed-after-spaces", "a:\n\tb: 1\n  \tc: 1\n"),
    ("the-result-does-not-parse", "a:\n\tb: [1\n"),
]


@pytest.mark.parametrize("text", [c[1] for c in LEFT_ALONE], ids=[c[0] for c in LEFT_ALONE])
def test_tabs_whose_level_is_not_certain_get_no_fix(text: str) -> None:
    assert tab_indentation_edits(text) is None


def test_the_edits_replace_exactly_the_tabs() -> None:
    assert tab_indentation_edits("a:\n\tb:\n\t\tc: 1\n") == [(3, 4, "  "), (7, 9, "    ")]
