"""When a key is close enough to a known field to be renamed: the distance, the candidates, the reasons not to."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.fix_choices import MAX_KEY_DISTANCE, NUMBER_TEXT, edit_distance, near, rename_fix


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("dataset", "dataset", 0),
    ("datset", "dataset", 1),  # one insertion
    ("datasett", "dataset", 1),  # one deletion
    ("dateset", "dataset", 1),  # one substitution
    ("dtaaset", "dataset", 1),  # neighbours swapped: one edit, not two
    ("adtaset", "dataset", 1),  # swap of the first two letters
    ("datasey", "dataset", 1),  # substitution of the last letter
    ("dtaasey", "dataset", 2),
    ("dset", "dataset", 3),  # three letters missing: past the limit
    ("ds", "dataset", 3),
    ("xyzabc", "dataset", 3),  # same length range, far apart: stops early at limit + 1
    ("", "", 0),
    ("", "ab", 2),
    ("ab", "", 2),
    ("ab", "ba", 1),
    ("abc", "ca", 3),  # optimal string alignment: a swapped pair is not edited again
])
def test_edit_distance(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance
    assert edit_distance(b, a) == distance


def test_edit_distance_limit_is_a_parameter() -> None:
    assert MAX_KEY_DISTANCE == 2
    assert edit_distance("abcd", "wxyz", limit=5) == 4
    assert edit_distance("a", "abcdef", limit=5) == 5
    assert edit_distance("a", "abcdefg", limit=5) == 6
    assert edit_distance("abcd", "wxyz", limit=1) == 2


def test_near_takes_case_slips_and_two_edits_but_not_the_key_itself() -> None:
    known = ["name", "Name", "namespace", "names", "labels"]
    assert near("name", known) == ["Name", "names"]
    assert near("NAMESPACE", known) == ["namespace"]  # far in edits, equal ignoring case
    assert near("lbls", known) == ["labels"]
    assert near("lb", known) == []


def test_rename_fix_renames_the_one_close_field() -> None:
    assert rename_fix(("spec",), "datset", ["dataset", "agentRef"], ["datset"]) == Fix(
        FixKind.RENAME_KEY, ("spec", "datset"), "dataset", 'rename "datset" to "dataset"')


def test_rename_fix_says_why_not() -> None:
    assert rename_fix(("spec",), "zzz", ["dataset"], []) == Fix(
        FixKind.RENAME_KEY, ("spec", "zzz"), None, blocked="no known field is within two edits of it")
    assert rename_fix((), "nam", ["name", "names"], []) == Fix(
        FixKind.RENAME_KEY, ("nam",), None, blocked="several known fields are close: name, names")
    assert rename_fix((), "Name", ["name"], iter(["name", "Name"])) == Fix(
        FixKind.RENAME_KEY, ("Name",), None, blocked='"name" is set already: keep one of the two')


@pytest.mark.parametrize(("text", "number"), [
    ("0", True), ("-0.5", True), ("1e3", True), ("1E-3", True), ("10.25e+2", True),
    ("01", False), ("+1", False), (".5", False), ("1.", False), ("0x10", False), ("1_000", False), ("", False),
])
def test_number_text_is_a_json_number(text: str, number: bool) -> None:
    assert bool(NUMBER_TEXT.fullmatch(text)) is number
