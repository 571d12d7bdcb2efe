"""The pieces of ``fix`` that decide which fixes apply together: overlapping edits, fixes that read back alone but
not together, and how a note about a file is printed."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.fix import apply
from kubectl_testbench.fix.apply import Note, _overlap, _reads_back, _verified
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.engine import Options
from kubectl_testbench.validate.fix_placement import apply_edits


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
    ([[(1, 2)]], None),  # a single fix clashes with nothing, wherever it starts
    ([[(1, 1)]], None),
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


def test_the_fixes_kept_are_checked_together_on_their_own_text_with_the_options_given(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: 1\nb: 2\nc: 3\n"
    one, two, bad = (_offered((3, 4), message="one"), _offered((8, 9), message="two"),
                     _offered((13, 14), message="bad"))
    options = Options(strict=True)
    checks: list[tuple[str, list[str]]] = []

    def reads_back(before: str, after: str, applied: list[Diagnostic], given: Any) -> bool:
        assert before == text and given is options
        checks.append((after, [d.message for d in applied]))
        return bad not in applied and after == apply_edits(text, apply._edits(applied))

    monkeypatch.setattr(apply, "_reads_back", reads_back)
    assert _verified(text, [one, two, bad], options) == ("a: x\nb: x\nc: 3\n", [one, two], [bad])
    assert checks[-1] == ("a: x\nb: x\nc: 3\n", ["one", "two"])


COMMENTED = "# top\na: 1  # a\nstatus:  # s\n  x: 1  # x\nb: 2  # b\nc: 3  # c\n"
STATUS, AFTER_STATUS = COMMENTED.index("status"), COMMENTED.index("b: 2")
WITHOUT_STATUS = COMMENTED[:STATUS] + COMMENTED[AFTER_STATUS:]


def _delete_status(*edits: tuple[int, int]) -> list[Diagnostic]:
    fix = Fix(FixKind.DELETE, ("status",), None, "remove status", edits=tuple(Edit(s, e, "") for s, e in edits))
    return [Diagnostic("semantic/status-ignored", Severity.WARNING, "m", "f.yaml", fix=fix)]


@pytest.mark.parametrize(("dropped", "edits", "reads_back"), [
    ("", [(STATUS, AFTER_STATUS)], True),  # the deleted lines' comments go with them
    ("# top", [(STATUS, AFTER_STATUS)], False),  # comments above, beside and below the deleted lines stay
    ("  # a", [(STATUS, AFTER_STATUS)], False),
    ("  # b", [(STATUS, AFTER_STATUS)], False),
    ("  # c", [(STATUS, AFTER_STATUS)], False),
    ("  # b", [(STATUS, AFTER_STATUS + 1)], True),  # a deletion that ends inside a line takes that line's too
    ("  # c", [(STATUS, AFTER_STATUS), (AFTER_STATUS + 13, AFTER_STATUS + 13)], False),  # an empty edit deletes none
])
def test_a_comment_may_go_only_with_the_lines_a_fix_deletes(dropped: str, edits: list[tuple[int, int]],
                                                            reads_back: bool) -> None:
    new = WITHOUT_STATUS.replace(dropped, "") if dropped else WITHOUT_STATUS
    assert _reads_back(COMMENTED, new, _delete_status(*edits), Options()) is reads_back


def test_a_note_names_its_line_when_it_has_one() -> None:
    assert str(Note("exps/a.yaml", 3, "moved spec.x")) == "exps/a.yaml:3: moved spec.x"
    assert str(Note("exps/a.yaml", 0, "moved spec.x")) == "exps/a.yaml: moved spec.x"
