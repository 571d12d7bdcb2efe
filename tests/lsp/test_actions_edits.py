"""Code actions from the engine's own fixes: which requests get them, the edit each carries, the whole-buffer
edit of "fix all" reduced to the span that changed, and edits tied to the version they were made for."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.lsp.actions import FIX_ALL, fix_all, quick_fixes, wanted, whole_text_edit, workspace_edit
from kubectl_testbench.lsp.check import DEFAULT_SETTINGS, check
from kubectl_testbench.lsp.publish import Placed, place
from kubectl_testbench.lsp.text import UTF8, TextIndex
from tests.conftest import EXAMPLES
from tests.lsp.client import apply_edits

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
BROKEN = WEATHER.replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")
URI = "file:///w/x.yaml"


def placed(text: str = BROKEN) -> tuple[TextIndex, list[Placed]]:
    index = TextIndex(text)
    return index, place(check(text, "/w/x.yaml", None), index)


@pytest.mark.parametrize(("only", "kind", "admitted"), [
    (None, "quickfix", True),
    (["quickfix"], "quickfix", True),
    (["source"], "source.fixAll", True),
    (["source.fixAll"], "source.fixAll", True),
    (["source.fix"], "source.fixAll", False),
    (["sourc"], "source.fixAll", False),
    (["source.fixAll.more"], "source.fixAll", False),
    (["refactor", "quickfix"], "quickfix", True),
    (["refactor"], "quickfix", False),
    ([], "quickfix", False),
])
def test_the_clients_only_filter(only: list[str] | None, kind: str, admitted: bool) -> None:
    assert wanted(only, kind) is admitted


def test_a_quick_fix_where_the_request_touches_the_finding() -> None:
    index, found = placed()
    [p] = found
    for start, end in ((p.start, p.end), (p.end, p.end + 5), (p.start - 5, p.start), (0, len(BROKEN))):
        [action] = quick_fixes(found, start, end, index, URI, 3)
        assert action.title == 'write "ToolCallAccuracy" (semantic/unknown-metric)'
        assert action.kind == t.CodeActionKind.QuickFix and action.is_preferred is True
        assert action.diagnostics == [p.diagnostic]
        [change] = action.edit.document_changes  # type: ignore[union-attr]
        assert isinstance(change, t.TextDocumentEdit)
        assert (change.text_document.uri, change.text_document.version) == (URI, 3)
        assert apply_edits(BROKEN, change.edits) == WEATHER  # type: ignore[arg-type]
    assert quick_fixes(found, p.end + 1, p.end + 9, index, URI, 3) == []
    assert quick_fixes(found, 0, p.start - 1, index, URI, 3) == []


def test_findings_without_a_fix_or_without_edits_get_no_quick_fix() -> None:
    index, [p] = placed()
    assert p.finding.fix is not None
    no_fix = dataclasses.replace(p, finding=dataclasses.replace(p.finding, fix=None))
    blocked = dataclasses.replace(p, finding=dataclasses.replace(
        p.finding, fix=dataclasses.replace(p.finding.fix, edits=(), blocked="an alias shares it")))
    assert quick_fixes([no_fix, blocked], 0, len(BROKEN), index, URI, None) == []
    assert len(quick_fixes([no_fix, blocked, p], 0, len(BROKEN), index, URI, None)) == 1  # the others still count


def test_an_untitled_fix_is_named_by_its_kind() -> None:
    index, [p] = placed()
    assert p.finding.fix is not None
    untitled = dataclasses.replace(p, finding=dataclasses.replace(p.finding, fix=dataclasses.replace(
        p.finding.fix, title="")))
    [action] = quick_fixes([untitled], p.start, p.end, index, URI, None)
    assert action.title == "replace (semantic/unknown-metric)"
    assert action.edit is not None and action.edit.document_changes is None
    assert apply_edits(BROKEN, action.edit.changes[URI]) == WEATHER  # type: ignore[arg-type,index]


@pytest.mark.parametrize(("old", "new", "start", "end", "inserted"), [
    ("abc", "abc", None, None, None),
    ("abc", "abXc", 2, 2, "X"),
    ("abc", "ac", 1, 2, ""),
    ("aaa", "aaaa", 3, 3, "a"),  # a repeat: the common suffix never overlaps the prefix
    ("aaaa", "aaa", 3, 4, ""),
    ("", "new", 0, 0, "new"),
    ("old", "", 0, 3, ""),
    ("xay", "xby", 1, 2, "b"),
    ("ab", "ba", 0, 2, "ba"),
])
def test_the_whole_buffer_edit_replaces_only_what_changed(old: str, new: str, start: int | None, end: int | None,
                                                         inserted: str | None) -> None:
    edits = whole_text_edit(TextIndex(old), new)
    assert apply_edits(old, edits) == new
    if start is None:
        assert edits == []
        return
    [edit] = edits
    assert (edit.range.start.character, edit.range.end.character, edit.new_text) == (start, end, inserted)


def test_whole_buffer_edits_count_in_the_clients_units() -> None:
    old = "k: 😀a\nz: 1\n"
    [edit] = whole_text_edit(TextIndex(old, UTF8), "k: 😀b\nz: 1\n")
    assert edit.range == t.Range(t.Position(0, 7), t.Position(0, 8)) and edit.new_text == "b"


def test_workspace_edits_with_and_without_a_version() -> None:
    edits = [t.TextEdit(t.Range(t.Position(0, 0), t.Position(0, 1)), "x")]
    assert workspace_edit(URI, None, edits) == t.WorkspaceEdit(changes={URI: edits})
    versioned = workspace_edit(URI, 0, edits)
    assert versioned == t.WorkspaceEdit(document_changes=[t.TextDocumentEdit(
        t.OptionalVersionedTextDocumentIdentifier(uri=URI, version=0), edits)])


def test_fix_all_is_kubectl_testbench_fix_on_the_buffer() -> None:
    assert fix_all(BROKEN, "/w/x.yaml", None, DEFAULT_SETTINGS) == WEATHER
    assert fix_all(WEATHER, "/w/x.yaml", None, DEFAULT_SETTINGS) == WEATHER
    assert fix_all("kind: [", "/w/x.yaml", None, DEFAULT_SETTINGS) == "kind: ["  # unreadable: left as it is
    assert FIX_ALL == "source.fixAll"
