"""The two proofs ``fix`` runs on every edit: each document reads back exactly as its fixes promise (types
included), and no comment is lost, in either comment reader."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.fix.comments import comment_lines, lost_comments
from kubectl_testbench.fix.verify import canonical, documents, failing, meaning
from kubectl_testbench.load.limits import DEFAULT_LIMITS
from kubectl_testbench.validate.diagnostics import Edit, Fix, FixKind


def test_canonical_keeps_json_types_apart() -> None:
    assert canonical(True) != canonical(1) and canonical(1) != canonical(1.0) and canonical("1") != canonical(1)
    assert canonical({"b": 1, "a": [True]}) == canonical({"a": [True], "b": 1})
    assert canonical([1, 2]) != canonical([2, 1]) and canonical({"a": 1}) != canonical([["a", 1]])


@pytest.mark.parametrize(("kind", "path", "value", "expected"), [
    (FixKind.QUOTE, ("spec", "a"), "yes", {"spec": {"a": "yes", "b": [1, 2]}}),
    (FixKind.REPLACE, ("spec", "b", 1), 3, {"spec": {"a": True, "b": [1, 3]}}),
    (FixKind.RENAME_KEY, ("spec", "a"), "c", {"spec": {"b": [1, 2], "c": True}}),
    (FixKind.DELETE, ("spec", "a"), None, {"spec": {"b": [1, 2]}}),
    (FixKind.DELETE, ("spec", "b", 0), None, {"spec": {"a": True, "b": [2]}}),
    (FixKind.INSERT, ("spec", "new"), {"x": 1}, {"spec": {"a": True, "b": [1, 2], "new": {"x": 1}}}),
    (FixKind.SPLIT_SEPARATOR, ("spec",), None, {"spec": {"a": True, "b": [1, 2]}}),
    (FixKind.REINDENT, (), None, {"spec": {"a": True, "b": [1, 2]}}),
])
def test_meaning_is_the_document_after_the_fix(kind: FixKind, path: tuple[Any, ...], value: Any,
                                               expected: Any) -> None:
    data = {"spec": {"a": True, "b": [1, 2]}}
    assert meaning(data, Fix(kind, path, value)) == expected
    assert data == {"spec": {"a": True, "b": [1, 2]}}, "the old reading is left as it was"


def test_meaning_of_a_path_that_is_not_there_raises() -> None:
    with pytest.raises(LookupError):
        meaning({"spec": {}}, Fix(FixKind.REPLACE, ("spec", "gone"), 1))
    with pytest.raises(LookupError):
        meaning({"spec": {}}, Fix(FixKind.RENAME_KEY, ("nope", "x"), "y"))


def _fix(text: str, old: str, new: str, kind: FixKind, path: tuple[Any, ...], value: Any) -> tuple[str, Fix]:
    start = text.index(old)
    return text.replace(old, new, 1), Fix(kind, path, value, edits=(Edit(start, start + len(old), new),))


def test_failing_names_the_documents_that_do_not_read_as_promised() -> None:
    text = "a: yes\n---\nb: 1\n"
    new, fix = _fix(text, "yes", '"yes"', FixKind.QUOTE, ("a",), "yes")
    assert failing(text, new, [fix], DEFAULT_LIMITS) == []
    wrong, fix = _fix(text, "yes", "'no'", FixKind.QUOTE, ("a",), "yes")
    assert failing(text, wrong, [fix], DEFAULT_LIMITS) == [0]
    other, fix = _fix(text, "b: 1", "b: 2", FixKind.QUOTE, ("a",), "yes")
    assert failing(text, other, [fix], DEFAULT_LIMITS) == [1], "the fix's edit is in document 1, its path is not"
    assert failing(text, "a: yes\n", [], DEFAULT_LIMITS) == [0, 1], "a document went missing"
    typed, fix = _fix(text, "b: 1", 'b: "1"', FixKind.REPLACE, ("b",), 1)
    assert failing(text, typed, [fix], DEFAULT_LIMITS) == [1], "the string '1' is not the number 1"
    missing, fix = _fix(text, "b: 1", "c: 1", FixKind.REPLACE, ("zzz",), 1)
    assert failing(text, missing, [fix], DEFAULT_LIMITS) == [1]


def test_a_reindent_only_needs_the_document_to_read() -> None:
    text = "a:\n\tb: 1\n"
    fixed = Fix(FixKind.REINDENT, (), None, edits=(Edit(3, 4, "  "),))
    assert failing(text, "a:\n  b: 1\n", [fixed], DEFAULT_LIMITS) == []
    assert failing(text, "a:\n\tb: 2\n", [fixed], DEFAULT_LIMITS) == [0]


def test_json_documents_are_read_as_kubectl_reads_them() -> None:
    [doc] = documents('{"a": 1}', DEFAULT_LIMITS)
    assert (doc.start, doc.data, doc.readable) == (0, {"a": 1}, True)
    first, second = documents("a: 1\n---\nb: [\n", DEFAULT_LIMITS)
    assert (first.data, first.readable, second.start, second.data, second.readable) == ({"a": 1}, True, 9, None, False)


YAML = """# head
a: 1  # after a
# between
b: [x, # in flow
    y]
"""


def test_comments_are_found_by_both_readers() -> None:
    expected = [(0, "# head"), (1, "# after a"), (2, "# between"), (3, "# in flow")]
    assert comment_lines(YAML) == expected
    assert comment_lines(YAML, round_trip=True) == expected
    assert comment_lines("a: 'x\n") is None and comment_lines("a: 'x\n", round_trip=True) is None


@pytest.mark.parametrize("round_trip", [False, True])
def test_lost_comments_are_named_unless_their_line_was_deleted(round_trip: bool) -> None:
    assert lost_comments(YAML, YAML.replace("  # after a", ""), round_trip=round_trip) == ["# after a"]
    assert lost_comments(YAML, YAML.replace("  # after a", ""), removable={1}, round_trip=round_trip) == []
    assert lost_comments(YAML, YAML.replace("a: 1", "a: 2"), round_trip=round_trip) == []
    assert lost_comments(YAML, YAML.replace("# between\n", "# c: # between\n"), round_trip=round_trip) == [], (
        "a commented-out line keeps its comment")
    assert lost_comments("a: 'x\n", "a: 1\n", round_trip=round_trip) == [], "nothing to compare with"
    assert lost_comments(YAML, "a: 'x\n", round_trip=round_trip) == ["# head"]
    assert lost_comments("a: 1\n", "a: 'x\n", round_trip=round_trip) == ["(the edited text cannot be read back)"]
    assert lost_comments("# x\n# x\n", "# x\n", round_trip=round_trip) == ["# x"], "each comment counts once"


def test_a_document_no_fix_touches_must_read_exactly_as_before() -> None:
    text = "a: yes\n---\nb: 1\n"
    new, fix = _fix(text, "yes", '"yes"', FixKind.QUOTE, ("a",), "yes")
    assert failing(text, new.replace("b: 1", "b: 2"), [fix], DEFAULT_LIMITS) == [1]
    assert failing(text, new.replace("b: 1", "b: [1"), [fix], DEFAULT_LIMITS) == [1], "no longer readable"


def test_a_fix_after_a_reindent_is_still_checked() -> None:
    text = "a:\n\tb: 1\n---\nc: yes\n"
    reindent = Fix(FixKind.REINDENT, (), None, edits=(Edit(3, 4, "  "),))
    start = text.index("yes")
    wrong = Fix(FixKind.QUOTE, ("c",), "yes", edits=(Edit(start, start + 3, "'no'"),))
    assert failing(text, "a:\n  b: 1\n---\nc: 'no'\n", [reindent, wrong], DEFAULT_LIMITS) == [1]
    right = Fix(FixKind.QUOTE, ("c",), "yes", edits=(Edit(start, start + 3, '"yes"'),))
    assert failing(text, 'a:\n  b: 1\n---\nc: "yes"\n', [reindent, right], DEFAULT_LIMITS) == []


def test_a_fix_without_edits_is_held_to_the_first_document() -> None:
    text = "a: 1\n---\nb: 1\n"
    promise = Fix(FixKind.REPLACE, ("a",), 2)
    assert failing(text, "a: 2\n---\nb: 1\n", [promise], DEFAULT_LIMITS) == []
    assert failing(text, "a: 1\n---\nb: 1\n", [promise], DEFAULT_LIMITS) == [0]


def test_documents_are_read_within_the_limits_given() -> None:
    from kubectl_testbench.load.limits import Limits

    deep = "a:\n  b:\n    c: 1\n"
    assert [d.readable for d in documents(deep, Limits(max_depth=2))] == [False]
    assert [d.readable for d in documents(deep, Limits(max_depth=3))] == [True]
    assert [d.readable for d in documents('{"a": {"b": {"c": 1}}}', Limits(max_depth=2))] == [False]
    assert [(d.start, d.data) for d in documents("a: 1\n---\nb: [2\n", DEFAULT_LIMITS)] == [(0, {"a": 1}), (9, None)]


def test_comments_are_read_by_libyaml_unless_round_trip_asks_for_ruamel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Byte-range fixes use the fast scanner; migrations, which move blocks of lines, use ruamel's."""
    from kubectl_testbench.fix import comments

    calls: list[str] = []
    real = comments._libyaml_comments
    monkeypatch.setattr(comments, "_libyaml_comments", lambda text: calls.append(text) or real(text))
    text = "a: 1  # one\n# two\nb: 2\n"
    assert comment_lines(text) == [(0, "# one"), (1, "# two")] and calls == [text]
    assert comment_lines(text, round_trip=True) == [(0, "# one"), (1, "# two")] and calls == [text]
    assert lost_comments(text, "a: 1\n# two\nb: 2\n") == ["# one"] and len(calls) == 3
    assert lost_comments(text, "a: 1\n# two\nb: 2\n", round_trip=True) == ["# one"] and len(calls) == 3
