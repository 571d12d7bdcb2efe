"""Fixes are placed in the text only when code actions ask for them (issue 33, item 8): publishing a finding
does not read the document a second time, and the edits placed later are the ones ``validate`` places at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.load.decode import DecodeError, decode
from kubectl_testbench.lsp import actions
from kubectl_testbench.lsp import server as server_module
from kubectl_testbench.lsp.check import check, check_later
from kubectl_testbench.lsp.publish import place
from kubectl_testbench.lsp.server import build
from kubectl_testbench.lsp.text import TextIndex
from kubectl_testbench.validate import fix_placement
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import EXAMPLES, ROOT
from tests.fix.helpers import CORPUS, crlf
from tests.lsp.inprocess import Harness

SOURCES = (sorted(EXAMPLES.glob("experiments/*.yaml")) + sorted((ROOT / "tests" / "validate" / "corpus").glob("*.yaml"))
           + sorted((ROOT / "tests" / "hostile" / "corpus").iterdir()) + sorted(CORPUS.iterdir()))
"""The fix round-trip corpus (tests/fix/test_fix_corpus.py)."""

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
BROKEN_METRIC = WEATHER.replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")
URI = "file:///w/a.yaml"
FROM_SPANS = frozenset(fix_placement._HANDLERS)
"""The fixes placed from the document's span tree (the others carry their edits, relative to their document)."""


def _texts() -> list[tuple[str, str]]:
    out = []
    for source in SOURCES:
        data = source.read_bytes()
        for variant, raw in (("as-is", data), ("crlf", crlf(data))):
            try:
                out.append((f"{source.parent.name}/{source.name}:{variant}", decode(raw)))
            except DecodeError:
                continue
    return out


TEXTS = _texts()


def _has_edits(findings: list[Any]) -> bool:
    return any(d.fix is not None and d.fix.edits for d in findings)


def test_the_corpus_offers_fixes_of_every_kind_to_compare() -> None:
    kinds = {d.fix.kind for _, text in TEXTS for d in validate_text(text, "x.yaml").diagnostics
             if d.fix is not None and d.fix.edits}
    assert {k.value for k in kinds} >= {"quote", "replace", "rename-key", "delete", "insert"}, kinds


@pytest.mark.parametrize(("name", "text"), TEXTS, ids=[n for n, _ in TEXTS])
def test_fixes_placed_later_are_the_fixes_placed_at_once(name: str, text: str) -> None:
    eager = validate_text(text, name).diagnostics
    later = validate_text(text, name, Options(place_fixes=False))
    assert not any(d.fix.edits for d in later.diagnostics if d.fix and d.fix.kind in FROM_SPANS)  # not placed yet
    unplaced = [dataclasses.replace(d, fix=None) for d in later.diagnostics]
    assert unplaced == [dataclasses.replace(d, fix=None) for d in eager]  # the same findings, published as they are
    assert later.placed() == eager
    assert later.placed() == eager  # asking twice places the same


@pytest.mark.parametrize(("name", "text"), [(n, x) for n, x in TEXTS if _has_edits(check(x, "/w/x.yaml", None))],
                         ids=[n for n, x in TEXTS if _has_edits(check(x, "/w/x.yaml", None))])
def test_the_quick_fixes_of_later_placed_fixes_are_the_same_code_actions(name: str, text: str) -> None:
    index = TextIndex(text)
    whole = (0, len(text))
    eager = actions.quick_fixes(place(check(text, "/w/x.yaml", None), index), *whole, index, URI, 3)
    found = check_later(text, "/w/x.yaml", None)
    published = place(found.diagnostics, index)
    result = server_module.Result(3, index, published, found)
    assert eager and actions.quick_fixes(result.with_fixes(), *whole, index, URI, 3) == eager
    assert [p.diagnostic for p in result.placed] == [p.diagnostic for p in published]


def _params(uri: str) -> t.CodeActionParams:
    return t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri),
                              range=t.Range(t.Position(0, 0), t.Position(200, 0)),
                              context=t.CodeActionContext(diagnostics=[], only=[t.CodeActionKind.QuickFix]))


def test_the_span_tree_is_read_only_when_code_actions_are_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe: fix placement's reading of the document (spans.span_tree) is counted."""
    reads: list[int] = []
    real = fix_placement.span_tree

    def counted(text: str) -> Any:
        reads.append(len(text))
        return real(text)

    monkeypatch.setattr(fix_placement, "span_tree", counted)
    monkeypatch.setattr(server_module, "settle_memory", lambda: None)

    async def go() -> None:
        h = Harness(build(debounce=0.0))
        await h.initialize()
        h.open(URI, BROKEN_METRIC, version=1)
        [finding] = await h.diagnostics(URI, 1)
        assert finding.code == "semantic/unknown-metric"
        assert reads == []  # published without placing the fix
        [action] = await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _params(URI))
        assert action.title == 'write "ToolCallAccuracy" (semantic/unknown-metric)'
        [change] = action.edit.document_changes
        assert [e.new_text for e in change.edits] == ["ToolCallAccuracy"]
        assert reads == [len(BROKEN_METRIC)]
        again = await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _params(URI))
        assert list(again) == [action] and len(reads) == 1  # placed once per version

    asyncio.run(go())


def test_a_document_without_fixes_is_never_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    monkeypatch.setattr(fix_placement, "span_tree", lambda text: reads.append(1))
    monkeypatch.setattr(server_module, "settle_memory", lambda: None)

    async def go() -> None:
        h = Harness(build(debounce=0.0))
        await h.initialize()
        h.open(URI, WEATHER)
        assert await h.diagnostics(URI, 1) == []
        assert list(await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _params(URI))) == []
        assert reads == []

    asyncio.run(go())


def test_validate_still_places_fixes_at_once() -> None:
    result = validate_text(BROKEN_METRIC, "x.yaml")
    [finding] = result.diagnostics
    assert finding.fix is not None and [e.text for e in finding.fix.edits] == ["ToolCallAccuracy"]
    assert result.deferred is None and result.placed() is result.diagnostics
