"""JSON input read as kubectl reads it (Go's encoding/json): each syntax error's message and place, duplicate
fields, surrogate escapes, the limits, and the fast reader agreeing with the positional one or stepping aside."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.jsonread import read_fast, read_stream, string_value
from kubectl_testbench.load.limits import Limits


@pytest.mark.parametrize(("text", "rule", "message", "mark"), [
    ('{"a":', "yaml/syntax", "unexpected end of JSON input", (1, 6)),
    ("[1,2", "yaml/syntax", "unexpected end of JSON input", (1, 5)),
    ('{"a" 1}', "yaml/syntax", "expected ':' after an object key", (1, 6)),
    ('{\n  "a"\n  1}', "yaml/syntax", "expected ':' after an object key", (3, 3)),
    ("{1:2}", "yaml/syntax", "expected a string as object key", (1, 2)),
    ("[1 2]", "yaml/syntax", "invalid character after a value: expected ',' or a closing bracket", (1, 4)),
    ('{"a":1 "b":2}', "yaml/syntax", "invalid character after a value: expected ',' or a closing bracket", (1, 8)),
    ("[1,]", "yaml/syntax", "invalid character ']' looking for beginning of value", (1, 4)),
    ('{"a":1,}', "yaml/syntax", "invalid character '}' looking for beginning of value", (1, 8)),
    ("[1}", "yaml/syntax", "invalid character '}'", (1, 3)),
    ('{"a":1]', "yaml/syntax", "invalid character ']'", (1, 7)),
    ("]", "yaml/syntax", "invalid character ']'", (1, 1)),
    ("[,1]", "yaml/syntax", "invalid character ',' looking for beginning of value", (1, 2)),
    (",", "yaml/syntax", "invalid character ',' looking for beginning of value", (1, 1)),
    ("[:]", "yaml/syntax", "invalid character ':'", (1, 2)),
    ('"\x01"', "yaml/syntax", "invalid string: a control character or an invalid escape", (1, 1)),
    ('["\\x"]', "yaml/syntax", "invalid string: a control character or an invalid escape", (1, 2)),
    ("[tru]", "yaml/syntax", "invalid character 't' looking for beginning of value", (1, 2)),
    ("[1,\n  NaN]", "yaml/syntax", "invalid character 'N' looking for beginning of value", (2, 3)),
    ("[1e400]", "yaml/non-finite", "1e400 is out of range for a 64-bit float; Kubernetes cannot decode it", (1, 2)),
    ("[-1.5e309]", "yaml/non-finite", "-1.5e309 is out of range for a 64-bit float; Kubernetes cannot decode it",
     (1, 2)),
])
def test_syntax_errors_name_the_problem_and_its_place(text: str, rule: str, message: str,
                                                      mark: tuple[int, int]) -> None:
    docs = list(read_stream(text))
    assert len(docs) == 1 and docs[0].data is None and docs[0].error is not None
    assert (docs[0].error.rule, docs[0].error.message, docs[0].error.mark) == (rule, message, mark)
    assert read_fast(text) is None


def test_nothing_is_read_after_an_error() -> None:
    docs = list(read_stream('{"a":1}}{"b":2}'))
    assert [(d.data, d.start, d.error and d.error.message) for d in docs] == [
        ({"a": 1}, 0, None), (None, 7, "invalid character '}'")]


def test_a_stream_of_values_with_their_first_lines_and_offsets() -> None:
    text = '  \n{}{"x":[]} [1]\n\n{"y":\n 2}\n'
    assert [(d.data, d.start_line, d.start, d.error, d.remarks) for d in read_stream(text)] == [
        ({}, 1, 3, None, []), ({"x": []}, 1, 5, None, []), ([1], 1, 14, None, []), ({"y": 2}, 3, 19, None, [])]
    assert read_fast(text) == [({}, 1), ({"x": []}, 1), ([1], 1), ({"y": 2}, 3)]
    assert list(read_stream(" \n ")) == [] and read_fast(" \n ") == []


def test_values_and_their_marks() -> None:
    (doc,) = read_stream('{"a": [-0, 1.5, 2E3, true, false, null, "s"],\n "b": {}, "c": []}')
    assert doc.data == {"a": [0, 1.5, 2000.0, True, False, None, "s"], "b": {}, "c": []}
    assert [type(v) for v in doc.data["a"][:3]] == [int, float, float]
    assert doc.data.mark == (1, 1)
    assert doc.data.key_marks == {"a": (1, 2), "b": (2, 2), "c": (2, 11)}
    assert doc.data.value_marks == {"a": (1, 7), "b": (2, 7), "c": (2, 16)}
    assert doc.data["a"].item_marks == [(1, 8), (1, 12), (1, 17), (1, 22), (1, 28), (1, 35), (1, 41)]


def test_duplicate_fields_are_kept_last_and_reported_at_the_key_with_their_path() -> None:
    (doc,) = read_stream('\n{"a":{"b":[1,{"c":1,"c":2}]},"a2":1,"a2":[]}')
    assert doc.data == {"a": {"b": [1, {"c": 2}]}, "a2": []}
    assert [(r.rule, r.message, r.mark, r.path) for r in doc.remarks] == [
        ("yaml/duplicate-key", 'duplicate field "c": strict decoding rejects it (the later value wins)', (2, 21),
         ("a", "b", 1, "c")),
        ("yaml/duplicate-key", 'duplicate field "a2": strict decoding rejects it (the later value wins)', (2, 37),
         ("a2",)),
    ]
    assert read_fast('{"a":1,"a":2}') is None


def test_surrogate_escapes_decode_as_go_does() -> None:
    text = '["\\ud83d\\ude00", "\\ud83d", "\\ude00x", "\\u00e9", "plain"]'
    (doc,) = read_stream(text)
    assert doc.data == ["😀", "\ufffd", "\ufffdx", "é", "plain"]
    assert read_fast(text) is None  # a lone surrogate: only the positional reader replaces it
    assert read_fast('["\\ud83d\\ude00"]') == [(["😀"], 0)]
    assert string_value('"a\\"b"') == 'a"b' and string_value('"ab"') == "ab"


@pytest.mark.parametrize("text", ["[NaN]", "[Infinity]", "[-Infinity]", "[1e999]"])
def test_the_fast_reader_steps_aside_for_what_json_has_not(text: str) -> None:
    assert read_fast(text) is None


def test_depth_limit_in_both_readers() -> None:
    limits = Limits(max_depth=3)
    assert read_fast("[[[1]]]", limits) == [([[[1]]], 0)]
    assert read_fast('{"a":{"b":{}}}', limits) == [({"a": {"b": {}}}, 0)]
    assert read_fast("[[[[1]]]]", limits) is None
    assert read_fast('{"a":{"b":{"c":{}}}}', limits) is None
    (ok,) = read_stream("[[[1]]]", limits)
    assert ok.error is None
    (deep,) = read_stream("[[[\n[1]]]]", limits)
    assert deep.error is not None
    assert (deep.error.rule, deep.error.message, deep.error.mark) == (
        "yaml/too-deep", "nesting deeper than 3 levels (raise with --max-depth)", (2, 1))


def test_node_limit_in_both_readers() -> None:
    limits = Limits(max_nodes=6)
    # the fast reader counts containers and their entries; the positional one counts tokens
    assert read_fast("[1,2,3,4]", limits) == [([1, 2, 3, 4], 0)]
    assert read_fast("[1,2,3,4,5,6]", limits) is None
    assert read_fast("[[1],[2],3]", limits) is None
    four = '{"a":1,"b":2,"c":3,"d":4}'  # 4 ':' and 3 ',': refused unread above 7, decoded (5 nodes) from 7 on
    assert read_fast(four, Limits(max_nodes=6)) is None
    assert read_fast(four, Limits(max_nodes=7)) == [({"a": 1, "b": 2, "c": 3, "d": 4}, 0)]
    (ok,) = read_stream('{"a":[1]}', limits)  # 6 tokens: { "a": [ 1 ] }
    assert ok.error is None and ok.data == {"a": [1]}
    (over,) = read_stream("[1,2,3]", limits)  # the 7th token is the closing bracket
    assert over.error is not None
    assert (over.error.rule, over.error.message, over.error.mark) == (
        "yaml/too-many-nodes", "more than 6 nodes in one document (raise with --max-nodes)", (1, 7))


def test_empty_containers_closed_at_once_keep_the_paths_that_follow() -> None:
    (doc,) = read_stream('{"x":[{}, [], {"c":1,"c":2}], "y":{"z":{},"d":1,"d":2}}')
    assert doc.data == {"x": [{}, [], {"c": 2}], "y": {"z": {}, "d": 2}}
    assert [(r.path, r.mark) for r in doc.remarks] == [(("x", 2, "c"), (1, 22)), (("y", "d"), (1, 49))]
    assert doc.data["x"].item_marks == [(1, 7), (1, 11), (1, 15)]


def test_upper_case_surrogate_escapes_are_recognised() -> None:
    text = '["\\uD83D\\uDE00", "\\uDE00\\uD83D"]'
    assert read_fast(text) is None  # a low surrogate before a high one: both unpaired
    (doc,) = read_stream(text)
    assert doc.data == ["😀", "\ufffd\ufffd"]
    assert read_fast('["\\uD83D\\uDE00"]') == [(["😀"], 0)]


@pytest.mark.parametrize(("text", "nodes"), [
    ("[1,2,3,4]", 5),  # the list and its four items
    ('{"a":[1,2],"b":{"c":1}}', 8),  # 1 + 2 entries, [1,2]: 1 + 2, {"c":1}: 1 + 1
    ("[[[]]]", 5),  # a nested container counts as its parent's entry and as a node
])
def test_the_fast_reader_takes_a_document_of_exactly_the_node_limit(text: str, nodes: int) -> None:
    """Above the limit the positional reader takes over (and reports it); at the limit the fast one decodes."""
    import json

    assert read_fast(text, Limits(max_nodes=nodes)) == [(json.loads(text), 0)]
    assert read_fast(text, Limits(max_nodes=nodes - 1)) is None
