"""Document separators exactly as kubectl's YAMLReader finds them (k8s.io/apimachinery/pkg/util/yaml/decoder.go):
a line that starts with ``---``, followed by nothing but blanks or a comment."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.split import split_documents


def _chunks(text: str) -> list[tuple[str, int, bool]]:
    return [(c.text, c.start_line, c.bad_separator) for c in split_documents(text)]


def test_a_stream_without_separators_is_one_document() -> None:
    assert _chunks("a: ---x\nb: 2") == [("a: ---x\nb: 2", 0, False)]


def test_dashes_inside_a_line_or_indented_do_not_separate() -> None:
    assert _chunks("a: |\n  ---\nb: c---\n") == [("a: |\n  ---\nb: c---\n", 0, False)]


def test_a_leading_separator_leaves_an_empty_first_document() -> None:
    assert _chunks("---\na: 1\n") == [("", 0, False), ("a: 1\n", 1, False)]


@pytest.mark.parametrize("line", ["---", "---   ", "---\t", "--- #", "---# no blank", "---  # comment"])
def test_blanks_or_a_comment_may_follow_the_separator(line: str) -> None:
    assert _chunks(f"a: 1\n{line}\nb: 2") == [("a: 1\n", 0, False), ("b: 2", 2, False)]


@pytest.mark.parametrize("line", ["----", "--- {b: 2}", "---x", "--- a # c"])
def test_content_after_the_separator_starts_a_flagged_document_at_that_line(line: str) -> None:
    assert _chunks(f"a: 1\n{line}\nb: 2\n") == [("a: 1\n", 0, False), (f"{line}\nb: 2\n", 1, True)]


def test_a_good_separator_after_a_bad_one_clears_the_flag() -> None:
    assert _chunks("--- x\n---\nb: 2\n") == [("", 0, False), ("--- x\n", 0, True), ("b: 2\n", 2, False)]


def test_crlf_separators_keep_their_line_endings_in_the_documents() -> None:
    assert _chunks("a: 1\r\n---\r\nb: 2\r\n") == [("a: 1\r\n", 0, False), ("b: 2\r\n", 2, False)]


def test_a_trailing_separator_leaves_an_empty_last_document() -> None:
    assert _chunks("a: 1\n---\n") == [("a: 1\n", 0, False), ("", 2, False)]


def test_bad_separators_in_a_row_after_a_multi_line_document() -> None:
    assert _chunks("a: 1\n---\nb: 2\nc: 3\n--- x\n--- y\nd: 4\n") == [
        ("a: 1\n", 0, False), ("b: 2\nc: 3\n", 2, False), ("--- x\n", 4, True), ("--- y\nd: 4\n", 5, True)]


@pytest.mark.parametrize(("text", "expected"), [
    ("---\n...\n", [("", 0, False), ("---\n...\n", 0, False)]),
    ("a: 1\n---\n---\n# c\n...\n", [("a: 1\n", 0, False), ("", 2, False), ("---\n# c\n...\n", 2, False)]),
    ("a: 1\n---\n...\n", [("a: 1\n", 0, False), ("...\n", 2, False)]),
])
def test_a_separator_read_into_an_empty_buffer_opens_a_document_that_starts_with_its_end(
        text: str, expected: list[tuple[str, int, bool]]) -> None:
    """YAMLReader writes a separator that meets an empty buffer into the next document: "---\\n...\\n" is an empty
    document for Kubernetes, while a bare "..." is a syntax error for both go-yaml and libyaml (issue 29: found by
    the module-mode oracle, which calls YAMLReader)."""
    assert _chunks(text) == expected


def test_a_document_of_only_its_end_after_two_separators_is_empty_not_broken() -> None:
    from kubectl_testbench.validate.engine import validate_text

    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---  \n---\n...\n"
    assert validate_text(text, "t.yaml").diagnostics == []
