"""Source spans that fixes edit: where each node starts and ends, its style, and how paths find it."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.spans import (
    Node,
    find,
    has_anchor,
    json_span_tree,
    key_name,
    line_break,
    line_end,
    line_start,
    span_tree,
)


def text_of(source: str, node: Node) -> str:
    return source[node.start:node.end]


YAML = """\
spec:
  name: "quoted"
  plain: word
  list:
    - a
    - &anchor b
  flow: {x: 1, k: [2, 3]}
  block: |
    line
  empty: {}
"""


def test_yaml_nodes_span_exactly_what_was_written() -> None:
    root = span_tree(YAML)
    assert root is not None and root.kind == "map" and not root.flow
    assert (root.start, root.end) == (0, YAML.index("{}") + 2)
    _, key, node = find(root, ("spec", "name"))  # type: ignore[misc]
    assert key is not None and text_of(YAML, key) == "name"
    assert (text_of(YAML, node), node.style, node.value, node.plain) == ('"quoted"', '"', "quoted", False)
    _, _, node = find(root, ("spec", "plain"))  # type: ignore[misc]
    assert (text_of(YAML, node), node.style, node.plain) == ("word", "", True)
    parent, key, node = find(root, ("spec", "list", 1))  # type: ignore[misc]
    assert parent is not None and parent.kind == "seq" and key is None
    assert (text_of(YAML, node), node.anchor) == ("&anchor b", "anchor")
    _, _, flow = find(root, ("spec", "flow"))  # type: ignore[misc]
    assert (flow.flow, text_of(YAML, flow)) == (True, "{x: 1, k: [2, 3]}")
    _, _, inner = find(root, ("spec", "flow", "k"))  # type: ignore[misc]
    assert (inner.kind, inner.flow, text_of(YAML, inner)) == ("seq", True, "[2, 3]")
    _, _, seq = find(root, ("spec", "list"))  # type: ignore[misc]
    assert text_of(YAML, seq) == "- a\n    - &anchor b"  # a block ends with its last item
    _, _, block = find(root, ("spec", "block"))  # type: ignore[misc]
    assert block.style == "|" and block.value == "line\n"
    _, _, empty = find(root, ("spec", "empty"))  # type: ignore[misc]
    assert (empty.kind, text_of(YAML, empty), empty.entries) == ("map", "{}", [])


def test_an_empty_block_collection_ends_where_it_starts() -> None:
    source = "a: !!map\nb: 1\n"
    root = span_tree(source)
    assert root is not None
    _, _, node = find(root, ("a",))  # type: ignore[misc]
    assert node.tag == "tag:yaml.org,2002:map" and not node.plain


def test_span_tree_of_a_scalar_document_and_of_nothing() -> None:
    root = span_tree("just text\n")
    assert root is not None and (root.kind, root.value, root.start, root.end) == ("scalar", "just text", 0, 9)
    assert span_tree("") is None
    assert span_tree("a: [\n") is None
    first = span_tree("a: 1\n---\nb: 2\n")
    assert first is not None and [key_name(k) for k, _ in first.entries] == ["a"]


def test_aliases_are_their_own_nodes_and_anchors_are_found_inside() -> None:
    source = "a: &x {k: 1}\nb: *x\nc: [1, &y 2]\nd: {e: f}\n"
    root = span_tree(source)
    assert root is not None
    _, _, alias = find(root, ("b",))  # type: ignore[misc]
    assert (alias.kind, alias.anchor, text_of(source, alias)) == ("alias", "x", "*x")
    assert find(root, ("b", "k")) is None, "a path through an alias leaves the written text"
    _, _, a = find(root, ("a",))  # type: ignore[misc]
    _, _, c = find(root, ("c",))  # type: ignore[misc]
    _, _, d = find(root, ("d",))  # type: ignore[misc]
    assert (has_anchor(a), has_anchor(c), has_anchor(d), has_anchor(alias)) == (True, True, False, False)
    assert [n.value for n in c.children()] == ["1", "2"]
    assert [n.value for n in d.children()] == ["e", "f"]


def test_find_refuses_paths_it_cannot_place() -> None:
    root = span_tree("a: 1\na: 2\nl: [x]\n")
    assert find(root, ("a",)) is None, "a duplicate key has no single place"
    assert find(root, ("l", 1)) is None and find(root, ("l", -1)) is None
    assert find(root, ("l", "x")) is None and find(root, (0,)) is None
    assert find(None, ()) is None
    assert find(root, ("l", 0)) is not None
    whole = find(root, ())
    assert whole is not None and whole[:2] == (None, None) and whole[2] is root


@pytest.mark.parametrize(("written", "name"), [
    ("yes", "true"), ("off", "false"), ("'yes'", "yes"), ("12", "12"), ("1.5", "1.5"), ("0x1F", "31"),
    ("plain", "plain"), ("~", None), ("!!str 12", "12"),
])
def test_key_names_are_what_the_loader_calls_them(written: str, name: str | None) -> None:
    root = span_tree(f"{written}: v\n")
    assert root is not None
    assert key_name(root.entries[0][0]) == name


def test_a_collection_key_has_no_name() -> None:
    root = span_tree("? [a]\n: v\n")
    assert root is not None and key_name(root.entries[0][0]) is None


JSON = '{"a": "x\\"y", "n": -1.5e3, "t": true, "l": [1, {"b": null}], "e": {}, "s": []}'


def test_json_nodes_span_their_tokens() -> None:
    root = json_span_tree("  " + JSON + "\n", start=2)
    assert root is not None and root.kind == "map" and root.flow and (root.start, root.end) == (2, 2 + len(JSON))
    source = "  " + JSON + "\n"
    _, key, a = find(root, ("a",))  # type: ignore[misc]
    assert key is not None and (text_of(source, key), key.style) == ('"a"', '"')
    assert (text_of(source, a), a.style, a.value) == ('"x\\"y"', '"', 'x"y')
    _, _, n = find(root, ("n",))  # type: ignore[misc]
    assert (text_of(source, n), n.style, n.value, n.plain) == ("-1.5e3", "", "-1.5e3", True)
    _, _, b = find(root, ("l", 1, "b"))  # type: ignore[misc]
    assert (text_of(source, b), b.value) == ("null", "null")
    _, _, t = find(root, ("t",))  # type: ignore[misc]
    assert t.value == "true"
    _, _, seq = find(root, ("l",))  # type: ignore[misc]
    assert (seq.kind, seq.flow, text_of(source, seq)) == ("seq", True, '[1, {"b": null}]')
    _, _, e = find(root, ("e",))  # type: ignore[misc]
    _, _, s = find(root, ("s",))  # type: ignore[misc]
    assert (text_of(source, e), text_of(source, s)) == ("{}", "[]")


@pytest.mark.parametrize("broken", ['{"a": 1', '{"a": 1]', '["a"}', '{"a"}', "}", "@", '{"a": 1}}'[:0] + "]"])
def test_json_that_is_not_one_value_has_no_tree(broken: str) -> None:
    assert json_span_tree(broken) is None


def test_a_json_scalar_document() -> None:
    root = json_span_tree('"text"')
    assert root is not None and (root.kind, root.value, root.start, root.end) == ("scalar", "text", 0, 6)


def test_line_helpers() -> None:
    assert line_start("ab\ncd\ref", 4) == 3 and line_start("ab\ncd\ref", 7) == 6 and line_start("abc", 2) == 0
    assert line_end("ab\r\ncd", 1) == (2, 4) and line_end("ab\ncd", 4) == (5, 5)
    assert line_break("a\r\nb") == "\r\n" and line_break("a\rb") == "\r" and line_break("ab") == "\n"
    assert line_break("a\nb\r\nc", 2) == "\r\n" and line_break("a\nb", 2) == "\n"
