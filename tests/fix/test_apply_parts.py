"""The pieces of ``fix`` that decide which fixes apply together: overlapping edits, fixes that read back alone but
not together, and how a note about a file is printed."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.fix import apply
from kubectl_testbench.fix.apply import Note, _overlap, _verified
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind, Severity


def _offered(*spans: tuple[int, int], message: str = "m") -> Diagnostic:
    edits = tuple(Edit(start, end, "x") for start, end in spans)
    return Diagnostic("schema/type", Severity.ERROR, message, "f.yaml",
                      fix=Fix(FixKind.REPLACE, ("a",), 1, edits=edits))


@pytest.mark.parametrize(("spans", "clash"), [
    ([[(0, 2)], [(2, 4)]], None),  # adjacent: the first ends where the second starts
    ([[(0, 3)], [(2, 4)]], (0, 1)),  # overlapping
    ([[(0, 5)], [(1, 2)], [(6, 7)]], (0, 1)),  # one inside the other
    ([[(0, 0)], [(0, 0)]], (0, 1)),  # two insertions at the same point
    ([[(3, 3)], [(3, 5)]], (0, 1)),  # an insertion where another edit starts
    ([[(0, 1), (0, 1)]], None),  # one fix's own edits never clash with each other
    ([[(0, 1), (5, 6)], [(2, 3)]], None),
    ([[(0, 1), (5, 8)], [(6, 7)]], (0, 1)),
    ([[(0, 4)], [(4, 4)], [(4, 6)]], (1, 2)),  # the insertion at 4 and the edit from 4 start at the same point
])
def test_fixes_whose_edits_touch_cannot_both_apply(spans: list[list[tuple[int, int]]],
                                                    clash: tuple[int, int] | None) -> None:
    offered = [_offered(*s, message=f"fix {i}") for i, s in enumerate(spans)]
    found = _overlap(offered)
    assert (None if found is None else (offered.index(found[0]), offered.index(found[1]))) == clash


def test_fixes_that_read_back_alone_but_not_together_are_all_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: 1\nb: 2\n"
    one, two = _offered((3, 4), message="one"), _offered((8, 9), message="two")
    together: list[int] = []

    def reads_back(before: str, after: str, applied: list[Diagnostic], options: Any) -> bool:
        assert before == text
        together.append(len(applied))
        return len(applied) == 1 and after in ("a: x\nb: 2\n", "a: 1\nb: x\n")

    monkeypatch.setattr(apply, "_reads_back", reads_back)
    assert _verified(text, [one, two], None) == (text, [], [one, two])  # type: ignore[arg-type]
    assert together == [2, 1, 1, 2]


def test_of_fixes_that_do_not_read_back_together_the_good_ones_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: 1\nb: 2\n"
    good, bad = _offered((3, 4), message="good"), _offered((8, 9), message="bad")
    monkeypatch.setattr(apply, "_reads_back", lambda before, after, applied, options: bad not in applied)
    assert _verified(text, [good, bad], None) == ("a: x\nb: 2\n", [good], [bad])  # type: ignore[arg-type]


def test_a_note_names_its_line_when_it_has_one() -> None:
    assert str(Note("exps/a.yaml", 3, "moved spec.x")) == "exps/a.yaml:3: moved spec.x"
    assert str(Note("exps/a.yaml", 0, "moved spec.x")) == "exps/a.yaml: moved spec.x"
