"""The YAML reader's results a user sees: syntax errors with their places, empty and extra documents, tags,
aliases, key types, merge keys and the paths every remark carries."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.limits import Limits


def _error(text: str, **kw: object) -> tuple[str, str, tuple[int, int], tuple[int, int] | None]:
    result = build(text, **kw)  # type: ignore[arg-type]
    assert result.error is not None and result.data is None
    return result.error.rule, result.error.message, result.error.mark, result.error.context


def _remarks(text: str) -> list[tuple[str, str, tuple[int, int], tuple[object, ...]]]:
    result = build(text)
    assert result.error is None
    return [(r.rule, r.message, r.mark, r.path) for r in result.remarks]


@pytest.mark.parametrize(("text", "offset", "error"), [
    ('a: "unclosed\n', 0, ("yaml/syntax", "found unexpected end of stream while scanning a quoted scalar", (2, 1),
                           (1, 4))),
    ('a: "unclosed\n', 3, ("yaml/syntax", "found unexpected end of stream while scanning a quoted scalar", (5, 1),
                           (4, 4))),
    ("a: [1, 2\n", 0, ("yaml/syntax", "did not find expected ',' or ']' while parsing a flow sequence", (2, 1),
                       (1, 4))),
    ("a:\n  b: 1\n c: 2\n", 1, ("yaml/syntax", "did not find expected key while parsing a block mapping", (4, 2),
                                (2, 1))),
    ("a: \x07\n", 0, ("yaml/syntax", "unacceptable character #x0007: control characters are not allowed", (1, 4),
                      None)),
    ("a: 1\nb: x\x07\n", 3, ("yaml/syntax", "unacceptable character #x0007: control characters are not allowed",
                             (5, 5), None)),
])
def test_syntax_errors_have_a_place_and_where_the_construct_began(text: str, offset: int,
                                                                  error: tuple[object, ...]) -> None:
    assert _error(text, line_offset=offset) == error


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n", "--- # c\n...\n"])
def test_empty_documents(text: str) -> None:
    result = build(text)
    assert (result.data, result.empty, result.error, result.extra_documents, result.ignored) == (
        None, True, None, False, None)


@pytest.mark.parametrize(("text", "offset", "extra", "ignored"), [
    ("a: 1\n", 0, False, None),
    ("a: 1\n---\nb: 2\n", 0, True, None),
    ("a: 1\n...\n", 0, False, None),
    ("a: 1\n...\nb: 2\n", 0, True, (3, 1)),  # kubectl drops what follows '...' in the same chunk
    ("a: 1\n...\nb: 2\n", 4, True, (7, 1)),
    ("a: 1\n...\n---\nb: 1\n", 0, True, (3, 1)),
])
def test_what_follows_the_first_document(text: str, offset: int, extra: bool, ignored: tuple[int, int] | None) -> None:
    result = build(text, line_offset=offset)
    assert (result.data, result.empty, result.extra_documents, result.ignored) == ({"a": 1}, False, extra, ignored)


def test_unknown_tags_are_remarked_at_the_tagged_node_with_its_path() -> None:
    text = "a: !foo {b: 1}\nc: !!set {d}\ne: !!map {}\nf: !!seq []\ng: ! {}\nh: [0, !bar [1]]\ni: !custom 5\n"
    result = build(text)
    assert result.data == {"a": {"b": 1}, "c": {"d": None}, "e": {}, "f": [], "g": {}, "h": [0, [1]], "i": "5"}
    assert [(r.rule, r.message, r.mark, r.path) for r in result.remarks] == [
        ("yaml/unknown-tag", "tag !foo is ignored by Kubernetes", (1, 4), ("a",)),
        ("yaml/unknown-tag", "tag tag:yaml.org,2002:set is ignored by Kubernetes", (2, 4), ("c",)),
        ("yaml/unknown-tag", "tag !bar is ignored by Kubernetes", (6, 8), ("h", 1)),
        ("yaml/unknown-tag", "tag !custom is ignored by Kubernetes", (7, 4), ("i",)),
    ]


def test_a_quoted_or_non_specific_tagged_scalar_is_a_string() -> None:
    assert build("a: ! 5\nb: ! yes\n").data == {"a": "5", "b": "yes"}


@pytest.mark.parametrize(("text", "mark"), [("a: *x\n", (1, 4)), ("a: &x [*x]\n", (1, 8)),
                                            ("a: &x {b: *x}\n", (1, 11))])
def test_unknown_and_recursive_aliases(text: str, mark: tuple[int, int]) -> None:
    assert _error(text) == ("yaml/alias", 'unknown or recursive alias "*x"', mark, None)


def test_aliases_copy_scalars_and_collections() -> None:
    assert build("a: &v 1\nb: *v\nc: &m {d: [1]}\ne: *m\nf: &s [x]\ng: *s\n").data == {
        "a": 1, "b": 1, "c": {"d": [1]}, "e": {"d": [1]}, "f": ["x"], "g": ["x"]}


def test_alias_budget_counts_each_expansion_against_ten_times_the_document() -> None:
    # a is 9 nodes, b expands 8 x 9 = 72 (b is 73 nodes), c expands 8 x 73 = 584: 656 nodes added by aliases
    # while 33 events were read, so 656 - 10 x 33 = 326 nodes beyond the allowance
    text = ("a: &a [1, 2, 3, 4, 5, 6, 7, 8]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: [*b, *b, *b, *b, *b, *b, *b, *b]\n")
    assert build(text, limits=Limits(alias_budget=326)).error is None
    assert _error(text, limits=Limits(alias_budget=325)) == (
        "yaml/alias-limit", "alias expansion exceeds the limit (325 nodes beyond 10x the document; a "
        "billion-laughs document?)", (3, 33), None)


def test_limits_name_their_flag_at_the_place_they_were_crossed() -> None:
    assert _error("[[[1]]]\n", limits=Limits(max_depth=2), line_offset=1) == (
        "yaml/too-deep", "nesting deeper than 2 levels (raise with --max-depth)", (2, 3), None)
    assert build("[[1]]\n", limits=Limits(max_depth=2)).error is None
    assert build("[1, 2]\n", limits=Limits(max_nodes=5)).error is None
    assert _error("[1, 2]\n", limits=Limits(max_nodes=4), line_offset=2) == (
        "yaml/too-many-nodes", "more than 4 nodes in one document (raise with --max-nodes)", (4, 1), None)
    # the fifth event is the document's end, on the line after the sequence


def test_keys_become_json_object_keys_as_sigs_k8s_yaml_writes_them() -> None:
    result = build("true: 1\nno: 2\n3: c\n1.5: d\n0x10: e\n? !!binary aGk=\n: f\n-1e3: g\n")
    assert result.data == {"true": 1, "false": 2, "3": "c", "1.5": "d", "16": "e", "hi": "f", "-1000": "g"}
    assert [(r.rule, r.mark, r.path) for r in result.remarks] == [("yaml/yaml11-boolean", (2, 1), ())]


@pytest.mark.parametrize(("text", "kind", "mark"), [
    ("~: 1\n", "null", (1, 1)), ("a:\n  [1]: x\n", "list", (2, 3)), ("{a: 1}: x\n", "dict", (1, 1))])
def test_keys_json_cannot_have_are_errors(text: str, kind: str, mark: tuple[int, int]) -> None:
    assert _error(text) == ("yaml/key-type", f"a {kind} cannot be a mapping key in Kubernetes YAML", mark, None)


MERGED = ('key "{}" is set both by a merge key (<<) and by another entry: strict decoding rejects it '
          "(without it, the later one wins)")


def test_merge_keys_apply_where_they_stand_and_the_first_merged_map_wins() -> None:
    result = build("<<: [{a: 1}, {a: 2, b: 2}]\nb: 3\n")
    assert result.data == {"a": 1, "b": 3}
    assert [(r.rule, r.message, r.mark, r.path) for r in result.remarks] == [
        ("yaml/duplicate-key", MERGED.format("a"), (1, 1), ("a",)),
        ("yaml/duplicate-key", MERGED.format("b"), (2, 1), ("b",)),
    ]
    before = build("a: 0\n<<: {a: 1}\n")
    assert before.data == {"a": 1}
    assert [(r.message, r.mark) for r in before.remarks] == [(MERGED.format("a"), (2, 1))]


def test_merged_entries_keep_the_positions_of_their_source() -> None:
    result = build("x: &d {a: 1, b: [2]}\nz:\n  <<: *d\n  b: 3\n")
    assert result.data == {"x": {"a": 1, "b": [2]}, "z": {"a": 1, "b": 3}}
    z = result.data["z"]
    assert z.key_marks == {"a": (1, 8), "b": (4, 3)} and z.value_marks == {"a": (1, 11), "b": (4, 6)}
    assert [(r.message, r.mark, r.path) for r in result.remarks] == [(MERGED.format("b"), (4, 3), ("z", "b"))]


def test_a_plain_duplicate_key_is_its_own_message() -> None:
    assert _remarks("a: 1\nb: 2\na: 3\n") == [
        ("yaml/duplicate-key", 'duplicate key "a" (first at line 1, column 1): the later value wins', (3, 1), ("a",))]


@pytest.mark.parametrize("text", ["<<: 5\n", "<<: [{a: 1}, 2]\n", "<<: [[{a: 1}]]\n"])
def test_a_merge_of_anything_but_mappings_is_an_error(text: str) -> None:
    assert _error(text)[:2] == ("yaml/merge", "a merge key (<<) needs a mapping or a list of mappings")


def test_yaml11_remarks_carry_the_path_of_the_value() -> None:
    assert _remarks("l: [yes, [no]]\nm: {on: 1, k: off}\n") == [
        ("yaml/yaml11-boolean", 'yes is read as the boolean true by Kubernetes (YAML 1.1); quote it ("yes") if you '
         "meant a string", (1, 5), ("l", 0)),
        ("yaml/yaml11-boolean", 'no is read as the boolean false by Kubernetes (YAML 1.1); quote it ("no") if you '
         "meant a string", (1, 11), ("l", 1, 0)),
        ("yaml/yaml11-boolean", 'on is read as the boolean true by Kubernetes (YAML 1.1); quote it ("on") if you '
         "meant a string", (2, 5), ("m",)),
        ("yaml/yaml11-boolean", 'off is read as the boolean false by Kubernetes (YAML 1.1); quote it ("off") if you '
         "meant a string", (2, 15), ("m", "k")),
    ]


@pytest.mark.parametrize(("text", "message"), [
    ("a: 1:20\n", '1:20 is a string for Kubernetes but a base-60 number for YAML 1.1 tools; quote it ("1:20")'),
    ("a: 0755\n", "0755 is read as the octal number 493 by Kubernetes (YAML 1.1) but as 755 by YAML 1.2 tools"),
    ("a: 00\n", "00 is read as the octal number 0 by Kubernetes (YAML 1.1) but as 0 by YAML 1.2 tools"),
    ("a: -017\n", "-017 is read as the octal number -15 by Kubernetes (YAML 1.1) but as -17 by YAML 1.2 tools"),
    ("a: 0_17\n", '0_17 is read as the octal number 15 by Kubernetes (YAML 1.1) but as the string "0_17" by '
                  "YAML 1.2 tools"),
    ("a: .nan\n", ".nan cannot be represented in JSON; Kubernetes rejects it"),
])
def test_note_messages_verbatim(text: str, message: str) -> None:
    (remark,) = build(text).remarks
    assert (remark.message, remark.mark, remark.path, remark.text) == (message, (1, 4), ("a",), text[3:-1])


@pytest.mark.parametrize(("text", "data"), [
    ('"<<": {a: 1}\n', {"<<": {"a": 1}}),  # only a plain << is a merge key
    ("- <<\n", ["<<"]),
    ("a: <<\n", {"a": "<<"}),
    ("? <<\n: {a: 1}\n", {"a": 1}),
])
def test_only_a_plain_key_spelled_lt_lt_merges(text: str, data: object) -> None:
    result = build(text)
    assert (result.data, result.error, result.remarks) == (data, None, [])


def test_an_aliased_scalar_counts_as_one_node() -> None:
    # b = 1 + 9 x 1 nodes, c = 1 + 9 x 10, d expands 9 x 91: 9 + 90 + 819 = 918 added while 38 events were read
    text = ("a: &a x\nb: &b [" + ", ".join(["*a"] * 9) + "]\nc: &c [" + ", ".join(["*b"] * 9) + "]\nd: ["
            + ", ".join(["*c"] * 9) + "]\n")
    assert build(text, limits=Limits(alias_budget=538)).error is None
    assert _error(text, limits=Limits(alias_budget=537))[:3] == (
        "yaml/alias-limit", "alias expansion exceeds the limit (537 nodes beyond 10x the document; a "
        "billion-laughs document?)", (4, 37))


def test_an_explicit_duplicate_in_a_map_with_a_merge_is_a_plain_duplicate() -> None:
    assert _remarks("<<: {a: 1}\nb: 1\nb: 2\n") == [
        ("yaml/duplicate-key", 'duplicate key "b" (first at line 2, column 1): the later value wins', (3, 1), ("b",))]


def test_syntax_error_without_a_context() -> None:
    assert _error("a: b: c\n") == ("yaml/syntax", "mapping values are not allowed in this context", (1, 5), None)


def test_a_non_finite_float_from_a_tag_is_noted_at_its_key() -> None:
    assert _remarks("a:\n  b: !!float .inf\n") == [
        ("yaml/non-finite", ".inf cannot be represented in JSON; Kubernetes rejects it", (2, 6), ("a", "b"))]


@pytest.mark.parametrize(("text", "data"), [
    ("a: ! 123\n", {"a": "123"}),  # the non-specific tag: a string, and no remark
    ("a: ! yes\n", {"a": "yes"}),
    ("a: '1:20'\n", {"a": "1:20"}),
    ("a: |\n  017\n", {"a": "017\n"}),
])
def test_quoted_block_and_non_specific_scalars_are_strings_without_remarks(text: str, data: object) -> None:
    result = build(text)
    assert (result.data, result.remarks, result.error) == (data, [], None)


def test_remarks_inside_a_merged_mapping_carry_the_path_without_the_merge_key() -> None:
    assert _remarks("spec:\n  <<: {a: yes}\n") == [
        ("yaml/yaml11-boolean", 'yes is read as the boolean true by Kubernetes (YAML 1.1); quote it ("yes") if '
         "you meant a string", (2, 11), ("spec", "a"))]


def test_a_merge_of_a_scalar_is_an_error_at_the_merged_value() -> None:
    assert _error("a: 1\n<<: 5\n") == (
        "yaml/merge", "a merge key (<<) needs a mapping or a list of mappings", (2, 5), None)
    assert build("a: 1\n<<: 5\n").error.path == ()  # type: ignore[union-attr]


def test_merged_keys_keep_the_marks_of_their_source() -> None:
    data = build("d: &d {p: 1, q: 2}\nm:\n  <<: *d\n  z: 3\n").data
    m = data["m"]
    assert (m.key_marks, m.value_marks) == ({"p": (1, 8), "q": (1, 14), "z": (4, 3)},
                                            {"p": (1, 11), "q": (1, 17), "z": (4, 6)})


def test_an_empty_document_is_empty_with_null_data() -> None:
    for text in ("", "---\n", "---\n...\n", "# only a comment\n"):
        result = build(text)
        assert (result.data, result.empty, result.error) == (None, True, None), text
    assert (build("--- 0\n").data, build("--- 0\n").empty) == (0, False)


def test_read_errors_carry_their_message_as_the_exception_text() -> None:
    from kubectl_testbench.load.builder import YamlReadError

    err = YamlReadError("yaml/alias", "unknown alias", (3, 4))
    assert (str(err), err.rule, err.message, err.mark) == ("unknown alias", "yaml/alias", "unknown alias", (3, 4))


class _Mark:
    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column


@pytest.mark.parametrize(("raised", "offset", "expected"), [
    # libyaml always gives a problem and a mark; these are the fallbacks for an error that lacks them
    (lambda: __import__("yaml").MarkedYAMLError(), 0, ("yaml/syntax", "invalid YAML", (1, 1), None)),
    (lambda: __import__("yaml").MarkedYAMLError(), 4, ("yaml/syntax", "invalid YAML", (5, 1), None)),
    (lambda: __import__("yaml").MarkedYAMLError(context="while x", context_mark=_Mark(2, 3)), 0,
     ("yaml/syntax", "invalid YAML while x", (3, 4), (3, 4))),
    (lambda: __import__("yaml").YAMLError("first line\nsecond line"), 0, ("yaml/syntax", "first line", (1, 1), None)),
    (lambda: __import__("yaml").YAMLError("first line\nsecond line"), 6, ("yaml/syntax", "first line", (7, 1), None)),
    # the pure-Python reader names the character as text, libyaml as a number
    (lambda: __import__("yaml").reader.ReaderError("f", 13, "\x07", "utf-8", "control characters are not allowed"),
     2, ("yaml/syntax", "unacceptable character '\\x07': control characters are not allowed", (5, 4), None)),
])
def test_read_errors_without_the_usual_details_still_get_a_message_and_a_place(
        monkeypatch: pytest.MonkeyPatch, raised: object, offset: int, expected: tuple[object, ...]) -> None:
    from kubectl_testbench.load import builder

    def fail(*args: object) -> None:
        raise raised()  # type: ignore[operator]

    monkeypatch.setattr(builder, "_build", fail)
    result = builder.build("a: 1\nb: 2\nc: x\n", line_offset=offset)
    assert result.error is not None and result.error.path == ()
    assert (result.error.rule, result.error.message, result.error.mark, result.error.context) == expected
