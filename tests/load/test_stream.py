"""load/stream.yaml_documents: one reading of a YAML stream, bounded per file, for validate and the integrations."""

from __future__ import annotations

from kubectl_testbench.integrations.documents import Document, Problem, read_documents
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.stream import yaml_documents


def test_blank_documents_are_dropped_unread_and_indexes_count_every_chunk() -> None:
    found = [(index, chunk.start_line, built is None) for index, chunk, built in
             yaml_documents("---\n---\na: 1\n--- bad\nb: 2\n", Limits())]
    assert found == [(2, 2, False), (3, 3, True)]


def test_the_document_count_ends_the_file_with_one_error() -> None:
    limits = Limits(max_nodes=1000, nodes_per_document=100)  # ten documents a file
    results = list(yaml_documents("a: 1\n---\n" * 20, limits))
    assert len(results) == 11
    last = results[-1][2]
    assert last is not None and last.error is not None
    assert (last.error.rule, last.error.mark) == ("yaml/too-many-nodes", (21, 1))
    assert last.error.message.startswith("more than 10 documents in one file; the rest is not read")


def test_the_node_budget_is_the_files_and_ends_it() -> None:
    doc = "v: [" + ", ".join(["0"] * 600) + "]\n"
    results = list(yaml_documents("---\n".join([doc] * 5), Limits(max_nodes=1000)))
    assert len(results) == 2
    error = results[1][2].error if results[1][2] is not None else None
    assert error is not None and error.message == ("more than 1000 nodes in one file (raise with --max-nodes); "
                                                   "the rest is not read")


def test_argo_cds_and_krms_reader_has_the_same_file_bounds() -> None:
    read = list(read_documents("a: 1\n---\n" * 20, Limits(max_nodes=1000, nodes_per_document=100)))
    assert [type(d) for d in read] == [Document] * 10 + [Problem]
    problem = read[-1]
    assert isinstance(problem, Problem) and problem.rule == "yaml/too-many-nodes" and problem.mark == (21, 1)
