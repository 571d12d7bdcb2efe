"""integrations.documents: the one reading of a stream that generate, discover and the KRM function share with
validate (JSON streams value by value, YAML split on ``---``, the reading limits, problems instead of raising)."""

from __future__ import annotations

import json

from kubectl_testbench.integrations.documents import Document, Problem, read_documents
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits

A = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
B = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}}


def _read(text: str, limits: Limits = DEFAULT_LIMITS) -> list[Document | Problem]:
    return list(read_documents(text, limits))


def test_a_json_stream_is_every_value_with_or_without_separators() -> None:
    for text in (json.dumps(A) + "\n" + json.dumps(B) + "\n", json.dumps(A) + json.dumps(B),
                 json.dumps(A, indent=2) + "\n\n" + json.dumps(B, indent=2)):
        docs = _read(text)
        assert [d.data for d in docs if isinstance(d, Document)] == [A, B], text
        assert all(isinstance(d, Document) and d.text is None for d in docs)
    pretty = _read(json.dumps(A, indent=2) + "\n" + json.dumps(B, indent=2))
    assert [d.start_line for d in pretty if isinstance(d, Document)] == [0, 7]


def test_a_json_stream_with_a_duplicate_field_is_read_by_the_positional_reader() -> None:
    text = json.dumps(A) + '\n{"apiVersion": "v1", "kind": "Secret", "kind": "Secret", "metadata": {"name": "b"}}'
    assert [d.data for d in _read(text) if isinstance(d, Document)] == [A, B]


def test_a_json_syntax_error_ends_the_stream_with_its_place() -> None:
    docs = _read(json.dumps(A) + '\n{"kind": }\n' + json.dumps(B))
    assert isinstance(docs[0], Document) and docs[0].data == A
    assert docs[1:] == [Problem("yaml/syntax", "invalid character '}' looking for beginning of value", (2, 10))]


def test_a_json_array_is_one_yaml_document_holding_a_list() -> None:
    """kubectl's JSON test is a leading '{': an array goes to the YAML reader, as one document."""
    (doc,) = _read(json.dumps([A, B]))
    assert isinstance(doc, Document) and doc.data == [A, B] and doc.text == json.dumps([A, B])


def test_yaml_documents_keep_their_text_and_empty_ones_are_skipped() -> None:
    text = "---\n# nothing\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\nkind: Secret\n"
    docs = _read(text)
    assert [(d.data, d.start_line, d.text) for d in docs if isinstance(d, Document)] == [
        (A, 3, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), ({"kind": "Secret"}, 8, "kind: Secret\n")]


def test_a_yaml_document_that_cannot_be_read_does_not_hide_the_next() -> None:
    deep = "[" * 300 + "]" * 300
    docs = _read(f"a: [\n---\n{deep}\n---\n--- x\n---\nkind: Secret\n")
    assert docs == [
        Problem("yaml/syntax", "did not find expected node content while parsing a flow node", (2, 1)),
        Problem("yaml/too-deep", "nesting deeper than 256 levels (raise with --max-depth)", (3, 257)),
        Problem("yaml/document-separator", "invalid document separator: only a comment may follow '---' on its line",
                (5, 4)),
        Document({"kind": "Secret"}, 6, "kind: Secret\n"),
    ]
    assert [d.over_limit for d in docs if isinstance(d, Problem)] == [False, True, False]
    assert docs[1].located("stdin") == "stdin:3:257: nesting deeper than 256 levels (raise with --max-depth)"


def test_deep_nesting_stops_at_the_limit_without_recursing() -> None:
    """100,000 levels: PyYAML's C composer recursed once per level (a segfault on PyYAML 6.0.3)."""
    for text, column in (("[" * 100_000 + "]" * 100_000, 257), ('{"a":' * 100_000 + "1" + "}" * 100_000, 1281)):
        (problem,) = _read(text)
        assert isinstance(problem, Problem) and problem.rule == "yaml/too-deep" and problem.mark == (1, column)
    (raised,) = _read("[" * 300 + "]" * 300, Limits(max_depth=400))
    assert isinstance(raised, Document)


def test_the_node_and_alias_limits_apply() -> None:
    (many,) = _read("[" + "0," * 2000 + "0]", Limits(max_nodes=1000))
    assert isinstance(many, Problem) and many.rule == "yaml/too-many-nodes"
    bomb = "a: &a [" + ",".join(["x"] * 10) + "]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8))
    (laughs,) = _read(bomb)
    assert isinstance(laughs, Problem) and laughs.rule == "yaml/alias-limit" and laughs.over_limit
