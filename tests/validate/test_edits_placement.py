"""Where a fix lands: each kind of fix placed inside its own node (the text ``fix`` would write), and each reason a
fix is refused, verbatim (``fix --dry-run`` and ``-o json`` show it); then the byte offsets SARIF consumers apply."""

from __future__ import annotations

import codecs
from typing import Any

import pytest

from kubectl_testbench.load.lines import LineIndex
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.fix_placement import (
    ANCHORED,
    MULTILINE,
    NOT_WRITTEN,
    apply_edits,
    encoding_of,
    resolve,
    scalar_text,
    with_byte_offsets,
)
from kubectl_testbench.validate.spans import json_span_tree

Q, R, N, D, INS = FixKind.QUOTE, FixKind.REPLACE, FixKind.RENAME_KEY, FixKind.DELETE, FixKind.INSERT


def diag(kind: FixKind, path: tuple[Any, ...], value: Any = None, title: str = "t",
         edits: tuple[Edit, ...] = ()) -> Diagnostic:
    return Diagnostic("r", Severity.ERROR, "m", "f", fix=Fix(kind, path, value, title, edits))


def placed(text: str, kind: FixKind, path: tuple[Any, ...], value: Any = None) -> tuple[str, str] | str:
    """(fixed text, fix title), or the reason the fix is blocked."""
    (out,) = resolve([diag(kind, path, value)], text, 0, LineIndex(text))
    assert out.fix is not None
    if out.fix.blocked:
        assert out.fix.edits == ()
        return out.fix.blocked
    return apply_edits(text, [(e.start, e.end, e.text) for e in out.fix.edits]), out.fix.title


PLACED = [
    ("quote-a-plain-word", "a: yes\n", Q, ("a",), None, ('a: "yes"\n', 'write "yes" in quotes')),
    ("quote-keeps-non-ascii", "a: grüß\n", Q, ("a",), None, ('a: "grüß"\n', 'write "grüß" in quotes')),
    ("yaml11-bool-to-true", "a: yes\n", R, ("a",), True, ("a: true\n", "t")),
    ("yaml11-bool-to-false", "a: Off\n", R, ("a",), False, ("a: false\n", "t")),
    ("quoted-integer-unquoted", "a: '12'\n", R, ("a",), 12, ("a: 12\n", "t")),
    ("a-plain-number-replaced", "a: 90  # percent\n", R, ("a",), 0.9, ("a: 0.9  # percent\n", "t")),
    ("quoted-float-unquoted", 'a: "1.5"\n', R, ("a",), 1.5, ("a: 1.5\n", "t")),
    ("string-in-single-quotes", "a: 'x'\n", R, ("a",), "it's", ("a: 'it''s'\n", "t")),
    ("string-stays-plain", "a: x\n", R, ("a",), "web-search_2.v1/x", ("a: web-search_2.v1/x\n", "t")),
    ("string-that-would-read-as-a-bool", "a: x\n", R, ("a",), "y", ('a: "y"\n', "t")),
    ("string-that-would-read-as-null", "a: x\n", R, ("a",), "null", ('a: "null"\n', "t")),
    ("string-with-a-space", "a: x\n", R, ("a",), "y z", ('a: "y z"\n', "t")),
    ("string-in-double-quotes", 'a: "x"\n', R, ("a",), "ü", ('a: "ü"\n', "t")),
    ("rename-plain", "a: 1\n", N, ("a",), "b", ("b: 1\n", "t")),
    ("rename-keeps-quotes", "'a': 1\n", N, ("a",), "b", ("'b': 1\n", "t")),
    ("delete-first", "a: 1\nb: 2\n", D, ("a",), None, ("b: 2\n", "t")),
    ("delete-last", "a: 1\nb: 2\n", D, ("b",), None, ("a: 1\n", "t")),
    ("delete-with-comment", "a: 1  # c\nb: 2\n", D, ("a",), None, ("b: 2\n", "t")),
    ("delete-nested-block", "a:\n  x: 1\n  y: 2\nc: 2\n", D, ("a",), None, ("c: 2\n", "t")),
    ("delete-block-scalar", "a: |\n  x\nb: 2\n", D, ("a",), None, ("b: 2\n", "t")),
    ("delete-crlf", "a: 1\r\nb: 2\r\n", D, ("a",), None, ("b: 2\r\n", "t")),
    ("delete-last-without-break", "a: 1\nb: 2", D, ("b",), None, ("a: 1\n", "t")),
    ("delete-in-a-list-item", "- a: 1\n  b: 2\n", D, (0, "b"), None, ("- a: 1\n", "t")),
    ("delete-flow-first", "x: {a: 1, b: 2}\n", D, ("x", "a"), None, ("x: {b: 2}\n", "t")),
    ("delete-flow-middle", "x: {a: 1,b: 2, c: 3}\n", D, ("x", "b"), None, ("x: {a: 1,c: 3}\n", "t")),
    ("delete-flow-last", "x: {a: 1, b: 2}\n", D, ("x", "b"), None, ("x: {a: 1}\n", "t")),
    ("delete-flow-space-before-the-comma", "x: {a: 1 , b: 2}\n", D, ("x", "b"), None, ("x: {a: 1}\n", "t")),
    ("delete-after-an-explicit-key", "a: 1\n? b\n: 2\n", D, ("a",), None, ("? b\n: 2\n", "t")),
    ("delete-flow-only", "x: {a: 1}\n", D, ("x", "a"), None, ("x: {}\n", "t")),
    ("insert-block", "a:\n  b: 1\n", INS, ("a", "c"), 2, ("a:\n  b: 1\n  c: 2\n", "t")),
    ("insert-block-at-the-end-of-the-file", "a:\n  b: 1", INS, ("a", "c"), 2, ("a:\n  b: 1\n  c: 2", "t")),
    ("insert-block-crlf", "a:\r\n  b: 1\r\n", INS, ("a", "c"), "x", ('a:\r\n  b: 1\r\n  c: "x"\r\n', "t")),
    ("insert-after-a-comment", "a:\n  b: {x: 1} # c\n", INS, ("a", "d"), 2, ("a:\n  b: {x: 1} # c\n  d: 2\n", "t")),
    ("insert-after-a-multi-line-flow", "a:\n  b: [1,\n   2]\n", INS, ("a", "d"), 2,
     ("a:\n  b: [1,\n   2]\n  d: 2\n", "t")),
    ("insert-quoted-like-the-first-key", "a:\n  'b': 1\n", INS, ("a", "c d"), 2, ("a:\n  'b': 1\n  'c d': 2\n", "t")),
    ("insert-flow", "a: {b: 1}\n", INS, ("a", "c"), [1, "ü"], ('a: {b: 1, c: [1, "ü"]}\n', "t")),
    ("insert-three-levels-deep", "x:\n  a:\n    b: 1\n", INS, ("x", "a", "c"), 2,
     ("x:\n  a:\n    b: 1\n    c: 2\n", "t")),
    ("insert-a-key-that-needs-quotes-after-a-plain-key", "a:\n  b: 1\n", INS, ("a", "c d"), 2,
     ('a:\n  b: 1\n  "c d": 2\n', "t")),
    ("insert-a-key-that-needs-quotes-into-an-empty-flow", "a: {}\n", INS, ("a", "c d"), 2, ('a: {"c d": 2}\n', "t")),
    ("insert-into-an-empty-flow-after-a-brace", "# {x}\na: {}\n", INS, ("a", "c"), 2, ("# {x}\na: {c: 2}\n", "t")),
    ("insert-into-an-empty-flow-before-a-brace", "a: {}  # {x}\n", INS, ("a", "c"), 2, ("a: {c: 2}  # {x}\n", "t")),
    ("insert-into-an-empty-flow-document", "{}\n", INS, ("c",), 2, ("{c: 2}\n", "t")),
    ("insert-with-the-line-break-of-the-last-entry", "x: 1\na:\r\n  b: 1\r\n", INS, ("a", "c"), 2,
     ("x: 1\na:\r\n  b: 1\r\n  c: 2\r\n", "t")),
    ("insert-after-a-lone-carriage-return", "a:\r  b: 1\r", INS, ("a", "c"), 2, ("a:\r  b: 1\r  c: 2\r", "t")),
    ("delete-a-value-ending-in-x", "a: X\nb: 2\n", D, ("a",), None, ("b: 2\n", "t")),
    ("insert-flow-empty", "a: {}\n", INS, ("a", "c"), 2, ("a: {c: 2}\n", "t")),
    ("insert-fills-an-empty-value", "a:\n  c:\n  b: 1\n", INS, ("a", "c"), 2, ("a:\n  c: 2\n  b: 1\n", "t")),
    ("insert-fills-null", "a:\n  c: null\n", INS, ("a", "c"), 2, ("a:\n  c: 2\n", "t")),
    ("insert-fills-tilde-before-a-comment", "a:\n  c: ~  # x\n", INS, ("a", "c"), 2, ("a:\n  c: 2  # x\n", "t")),
]


@pytest.mark.parametrize(("text", "kind", "path", "value", "expected"), [c[1:] for c in PLACED],
                         ids=[c[0] for c in PLACED])
def test_each_fix_edits_only_its_node(text: str, kind: FixKind, path: tuple[Any, ...], value: Any,
                                      expected: tuple[str, str]) -> None:
    assert placed(text, kind, path, value) == expected


TAG = "the value has an explicit tag (tag:yaml.org,2002:str)"
NOT_PLAIN_BOOL = "the value is not a plain YAML 1.1 boolean word"
NOT_QUOTED_NUMBER = "the value is not a quoted number"
NOT_NULL = "c is written with a value that is not null"
UNREADABLE = "the document could not be read again to place the fix"
BLOCKED = [
    ("quote-a-quoted-value", "a: 'yes'\n", Q, ("a",), None, "the value is not a plain scalar written as it reads"),
    ("quote-an-anchored-value", "a: &x yes\n", Q, ("a",), None, ANCHORED),
    ("quote-a-tagged-value", "a: !!str yes\n", Q, ("a",), None, TAG),
    ("quote-a-block-scalar", "a: |\n  yes\n", Q, ("a",), None, MULTILINE),
    ("quote-a-folded-scalar", "a: >\n  yes\n", Q, ("a",), None, MULTILINE),
    ("quote-a-multi-line-plain", "a: yes\n  no\n", Q, ("a",), None, MULTILINE),
    ("quote-a-multi-line-lone-cr", "a: yes\r  no\r", Q, ("a",), None, MULTILINE),
    ("quote-a-multi-line-crlf", "a: yes\r\n  no\r\n", Q, ("a",), None, MULTILINE),
    ("quote-a-mapping", "a: {b: 1}\n", Q, ("a",), None, MULTILINE),
    ("quote-an-alias", "b: &y 1\nc: *y\n", Q, ("c",), None, NOT_WRITTEN),
    ("quote-a-missing-key", "a: yes\n", Q, ("b",), None, NOT_WRITTEN),
    ("quote-in-unreadable-yaml", "a: [1\n", Q, ("a",), None, UNREADABLE),
    ("bool-the-other-way", "a: yes\n", R, ("a",), False, NOT_PLAIN_BOOL),
    ("bool-quoted", "a: 'yes'\n", R, ("a",), True, NOT_PLAIN_BOOL),
    ("bool-already-yaml12", "a: true\n", R, ("a",), True, NOT_PLAIN_BOOL),
    ("number-not-quoted", "a: 12\n", R, ("a",), 12, "the value already reads as this number"),
    ("number-with-a-leading-zero", "a: '012'\n", R, ("a",), 12, NOT_QUOTED_NUMBER),
    ("number-from-a-word", "a: 'x'\n", R, ("a",), 12, NOT_QUOTED_NUMBER),
    ("number-that-differs", "a: '12'\n", R, ("a",), 13, "unquoted, the text would read as something else"),
    ("number-that-reads-as-a-bool", "a: '1'\n", R, ("a",), True, NOT_PLAIN_BOOL),
    ("no-text-for-null", "a: x\n", R, ("a",), None, "no text for this value"),
    ("no-text-for-a-list", "a: x\n", R, ("a",), [1], "no text for this value"),
    ("rename-onto-an-existing-key", "a: 1\nb: 2\n", N, ("a",), "b", '"b" is already a key of this mapping'),
    ("rename-to-a-non-string", "a: 1\n", N, ("a",), 5, NOT_WRITTEN),
    ("rename-a-missing-key", "a: 1\n", N, ("z",), "b", NOT_WRITTEN),
    ("rename-a-list-item", "- 1\n", N, (0,), "b", NOT_WRITTEN),
    ("rename-an-anchored-key", "&k a: 1\n", N, ("a",), "b", ANCHORED),
    ("delete-the-only-entry", "a: 1\n", D, ("a",), None, "it is the only entry: its mapping would become null"),
    ("delete-after-a-dash", "- a: 1\n  b: 2\n", D, (0, "a"), None,
     "the key shares its line with a sequence dash or another node"),
    ("delete-an-explicit-key", "? a\n: 1\nb: 2\n", D, ("a",), None,
     "the key shares its line with a sequence dash or another node"),
    ("insert-beside-an-explicit-key", "a:\n  ? b\n  : 1\n  c: 2\n", INS, ("a", "d"), 2,
     "the mapping's keys are not aligned in one column"),
    ("delete-an-anchored-value", "a: &x 1\nb: 2\n", D, ("a",), None,
     "the entry defines an anchor that aliases elsewhere may use"),
    ("delete-an-anchored-key", "&k a: 1\nb: 2\n", D, ("a",), None,
     "the entry defines an anchor that aliases elsewhere may use"),
    ("delete-a-comment-between-flow-entries", "x: {a: 1, # c\n b: 2}\n", D, ("x", "a"), None,
     "a comment or an explicit key ('?') sits between the flow mapping's entries"),
    ("delete-beside-an-explicit-flow-key", "x: {a: 1, ? b : 2}\n", D, ("x", "a"), None,
     "a comment or an explicit key ('?') sits between the flow mapping's entries"),
    ("delete-a-list-item", "l: [1, 2]\nb: 2\n", D, ("l", 0), None, NOT_WRITTEN),
    ("delete-the-document", "a: 1\n", D, (), None, NOT_WRITTEN),
    ("delete-a-missing-key", "a: 1\nb: 2\n", D, ("z",), None, NOT_WRITTEN),
    ("insert-over-a-value", "a:\n  c: 1\n", INS, ("a", "c"), 2, NOT_NULL),
    ("insert-over-an-anchored-null", "a:\n  c: &n null\n", INS, ("a", "c"), 2, NOT_NULL),
    ("insert-over-a-quoted-null", "a:\n  c: 'null'\n", INS, ("a", "c"), 2, NOT_NULL),
    ("insert-at-the-root-path", "a: 1\n", INS, (), 2, NOT_WRITTEN),
    ("insert-a-list-index", "a: 1\n", INS, ("a", 0), 2, NOT_WRITTEN),
    ("insert-into-a-scalar", "a: 1\n", INS, ("a", "b"), 2, NOT_WRITTEN),
    ("insert-into-a-missing-mapping", "a: 1\n", INS, ("z", "b"), 2, NOT_WRITTEN),
    ("split-has-no-placement", "a: 1\n", FixKind.SPLIT_SEPARATOR, ("a",), None,
     "no placement for split-separator fixes"),
]


@pytest.mark.parametrize(("text", "kind", "path", "value", "reason"), [c[1:] for c in BLOCKED],
                         ids=[c[0] for c in BLOCKED])
def test_a_fix_that_cannot_be_placed_safely_says_why(text: str, kind: FixKind, path: tuple[Any, ...], value: Any,
                                                     reason: str) -> None:
    assert placed(text, kind, path, value) == reason


def test_insert_into_json_keeps_its_quoted_keys() -> None:
    text = '{"a": {"b": 1}}\n'
    (out,) = resolve([diag(INS, ("a", "c"), 2)], text, 0, LineIndex(text), json_span_tree)
    assert out.fix is not None
    assert apply_edits(text, [(e.start, e.end, e.text) for e in out.fix.edits]) == '{"a": {"b": 1, "c": 2}}\n'


def test_edits_are_placed_in_the_file_by_offset_line_and_column() -> None:
    first = "x: 1\n---\n"
    doc = "a: yes\nb: 2\n"
    text = first + doc
    (out,) = resolve([diag(Q, ("b",)), diag(Q, ("a",))][1:], doc, len(first), LineIndex(text))
    assert out.fix is not None
    assert out.fix.edits == (Edit(len(first) + 3, len(first) + 6, '"yes"', 3, 4, 3, 7),)


def test_fixes_with_edits_or_blocked_pass_through_and_one_node_gets_one_fix() -> None:
    text = "a: yes\n"
    given = diag(Q, ("a",), edits=(Edit(0, 1, "b"),))
    blocked = Diagnostic("r", Severity.ERROR, "m", "f", fix=Fix(Q, ("a",), blocked="earlier reason"))
    plain = Diagnostic("r", Severity.ERROR, "m", "f")
    out = resolve([given, blocked, plain, diag(Q, ("a",)), diag(Q, ("a",))], text, 2, LineIndex("xx" + text))
    assert out[0].fix is not None and out[0].fix.edits == (Edit(2, 3, "b", 1, 3, 1, 4),)
    assert out[1] is blocked and out[2] is plain
    assert out[3].fix is not None and [e.text for e in out[3].fix.edits] == ['"yes"']
    assert out[3].fix.value == "yes"  # ``-o json`` shows the text that is quoted
    assert out[4].fix is None  # the same replacement again: offered once
    # a refused placement or a repeated fix does not end the list: every later finding is still resolved
    refused = diag(Q, ("z",))
    later = resolve([refused, diag(Q, ("a",)), diag(Q, ("a",)), diag(Q, ("a",), title="x"), plain], text, 0,
                    LineIndex(text))
    assert [d.fix.blocked if d.fix else None for d in later] == [NOT_WRITTEN, "", None, None, None]
    assert len(later) == 5


def test_the_document_is_read_once_and_only_when_a_fix_needs_placing() -> None:
    reads: list[str] = []

    def read(text: str) -> Any:
        reads.append(text)
        from kubectl_testbench.validate.spans import span_tree

        return span_tree(text)

    text = "a: yes\nb: no\n"
    resolve([diag(Q, ("a",), edits=(Edit(0, 1, "b"),))], text, 0, LineIndex(text), read)
    assert reads == []
    resolve([diag(Q, ("a",)), diag(Q, ("b",))], text, 0, LineIndex(text), read)
    assert reads == [text]


def test_scalar_text_per_style() -> None:
    assert scalar_text("it's", "'") == "'it''s'"
    assert scalar_text("abc", "") == "abc"
    assert scalar_text("abc", '"') == '"abc"'
    assert scalar_text("12", "") == '"12"'
    assert scalar_text("a b", "") == '"a b"'
    assert scalar_text("ü", "") == '"ü"'


@pytest.mark.parametrize(("data", "expected"), [
    (codecs.BOM_UTF32_LE + b"a\0\0\0", (codecs.BOM_UTF32_LE, "utf-32-le")),
    (codecs.BOM_UTF32_BE + b"\0\0\0a", (codecs.BOM_UTF32_BE, "utf-32-be")),
    (codecs.BOM_UTF8 + b"a", (codecs.BOM_UTF8, "utf-8")),
    (codecs.BOM_UTF16_LE + b"a\0", (codecs.BOM_UTF16_LE, "utf-16-le")),
    (codecs.BOM_UTF16_BE + b"\0a", (codecs.BOM_UTF16_BE, "utf-16-be")),
    (b"a", (b"", "utf-8")),
])
def test_encoding_of_reads_the_byte_order_mark_utf32_before_utf16(data: bytes, expected: tuple[bytes, str]) -> None:
    assert encoding_of(data) == expected


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_byte_offsets_count_the_files_own_bytes(codec: str) -> None:
    text = "ä: yes\nb: 𝄞 no\n"
    data = text.encode(codec)
    found = [diag(Q, ("a",), edits=(Edit(3, 6, '"yes"'),)), Diagnostic("r", Severity.ERROR, "m", "f"),
             diag(Q, ("b",), edits=(Edit(12, 14, '"no"'), Edit(7, 7, "")))]
    out = with_byte_offsets(found, text, data)
    bom = encoding_of(data)[0]
    encoding = encoding_of(data)[1]

    def at(offset: int) -> int:
        return len(bom) + len(text[:offset].encode(encoding))

    assert out[0].fix is not None and out[2].fix is not None
    assert [(e.byte_start, e.byte_end) for e in out[0].fix.edits] == [(at(3), at(6))]
    assert out[1] is found[1]
    assert [(e.byte_start, e.byte_end) for e in out[2].fix.edits] == [(at(12), at(14)), (at(7), at(7))]
    assert data[at(3):at(6)].decode(encoding) == "yes" and data[at(12):at(14)].decode(encoding) == "no"


def test_byte_offsets_without_edits_return_the_list_unchanged() -> None:
    found = [Diagnostic("r", Severity.ERROR, "m", "f")]
    assert with_byte_offsets(found, "a", b"a") is found


def test_apply_edits_in_offset_order_keeping_insertions_in_order() -> None:
    assert apply_edits("abcdef", [(4, 5, "E"), (0, 1, "A"), (2, 2, "y"), (2, 2, "x"), (2, 3, "C")]) == "Abyx" + "CdEf"
    assert apply_edits("abc", [(2, 2, "x"), (1, 2, "B")]) == "aBxc"  # by start, not by end
